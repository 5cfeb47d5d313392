package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every column type reads back through Lutra as Connector/J straight to MariaDB returns it:
 * getObject (value and class), getString, the numeric getters, getBytes, and the result's
 * metadata, for edge values and NULLs; over several partitions too (merged by the router).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValuesIT {
    static final String SCHEMA = """
            CREATE TABLE v (id INT PRIMARY KEY, flag TINYINT(1), bit1 BIT(1), bit8 BIT(8), ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT,
              bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(12,4), fl FLOAT, db DOUBLE, dt DATE, tm TIME(3), dtm DATETIME(6), ts TIMESTAMP(3) NULL,
              yr YEAR, ch CHAR(4) CHARACTER SET utf8mb4, vc VARCHAR(32) CHARACTER SET utf8mb4, tx TEXT CHARACTER SET utf8mb4, bl BLOB, vb VARBINARY(8), en ENUM('x','y','z'), st SET('a','b','c'), js JSON)
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE e2 (id INT PRIMARY KEY, e ENUM('zeta', 'alpha', 'mid'), s SET('z', 'a')) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final String[] ROWS = {
            "(1, 5, b'1', b'10100101', -128, 65535, -8388608, -9223372036854775808, 18446744073709551615, 12345678.1234, 1.5, -2.25,"
                    + " '2024-02-29', '-838:59:59.000', '2024-02-29 23:59:59.999999', '2038-01-19 03:14:07.999', 2155, 'ab', 'O''Brien \\\\ é', 'long text 😀',"
                    + " x'00ff10', x'0102', 'y', 'a,c', '{\"k\": [1, 2]}')",
            "(2, 0, b'0', b'0', 127, 0, 8388607, 9223372036854775807, 0, -0.5000, 0, 1e308, '1000-01-01', '12:00:00.5', '1970-01-01 00:00:01.000001',"
                    + " '1999-12-31 23:59:59.000', 1901, '', '', '', x'', x'', 'x', '', 'null')",
            "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
            "(4, 1, b'1', b'1', 0, 1, 0, 1, 9223372036854775808, 1.5000, -3.4e38, 4.9e-324, '9999-12-31', '838:59:59.999', '9999-12-31 23:59:59.999999',"
                    + " '2001-01-01 00:00:00.000', 0, 'abcd', 'x ', ' ', x'61', x'ffffffffffffffff', 'z', 'a,b,c', '[]')"};

    Differential differential;
    TestRouter router;
    Connection lutra;
    Connection reference;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "valuesit", SCHEMA);
        router = differential.router;
        lutra = differential.lutra;
        reference = differential.reference;
        differential.both("INSERT INTO e2 VALUES (1, 'alpha', 'a'), (2, 'zeta', 'z'), (3, 'mid', 'z,a'), (4, NULL, ''), (5, 'zeta', 'a'), (6, 'alpha', NULL)");
        for (String row : ROWS) {
            String sql = "INSERT INTO v VALUES " + row;
            assertEquals(reference.createStatement().executeUpdate(sql), lutra.createStatement().executeUpdate(sql), sql);
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void everyTypeReadsBackAsConnectorJReadsIt() throws SQLException {
        for (int id = 1; id <= ROWS.length; id++) {
            String sql = "SELECT * FROM v WHERE id = " + id; // one partition: the shard's own answer, through the router
            compare(sql);
        }
        compare("SELECT * FROM v ORDER BY id"); // several partitions, merged
    }

    @Test
    void aggregatesOfEachTypeMatch() throws SQLException {
        compare("SELECT MIN(flag), MAX(ti), SUM(bi), SUM(bu), MIN(bu), MAX(de), AVG(de), SUM(de), MIN(dt), MAX(dtm), MIN(tm), MAX(tm),"
                + " MAX(yr), MIN(vc), MAX(ch), SUM(fl), AVG(db) FROM v");
        // A DISTINCT aggregate makes the shards GROUP BY its argument, and MariaDB then reports MIN/MAX of a
        // TINYINT(1) as BIT(1) where the single query reports TINYINT: that pairing is left out here.
        compare("SELECT COUNT(DISTINCT vc), MAX(de), MIN(dt) FROM v");
    }

    /** WHERE literals travel as parameters: each must select what the literal selects on one server. */
    @Test
    void literalsInWhereSelectAsOnOneServer() throws SQLException {
        for (String where : List.of("yr = 0", "yr = 2155", "yr = 1901.0", "tm = 120000.5", "tm = '12:00:00.5'", "dt = 20240229", "dt = '2024-2-29'",
                "en = 1", "en = 'z'", "st = 5", "bit8 = 165", "flag = 5", "bu = 18446744073709551615", "de = 1.5", "db = 1e308", "fl = 1.5",
                "vc = 'O''Brien \\\\ é'", "ch = 'ab '", "ti = -128", "dtm = '2024-02-29 23:59:59.999999'", "ts > '2000-01-01'")) {
            compare("SELECT id FROM v WHERE " + where + " ORDER BY id");
        }
    }

    @Test
    void enumsAndSetsOrderByTheirIndexAcrossPartitions() throws SQLException {
        compare("SELECT id, e FROM e2 ORDER BY e, id");
        compare("SELECT id, s FROM e2 ORDER BY s DESC, id");
        compare("SELECT e, COUNT(*) FROM e2 GROUP BY e ORDER BY e DESC");
        compare("SELECT id, e FROM e2 ORDER BY CONCAT(e, ''), id"); // an ENUM's text orders as text
    }

    private void compare(String sql) throws SQLException {
        try (var l = lutra.createStatement().executeQuery(sql); var r = reference.createStatement().executeQuery(sql)) {
            var lm = l.getMetaData();
            var rm = r.getMetaData();
            assertEquals(rm.getColumnCount(), lm.getColumnCount(), sql);
            int row = 0;
            while (r.next()) {
                assertTrue(l.next(), sql + ": fewer rows");
                row++;
                for (int c = 1; c <= rm.getColumnCount(); c++) {
                    String where = sql + " row " + row + " column " + rm.getColumnLabel(c) + " (" + rm.getColumnTypeName(c) + ")";
                    assertEquals(describe(r, c), describe(l, c), where);
                }
            }
            assertFalse(l.next(), sql + ": more rows");
            for (int c = 1; c <= rm.getColumnCount(); c++) {
                assertEquals(rm.getColumnLabel(c), lm.getColumnLabel(c));
                assertEquals(rm.getColumnType(c), lm.getColumnType(c), sql + " type of " + rm.getColumnLabel(c));
            }
        }
    }

    /** What the getters give, as text: the value and class of getObject, getString, and the numeric and byte getters. */
    private static List<String> describe(ResultSet rs, int c) throws SQLException {
        var out = new ArrayList<String>();
        out.add("getObject=" + attempt(() -> {
            Object o = rs.getObject(c);
            return o == null ? "null" : (o instanceof byte[] b ? Arrays.toString(b) : o.toString()) + " : " + o.getClass().getSimpleName();
        }));
        out.add("getString=" + attempt(() -> rs.getString(c)));
        if (numeric(rs, c)) {
            out.add("getLong=" + attempt(() -> String.valueOf(rs.getLong(c))));
            out.add("getBigDecimal=" + attempt(() -> String.valueOf(rs.getBigDecimal(c))));
        } else {
            out.add("getBytes=" + attempt(() -> Arrays.toString(rs.getBytes(c))));
        }
        return out;
    }

    /**
     * Numbers are compared through the number getters, everything else through getBytes; every
     * getter on every type, text read as a number included, is GetterDifferentialIT's.
     */
    private static boolean numeric(ResultSet rs, int c) throws SQLException {
        return switch (rs.getMetaData().getColumnType(c)) {
            case java.sql.Types.TINYINT, java.sql.Types.SMALLINT, java.sql.Types.INTEGER, java.sql.Types.BIGINT, java.sql.Types.DECIMAL,
                 java.sql.Types.NUMERIC, java.sql.Types.FLOAT, java.sql.Types.REAL, java.sql.Types.DOUBLE, java.sql.Types.BIT -> true;
            default -> false;
        };
    }

    private interface Getter {
        String get() throws Exception;
    }

    private static String attempt(Getter g) {
        try {
            return g.get();
        } catch (Exception e) {
            return "error";
        }
    }
}
