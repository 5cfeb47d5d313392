package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.backend.BackendDriver;
import org.lutra.backend.BackendSetup;
import org.lutra.backend.ValueCodec;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The router's backend results decode to the same wire protos ({@link ValueCodec#column},
 * {@link ValueCodec#row}) whether MariaDB Connector/J or Connector/J read them: every column type
 * with edge values, literals, expressions, casts, aggregates, window functions, unions and a
 * seeded random set of expressions, each as a server-side prepared statement (with a parameter)
 * and as a plain statement (text protocol), both drivers with the router's options.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackendDecodingParityIT {
    /**
     * The options the router's MariaDB Connector/J backend connections use; the session's collation
     * and character_set_results=NULL as Connector/J sets them, so that the server describes columns
     * in their own character sets and computes expressions in the same collation.
     */

    static final String TABLE = """
            CREATE TABLE t (id INT PRIMARY KEY,
              ti TINYINT, tu TINYINT UNSIGNED, t1 TINYINT(1), bo BOOLEAN, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
              i INT NOT NULL DEFAULT 0, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, iz INT(5) ZEROFILL,
              de DECIMAL(12,4), du DECIMAL(10,0) UNSIGNED, d65 DECIMAL(65,30),
              fl FLOAT, f74 FLOAT(7,4), fu FLOAT UNSIGNED, db DOUBLE, d62 DOUBLE(10,2),
              b1 BIT(1), b8 BIT(8), b64 BIT(64),
              dt DATE, tm TIME, tm3 TIME(3), dtm DATETIME, dtm6 DATETIME(6), ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, yr YEAR,
              ch CHAR(4), vc VARCHAR(32), vl VARCHAR(16) CHARACTER SET latin1, cbin CHAR(4) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
              bn BINARY(4), vb VARBINARY(8),
              tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT, tl TEXT CHARACTER SET latin1, tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
              en ENUM('x','y','z'), st SET('a','b','c'), js JSON, uu UUID, i6 INET6, i4 INET4, g GEOMETRY, pt POINT
            ) CHARACTER SET utf8mb4""";

    static final String[] ROWS = {
            "(1, 127, 255, 5, 1, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615, 42,"
                    + " 99999999.9999, 9999999999, 12345678901234567890123456789012345.123456789012345678901234567891,"
                    + " 3.4e38, 999.9999, 1.5, 1.7976931348623157e308, 12345678.99, b'1', b'11111111', b'1111111111111111111111111111111111111111111111111111111111111111',"
                    + " '9999-12-31', '838:59:59', '838:59:59.999', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07', '2038-01-19 03:14:07.999', 2155,"
                    + " 'abcd', 'O''Brien \\\\ é 😀', 'Müller ß', 'AbC', x'00ff1000', x'ffffffffffffffff',"
                    + " 'tiny 😀', 'text ü', 'medium', 'long 😀 text', 'latin1 é', x'00', x'00ff10', x'0102', x'fffe',"
                    + " 'z', 'a,b,c', '{\"k\": [1, 2.5, \"é\"], \"n\": null}', '123e4567-e89b-12d3-a456-426655440000', '2001:db8::ff00:42:8329', '192.168.0.1',"
                    + " ST_GeomFromText('LINESTRING(0 0, 1 1)'), ST_GeomFromText('POINT(1.5 -2)'))",
            "(2, -128, 0, -1, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, 0,"
                    + " -99999999.9999, 0, -0.000000000000000000000000000001,"
                    + " -3.4e38, -999.9999, 0, -2.2250738585072014e-308, -0.01, b'0', b'0', b'0',"
                    + " '1000-01-01', '-838:59:59', '-00:00:00.001', '1000-01-01 00:00:00', '1000-01-01 00:00:00.000001', '1970-01-01 00:00:01', '1970-01-01 00:00:01.001', 1901,"
                    + " '', '', '', '', x'', x'', '', '', '', '', '', x'', x'', x'', x'',"
                    + " 'x', '', '[]', '00000000-0000-0000-0000-000000000000', '::', '0.0.0.0', ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('POINT(0 0)'))",
            "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
                    + " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
                    + " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
            // zero dates and a zero year, written under a permissive sql_mode
            "(4, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 9223372036854775808, 7, 0.5, 1, 1.5, 1.17549435e-38, 0.0001, 3.4e38, 4.9e-324, 0.5, b'1', b'10100101', b'1000000000000000000000000000000000000000000000000000000000000001',"
                    + " '0000-00-00', '00:00:00', '12:34:56.5', '0000-00-00 00:00:00', '2024-02-29 12:00:00.5', '0000-00-00 00:00:00', '2024-02-29 12:00:00.123', 0,"
                    + " 'x ', ' a ', 'é', 'b', x'61', x'00', 'a', 'b', 'c', 'd', 'e', x'61', x'62', x'63', x'64',"
                    + " 'y', 'b', 'null', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '::ffff:1.2.3.4', '255.255.255.255', NULL, NULL)",
            "(5, 1, 2, 1, 0, 100, 200, 300, 400, 500, 600, 700, 800, 9, 1.2345, 42, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, b'0', b'1', b'1',"
                    + " '2024-02-29', '-12:00:00', '100:00:00.250', '2024-02-29 23:59:59', '2024-02-29 23:59:59.999999', '2024-02-29 23:59:59', '2024-02-29 23:59:59.999', 2024,"
                    + " 'äöü', '日本語テキスト', 'Ærø', 'ZZ', x'e282ac00', x'c3a9', '中文', repeat('x', 300), repeat('é', 100), repeat('y', 1000), 'Å', x'ff', x'fe', x'fd', x'fc',"
                    + " 'z', 'a,c', '{\"a\": {\"b\": [true, false, 1e300]}}', '123e4567-e89b-12d3-a456-426655440000', 'fe80::1', '10.0.0.1', NULL, NULL)"};

    /** Columns of t, for expressions. */
    static final String[] COLUMNS = {"ti", "tu", "t1", "bo", "si", "su", "mi", "mu", "i", "iu", "bi", "bu", "iz", "de", "du", "d65", "fl", "f74", "fu", "db", "d62",
            "b1", "b8", "b64", "dt", "tm", "tm3", "dtm", "dtm6", "ts", "ts3", "yr", "ch", "vc", "vl", "cbin", "bn", "vb", "tt", "tx", "mt", "lt", "tl", "tb", "bl", "mb", "lb",
            "en", "st", "js", "uu", "i6", "i4"};

    static final String[] LITERALS = {"0", "1", "-1", "1.5", "-0.25", "1e10", "2.5e-3", "18446744073709551615", "-9223372036854775808", "9223372036854775807",
            "'abc'", "'é😀'", "''", "NULL", "TRUE", "DATE'2024-01-31'", "TIMESTAMP'2024-01-31 10:00:00.5'", "TIME'-10:00:00.25'", "X'41'", "b'101'",
            "0.000001", "123456789012345678901234567890", "'2024-01-31'", "'12:30'", "_latin1'é'", "_binary'x'", "CAST('é' AS BINARY)", "PI()"};

    /** Fixed queries: {p} is the parameter (0), bound as one in prepared statements and inlined in plain ones. */
    static final String[] QUERIES = {
            "SELECT * FROM t WHERE id > {p} ORDER BY id",
            "SELECT id, g, pt, ST_AsText(g), ST_X(pt) FROM t WHERE id > {p} ORDER BY id",
            "SELECT t.ti AS alias_ti, t.vc AS `Vc label`, t2.vc FROM t JOIN t t2 ON t2.id = t.id WHERE t.id > {p} ORDER BY t.id",
            "SELECT 1, -1, 1.5, 1e10, 'abc', _latin1'é', X'41', b'101', NULL, TRUE, 18446744073709551615, 9223372036854775807, 123456789012345678901234567890, 0.000001 FROM DUAL WHERE {p} = 0",
            "SELECT DATE'2024-01-31', TIME'-10:00:00.25', TIMESTAMP'2024-01-31 10:00:00.5', CURRENT_DATE - CURRENT_DATE FROM DUAL WHERE {p} = 0",
            "SELECT CAST(1 AS SIGNED), CAST(-1 AS UNSIGNED), CAST('1.5' AS DECIMAL(10,3)), CAST(1 AS DOUBLE), CAST(1.25 AS FLOAT), CAST(12 AS CHAR), CAST('abcd' AS CHAR(2)),"
                    + " CAST('ab' AS BINARY), CAST('2024-01-31 10:11:12.345' AS DATETIME(3)), CAST('2024-01-31' AS DATE), CAST('-838:59:59' AS TIME), CAST('10:00:00.5' AS TIME(1)) FROM DUAL WHERE {p} = 0",
            "SELECT CAST(bu AS SIGNED), CAST(bi AS UNSIGNED), CAST(de AS CHAR), CAST(dtm6 AS DATE), CAST(dt AS DATETIME), CAST(tm3 AS TIME(6)), CAST(fl AS DOUBLE), CAST(vc AS BINARY),"
                    + " CAST(js AS CHAR), CAST(uu AS CHAR), CAST(i6 AS CHAR), CAST(yr AS SIGNED), CAST(b8 AS UNSIGNED), CONVERT(vl USING utf8mb4), CONVERT(vc USING latin1) FROM t WHERE id > {p} ORDER BY id",
            "SELECT COUNT(*), COUNT(vc), SUM(i), SUM(bu), SUM(de), SUM(fl), SUM(db), AVG(i), AVG(de), AVG(db), MIN(ti), MAX(bu), MIN(de), MAX(d65), MIN(fl), MAX(db),"
                    + " MIN(dt), MAX(dtm6), MIN(tm3), MAX(ts3), MAX(yr), MIN(vc), MAX(ch), MAX(bl), MIN(vb), MAX(en), MIN(st), MAX(js), MIN(uu), MAX(i6), BIT_OR(b8), BIT_AND(bi), STD(i), VARIANCE(db)"
                    + " FROM t WHERE id > {p}",
            "SELECT GROUP_CONCAT(vc ORDER BY id), GROUP_CONCAT(i), GROUP_CONCAT(bl), GROUP_CONCAT(DISTINCT en), JSON_ARRAYAGG(i), JSON_OBJECTAGG(id, vc) FROM t WHERE id > {p}",
            "SELECT t1, COUNT(*), SUM(de), MAX(vc) FROM t WHERE id > {p} GROUP BY t1 ORDER BY t1",
            "SELECT id, ROW_NUMBER() OVER (ORDER BY id), RANK() OVER (ORDER BY ti), DENSE_RANK() OVER (ORDER BY vc), SUM(i) OVER (ORDER BY id), AVG(de) OVER (),"
                    + " LAG(vc) OVER (ORDER BY id), LEAD(dtm6, 1) OVER (ORDER BY id), FIRST_VALUE(bl) OVER (ORDER BY id), NTILE(2) OVER (ORDER BY id), CUME_DIST() OVER (ORDER BY id),"
                    + " PERCENT_RANK() OVER (ORDER BY id), COUNT(*) OVER (PARTITION BY t1) FROM t WHERE id > {p} ORDER BY id",
            "SELECT IF(id > 2, i, vc), IF(id > 2, de, db), IF(id > 2, dt, dtm6), IF(id > 2, bl, vc), CASE WHEN id = 1 THEN ti WHEN id = 2 THEN bu ELSE de END,"
                    + " CASE id WHEN 1 THEN dt ELSE tm END, COALESCE(vc, i), IFNULL(bu, -1), NULLIF(i, 0), GREATEST(ti, si, i), LEAST(dt, dtm), IF(id > 2, NULL, 1), IF(id > 2, yr, 1) FROM t WHERE id > {p} ORDER BY id",
            "SELECT i FROM t WHERE id > {p} UNION ALL SELECT vc FROM t UNION ALL SELECT 1.5",
            "SELECT ti, dt FROM t WHERE id > {p} UNION SELECT bu, dtm6 FROM t UNION SELECT NULL, NULL",
            "SELECT bl FROM t WHERE id > {p} UNION SELECT vc FROM t",
            "SELECT DATE_ADD(dt, INTERVAL 1 DAY), DATE_SUB(dtm6, INTERVAL 1 SECOND), dt + INTERVAL 1 MONTH, TIMEDIFF(dtm6, dtm), DATEDIFF(dtm, dt), ADDTIME(tm3, '01:00:00.5'),"
                    + " TIMESTAMPDIFF(SECOND, dtm, dtm6), DATE_FORMAT(dtm6, '%Y %f'), UNIX_TIMESTAMP(ts3), FROM_UNIXTIME(1700000000.5), MAKEDATE(2024, 60), MAKETIME(100, 2, 3.5),"
                    + " SEC_TO_TIME(100000), TIME_TO_SEC(tm3), EXTRACT(MICROSECOND FROM dtm6), YEAR(dt), LAST_DAY(dt), STR_TO_DATE('31,1,2024', '%d,%m,%Y') FROM t WHERE id > {p} ORDER BY id",
            "SELECT JSON_EXTRACT(js, '$.k'), JSON_UNQUOTE(JSON_EXTRACT(js, '$.k[2]')), JSON_OBJECT('a', i, 'b', vc), JSON_ARRAY(i, de, dt), JSON_TYPE(js),"
                    + " JSON_LENGTH(js), JSON_VALID(vc), JSON_KEYS(js), JSON_SET(js, '$.z', 1), JSON_QUERY(js, '$.a'), JSON_VALUE(js, '$.k[1]') FROM t WHERE id > {p} ORDER BY id",
            "SELECT CONCAT(vc, i), CONCAT(vl, tl), CONCAT(vc, bl), CONCAT(bn, vb), LENGTH(vc), CHAR_LENGTH(vc), UPPER(vl), HEX(bl), UNHEX('4142'), REPEAT(vc, 2), LPAD(ch, 8, '*'),"
                    + " SUBSTRING(tx, 2), REPLACE(vc, 'O', 'o'), TRIM(ch), LEFT(lt, 3), INSERT(vc, 1, 1, 'X'), FORMAT(de, 2), CHARSET(vc), COLLATION(vl), UUID() IS NOT NULL,"
                    + " MD5(vc), SHA2(vc, 256), CRC32(vc), ASCII(vc), ORD(vc), BIN(i), OCT(i), CONV(i, 10, 16), SPACE(2), ELT(1, vc, ch), FIELD(vc, 'a'), SOUNDEX(vc) FROM t WHERE id > {p} ORDER BY id",
            "SELECT i + 1, bu + 1, bu - 1, i * de, i / 3, i DIV 3, i % 3, -bi, ABS(bi), ROUND(de, 1), ROUND(db, 2), TRUNCATE(db, 3), FLOOR(de), CEIL(fl), SQRT(i), POW(2, i % 10),"
                    + " EXP(1), LN(2), LOG10(100), SIGN(bi), MOD(bu, 7), fl * 2, f74 + 1, d62 * 1, de + db, i + 0.5, b8 + 0, b1 + 0, yr + 0, dt + 0, dtm6 + 0, tm3 + 0, ti & 3, bu | 1,"
                    + " bu >> 1, ~i, i = de, vc LIKE 'a%', i BETWEEN 0 AND 10, vc IN ('a', 'b'), i IS NULL, ISNULL(vc), NOT i, i AND 1, i XOR 1 FROM t WHERE id > {p} ORDER BY id",
            "SELECT en + 0, st + 0, CAST(en AS CHAR), FIND_IN_SET('b', st), uu = '123e4567-e89b-12d3-a456-426655440000', i6 > '::', i4, INET6_NTOA(i6), HEX(uu) FROM t WHERE id > {p} ORDER BY id",
            "SELECT * FROM (SELECT id, vc, de, bl FROM t WHERE id > {p}) d ORDER BY id",
            "SELECT (SELECT MAX(i) FROM t), (SELECT vc FROM t WHERE id = 1), EXISTS(SELECT 1 FROM t) FROM DUAL WHERE {p} = 0"};

    Connection connectorJ;
    Connection mariaDb;
    Shards shards;
    String database;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        database = "codec_parity_" + System.nanoTime();
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("CREATE DATABASE " + database);
            st.execute("USE " + database);
            st.execute(TABLE);
            st.execute("SET SESSION sql_mode = ''"); // zero dates
            for (String row : ROWS) st.executeUpdate("INSERT INTO t VALUES " + row);
        }
        String url = shards.url(0, database);
        connectorJ = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + BackendSetup.connectorOptions(), shards.user(), shards.password());
        String plain = url.replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
        int q = plain.indexOf('?');
        mariaDb = DriverManager.getConnection((q < 0 ? plain : plain.substring(0, q)) + "?" + BackendDriver.options(), shards.user(), shards.password());
        try (var st = mariaDb.createStatement()) {
            st.execute("SET SESSION sql_mode = @@global.sql_mode"); // as the router's pools do (Backends)
        }
        assertTrue(connectorJ.isWrapperFor(com.mysql.cj.jdbc.JdbcConnection.class));
        assertTrue(mariaDb.isWrapperFor(org.mariadb.jdbc.Connection.class));
    }

    @AfterAll
    void stop() throws Exception {
        if (connectorJ != null) connectorJ.close();
        if (mariaDb != null) mariaDb.close();
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + database);
        }
    }

    @Test
    void fixedQueriesDecodeAlike() throws SQLException {
        var problems = new Problems();
        for (String q : QUERIES) compare(q, problems);
        problems.assertNone();
    }

    /**
     * The one difference known: MariaDB Connector/J reuses the metadata of the PREPARE response, in
     * which a result column that is a bare parameter is NOT NULL; Connector/J reads each execution's
     * metadata, where it is nullable. Pinned here so that a change shows.
     */
    @Test
    void aParameterAsAColumnIsTheKnownDifference() throws SQLException {
        var cj = decode(connectorJ, "SELECT ? AS param, id FROM t WHERE id > ? ORDER BY id", true);
        var md = decode(mariaDb, "SELECT ? AS param, id FROM t WHERE id > ? ORDER BY id", true);
        assertNull(cj.error(), cj.error());
        assertNull(md.error(), md.error());
        assertEquals(cj.rows(), md.rows());
        assertEquals(cj.columns().get(1), md.columns().get(1));
        assertEquals(cj.columns().get(0).toBuilder().setNullable(false).build(), md.columns().get(0));
        assertTrue(cj.columns().get(0).getNullable());
    }

    /**
     * The router keeps described columns by MariaDB's array of column definitions, which MariaDB
     * reuses for every execution of a cached prepared statement: after the table changes under the
     * statement (the server re-prepares it and sends new definitions), the columns must be the new ones.
     */
    @Test
    void aCachedStatementDescribesTheTableAsItIsNow() throws SQLException {
        try (var st = mariaDb.createStatement()) {
            st.execute("CREATE TABLE reshaped (id INT PRIMARY KEY, v SMALLINT)");
            st.execute("INSERT INTO reshaped VALUES (0, 2)"); // decode binds 0
        }
        String sql = "SELECT * FROM reshaped WHERE id = ?";
        try {
            for (String change : List.of("", "ALTER TABLE reshaped ADD COLUMN w VARCHAR(9) DEFAULT 'x'", "ALTER TABLE reshaped MODIFY v BIGINT",
                    "ALTER TABLE reshaped MODIFY w TEXT CHARACTER SET latin1")) {
                if (!change.isEmpty()) try (var st = mariaDb.createStatement()) {
                    st.execute(change);
                }
                for (int run = 0; run < 2; run++) { // the second run reuses the definitions MariaDB cached
                    // Connector/J's own statement cache fails here (ArrayIndexOutOfBoundsException after ADD COLUMN): it reads fresh text
                    var cj = decode(connectorJ, sql.replace("?", "0"), false);
                    var md = decode(mariaDb, sql, true);
                    assertNull(cj.error(), cj.error());
                    assertNull(md.error(), md.error());
                    assertEquals(cj.columns(), md.columns(), change);
                    assertEquals(cj.rows(), md.rows(), change);
                }
            }
        } finally {
            try (var st = mariaDb.createStatement()) {
                st.execute("DROP TABLE reshaped");
            }
        }
    }

    @Test
    void randomExpressionsDecodeAlike() throws SQLException {
        var problems = new Problems();
        var random = new Random(20250611);
        for (int n = 0; n < 400; n++) {
            int count = 1 + random.nextInt(4);
            var exprs = new ArrayList<String>();
            for (int e = 0; e < count; e++) exprs.add(expression(random, 2));
            String select = String.join(", ", exprs);
            String sql = switch (random.nextInt(5)) {
                case 0 -> "SELECT " + aggregates(random, exprs) + " FROM t WHERE id > {p}";
                case 1 -> "SELECT " + select + " FROM t WHERE id > {p} UNION ALL SELECT " + select + " FROM t WHERE id = 3";
                default -> "SELECT " + select + " FROM t WHERE id > {p} ORDER BY id";
            };
            compare(sql, problems);
        }
        assertTrue(problems.compared > 500, "too few results compared: " + problems.compared);
        problems.assertNone();
    }

    private static String aggregates(Random random, List<String> exprs) {
        var out = new ArrayList<String>();
        String[] fns = {"COUNT(%s)", "SUM(%s)", "AVG(%s)", "MIN(%s)", "MAX(%s)", "GROUP_CONCAT(%s)", "COUNT(DISTINCT %s)", "BIT_XOR(%s)"};
        for (String e : exprs) out.add(fns[random.nextInt(fns.length)].formatted(e));
        return String.join(", ", out);
    }

    static String expression(Random r, int depth) {
        if (depth == 0 || r.nextInt(3) == 0) {
            return r.nextInt(3) == 0 ? LITERALS[r.nextInt(LITERALS.length)] : COLUMNS[r.nextInt(COLUMNS.length)];
        }
        String a = expression(r, depth - 1), b = expression(r, depth - 1), c = expression(r, depth - 1);
        String[] casts = {"SIGNED", "UNSIGNED", "DECIMAL(10,3)", "DECIMAL(30,0)", "DOUBLE", "FLOAT", "CHAR", "CHAR(3)", "BINARY", "BINARY(3)", "DATE", "DATETIME", "DATETIME(6)", "TIME", "TIME(2)"};
        return switch (r.nextInt(26)) {
            case 0 -> "(" + a + " + " + b + ")";
            case 1 -> "(" + a + " - " + b + ")";
            case 2 -> "(" + a + " * " + b + ")";
            case 3 -> "(" + a + " / " + b + ")";
            case 4 -> "(" + a + " DIV " + b + ")";
            case 5 -> "(" + a + " % " + b + ")";
            case 6 -> "CONCAT(" + a + ", " + b + ")";
            case 7 -> "IF(" + a + ", " + b + ", " + c + ")";
            case 8 -> "CASE WHEN " + a + " THEN " + b + " ELSE " + c + " END";
            case 9 -> "COALESCE(" + a + ", " + b + ")";
            case 10 -> "IFNULL(" + a + ", " + b + ")";
            case 11 -> "NULLIF(" + a + ", " + b + ")";
            case 12 -> "GREATEST(" + a + ", " + b + ")";
            case 13 -> "LEAST(" + a + ", " + b + ")";
            case 14, 15 -> "CAST(" + a + " AS " + casts[r.nextInt(casts.length)] + ")";
            case 16 -> "ABS(" + a + ")";
            case 17 -> "ROUND(" + a + ", " + r.nextInt(4) + ")";
            case 18 -> "(" + a + " = " + b + ")";
            case 19 -> "(" + a + " < " + b + ")";
            case 20 -> "LENGTH(" + a + ")";
            case 21 -> "HEX(" + a + ")";
            case 22 -> "DATE_ADD(" + a + ", INTERVAL 1 DAY)";
            case 23 -> "(" + a + " IS NULL)";
            case 24 -> "UPPER(" + a + ")";
            default -> "FLOOR(" + a + ")";
        };
    }

    /** Runs {@code sql} both ways on both drivers and records where the protos differ. */
    private void compare(String sql, Problems problems) {
        String plain = sql.replace("{p}", "0");
        problems.compare(sql + " [statement]", decode(connectorJ, plain, false), decode(mariaDb, plain, false));
        problems.compare(sql + " [prepared]", decode(connectorJ, sql, true), decode(mariaDb, sql, true));
    }

    /** The result as the router's protos: columns, then rows; or the error's text. */
    record Decoded(List<Column> columns, List<Row> rows, String error) {}

    private static Decoded decode(Connection c, String sql, boolean prepared) {
        try {
            if (prepared) {
                try (var ps = c.prepareStatement(sql.replace("{p}", "?"))) {
                    for (int p = 1; p <= ps.getParameterMetaData().getParameterCount(); p++) ps.setInt(p, p == 1 && sql.startsWith("SELECT ? AS") ? 7 : 0);
                    try (var rs = ps.executeQuery()) {
                        return read(rs);
                    }
                }
            }
            try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
                return read(rs);
            }
        } catch (SQLException | RuntimeException e) {
            return new Decoded(List.of(), List.of(), e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static Decoded read(ResultSet rs) throws SQLException {
        var columns = ValueCodec.columns(rs.getMetaData()); // as the router reads them: cached by MariaDB's definitions
        var rows = new ArrayList<Row>();
        while (rs.next()) rows.add(ValueCodec.row(rs, columns));
        return new Decoded(withoutWireDefinition(columns), rows, null);
    }

    /**
     * The column as the Lutra protocol's clients see it. Column.mysql, the definition the MySQL listener
     * forwards, is the server's own bytes only through MariaDB Connector/J (the router's pools); Connector/J
     * hands out a Field it has already adjusted (lengths per character, no decimals for 31), and its
     * connections never answer a client's query. MysqlProtocolIT compares that definition with MariaDB's.
     */
    private static List<Column> withoutWireDefinition(List<Column> columns) {
        return columns.stream().map(c -> c.toBuilder().clearMysql().build()).toList();
    }

    /** Differences, grouped by what differs so that one mapping fault reads as one line with an example. */
    static final class Problems {
        final Map<String, List<String>> byKind = new LinkedHashMap<>();
        int compared;

        void compare(String what, Decoded cj, Decoded md) {
            if (cj.error() != null || md.error() != null) {
                if (cj.error() == null || md.error() == null) {
                    add("one driver failed: " + (cj.error() == null ? "mariadb " + md.error() : "connector/j " + cj.error()), what);
                }
                return; // both failed (e.g. an out-of-range expression): nothing to decode
            }
            compared++;
            if (cj.columns().size() != md.columns().size()) {
                add("column counts differ", what);
                return;
            }
            for (int i = 0; i < cj.columns().size(); i++) {
                Column a = cj.columns().get(i), b = md.columns().get(i);
                if (!a.equals(b)) {
                    add("column " + a.getTypeName() + "/" + a.getNativeType() + " differs: connector/j {" + oneLine(a) + "} mariadb {" + oneLine(b) + "}", what + " column " + (i + 1));
                }
            }
            if (cj.rows().size() != md.rows().size()) {
                add("row counts differ", what);
                return;
            }
            for (int r = 0; r < cj.rows().size(); r++) {
                for (int i = 0; i < cj.columns().size(); i++) {
                    var a = cj.rows().get(r).getValues(i);
                    var b = md.rows().get(r).getValues(i);
                    if (!a.equals(b)) {
                        Column col = cj.columns().get(i);
                        add("value of " + col.getTypeName() + "/" + col.getNativeType() + " precision " + col.getPrecision() + " scale " + col.getScale(),
                                what + " row " + (r + 1) + " column " + (i + 1) + ": connector/j {" + oneLine(a) + "} mariadb {" + oneLine(b) + "}");
                    }
                }
            }
        }

        private void add(String kind, String where) {
            var examples = byKind.computeIfAbsent(kind, k -> new ArrayList<>());
            if (examples.size() < 3) examples.add(where);
        }

        private static String oneLine(Object proto) {
            return proto.toString().replace('\n', ' ').trim();
        }

        void assertNone() {
            if (byKind.isEmpty()) return;
            var text = new StringBuilder(byKind.size() + " kinds of differences:\n");
            byKind.forEach((kind, examples) -> {
                text.append(kind).append('\n');
                for (String where : examples) text.append("    e.g. ").append(where).append('\n');
            });
            System.out.println(text);
            fail(text.toString());
        }
    }
}
