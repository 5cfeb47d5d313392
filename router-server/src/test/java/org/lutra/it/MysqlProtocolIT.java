package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connector/J and MariaDB Connector/J straight at the router's MySQL listener, text protocol and
 * server-side prepared statements, against the same driver straight at one plain MariaDB holding
 * the same rows: every statement of a script gives the same values (getObject, getString), the same
 * column metadata, the same update counts and generated keys, and the same errors (number and
 * SQLState; where the router refuses, the Lutra driver's refusal, word for word).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlProtocolIT {
    Differential differential;
    String referenceUrl;

    /** Statements: text, then the parameters a prepared run binds (the text run has them inline). */
    static final String[][] SCRIPT = {
            // js (JSON) is left out: MariaDB Connector/J names it JSON from MariaDB's extended column metadata, which the
            // listener does not offer yet (it reads LONGTEXT, the column's type without it); Connector/J's reads below
            {"SELECT id, flag, bit1, bit8, ti, si, mi, bi, bu, de, fl, db, dt, tm, dtm, ts, yr, ch, vc, tx, bl, vb, en, st FROM v ORDER BY id"},
            {"SELECT id, de, fl, db, dtm, tm FROM v WHERE id = ?", "1"},
            {"SELECT id, vc, tx FROM v WHERE id IN (?, ?) ORDER BY id", "1", "2"},
            {"SELECT COUNT(*), SUM(de), MAX(dtm), MIN(vc) FROM v"},
            {"SELECT en, COUNT(*) FROM v GROUP BY en ORDER BY en"},
            {"SELECT 1 + 1, 'x' AS label, NULL, 1.5e0, 2.50, CAST('2024-01-02' AS DATE)"},
            {"SELECT * FROM e2 ORDER BY id"},
            {"SELECT * FROM nope"},
            {"SELEC 1"},
            {"INSERT INTO a (name) VALUES ('one'), ('two')"},
            {"INSERT INTO a (name) VALUES (?)", "three"},
            {"UPDATE a SET name = CONCAT(name, '!') WHERE id > ?", "0"},
            {"SELECT id, name FROM a ORDER BY id"},
            {"DELETE FROM a WHERE name = ?", "one!"},
            {"INSERT INTO v (id) VALUES (1)"},
            {"SELECT id, ti, de, tx, dtm FROM v WHERE id = 99"},
    };

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "mysqlit", ValuesIT.SCHEMA
                + "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n"
                + "CREATE TABLE texts (id INT PRIMARY KEY, s VARCHAR(40)) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n"
                + "CREATE TABLE wide (id INT PRIMARY KEY, s TEXT) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n");
        for (String row : ValuesIT.ROWS) differential.both("INSERT INTO v VALUES " + row);
        differential.both("INSERT INTO e2 VALUES (1, 'alpha', 'a'), (2, 'zeta', 'z'), (3, 'mid', 'z,a'), (4, NULL, '')");
        try (var st = differential.reference.createStatement(); var rs = st.executeQuery("SELECT DATABASE()")) {
            rs.next();
            referenceUrl = shards.url(0, rs.getString(1));
        }
    }

    @AfterAll
    void stop() throws Exception {
        differential.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"mysql:useServerPrepStmts=false", "mysql:useServerPrepStmts=true&cachePrepStmts=true",
            "mariadb:useServerPrepStmts=false", "mariadb:useServerPrepStmts=true"})
    void sameAnswersAsOneMariaDb(String driver) throws Exception {
        String scheme = driver.substring(0, driver.indexOf(':'));
        var script = new ArrayList<>(List.of(SCRIPT));
        if (scheme.equals("mysql")) script.add(new String[] {"SELECT id, js FROM v ORDER BY id"});
        String options = driver.substring(driver.indexOf(':') + 1);
        var shards = differential.router.shards;
        String refUrl = referenceUrl.replaceFirst("^jdbc:mysql:", "jdbc:" + scheme + ":");
        refUrl += (refUrl.contains("?") ? "&" : "?") + options;
        var problems = new ArrayList<String>();
        try (Connection lutra = DriverManager.getConnection(differential.router.mysqlUrl(scheme, options), TestRouter.USER, TestRouter.PASSWORD);
             Connection ref = DriverManager.getConnection(refUrl, shards.user(), shards.password())) {
            for (String[] entry : script) {
                String sql = entry[0];
                String inline = inline(entry);
                compare(problems, "text " + inline, run(lutra, inline, null), run(ref, inline, null));
                if (entry.length > 1 || sql.contains("?")) {
                    var params = Arrays.copyOfRange(entry, 1, entry.length);
                    compare(problems, "prepared " + sql, run(lutra, sql, params), run(ref, sql, params));
                }
            }
        }
        assertEquals(List.of(), problems, driver);
    }

    /**
     * Random printable text (every ASCII character from space to '~', quotes and backslashes among them) written by
     * Connector/J's client-side prepared statements, which escape it into the statement's text (a value {@code a\'b} as
     * {@code 'a\\''b'}), in batches rewritten as multi-row INSERTs, as BenchBase's loaders write: every value reads back
     * as written, through the listener and from one MariaDB given the same statements.
     */
    @Test
    void randomTextSurvivesClientSideEscaping() throws Exception {
        long seed = System.nanoTime() % 1_000_000_000L;
        var random = new java.util.Random(seed);
        var values = new ArrayList<String>();
        for (int i = 0; i < 600; i++) {
            char[] text = new char[random.nextInt(0, 40)];
            for (int k = 0; k < text.length; k++) text[k] = (char) (32 + random.nextInt(95));
            values.add(new String(text));
        }
        String options = "useServerPrepStmts=false&rewriteBatchedStatements=true";
        String refUrl = referenceUrl + (referenceUrl.contains("?") ? "&" : "?") + options;
        try (Connection lutra = DriverManager.getConnection(differential.router.mysqlUrl("mysql", options), TestRouter.USER, TestRouter.PASSWORD);
             Connection ref = DriverManager.getConnection(refUrl, differential.router.shards.user(), differential.router.shards.password())) {
            for (Connection c : List.of(lutra, ref)) {
                try (var ps = c.prepareStatement("INSERT INTO texts VALUES (?, ?)")) {
                    for (int i = 0; i < values.size(); i++) {
                        ps.setInt(1, i);
                        ps.setString(2, values.get(i));
                        if (i % 2 == 0) ps.executeUpdate(); else ps.addBatch(); // one at a time, and multi-row INSERTs
                    }
                    ps.executeBatch();
                }
                try (var st = c.createStatement(); var rs = st.executeQuery("SELECT id, s FROM texts ORDER BY id")) {
                    var read = new ArrayList<String>();
                    while (rs.next()) read.add(rs.getString(2));
                    assertEquals(values, read, (c == lutra ? "lutra" : "reference") + ", seed " + seed);
                }
            }
        }
    }

    /** A rewritten batch longer than the router takes in one statement: Connector/J splits it by @@max_allowed_packet, which says so. */
    @Test
    void batchesLargerThanOneStatementAreSplitByTheClient() throws Exception {
        String text = "x".repeat(3000);
        try (Connection lutra = differential.router.connectMysql("useServerPrepStmts=false&rewriteBatchedStatements=true");
             var ps = lutra.prepareStatement("INSERT INTO wide VALUES (?, ?)")) {
            for (int i = 0; i < 2000; i++) { // about 6 MB of statement text, frames of 1 MiB at test routers
                ps.setInt(1, i);
                ps.setString(2, text);
                ps.addBatch();
            }
            ps.executeBatch();
            try (var st = lutra.createStatement(); var rs = st.executeQuery("SELECT COUNT(*), SUM(LENGTH(s)) FROM wide")) {
                assertTrue(rs.next());
                assertEquals(2000, rs.getInt(1));
                assertEquals(6_000_000, rs.getLong(2));
            }
        }
    }

    private void compare(List<String> problems, String what, List<String> lutra, List<String> ref) {
        if (!lutra.equals(ref)) problems.add(what + "\n  lutra:     " + lutra + "\n  reference: " + ref);
    }

    static String inline(String[] entry) {
        String sql = entry[0];
        for (int i = 1; i < entry.length; i++) sql = sql.replaceFirst("\\?", "'" + entry[i] + "'");
        return sql;
    }

    /** What one statement gives, as text lines: metadata, rows (getObject and getString), counts and keys, or the error. */
    static List<String> run(Connection c, String sql, String[] params) {
        var out = new ArrayList<String>();
        try (Statement st = params == null ? c.createStatement() : c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            boolean rows;
            if (params == null) {
                rows = st.execute(sql, Statement.RETURN_GENERATED_KEYS);
            } else {
                var ps = (PreparedStatement) st;
                for (int i = 0; i < params.length; i++) ps.setString(i + 1, params[i]);
                rows = ps.execute();
            }
            if (rows) {
                try (ResultSet rs = st.getResultSet()) {
                    describe(rs, out);
                }
            } else {
                out.add("count " + st.getUpdateCount());
                try (ResultSet keys = st.getGeneratedKeys()) {
                    while (keys.next()) out.add("key " + keys.getLong(1));
                }
            }
        } catch (SQLException e) {
            out.add("error " + e.getErrorCode() + " " + e.getSQLState());
        }
        return out;
    }

    static void describe(ResultSet rs, List<String> out) throws SQLException {
        var md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            out.add("column " + md.getColumnLabel(i) + " " + md.getColumnType(i) + " " + md.getColumnTypeName(i) + " p" + md.getPrecision(i)
                    + " s" + md.getScale(i) + " n" + md.isNullable(i) + " " + (md.isSigned(i) ? "signed" : "unsigned") + " " + md.getColumnClassName(i)
                    + " d" + md.getColumnDisplaySize(i));
        }
        while (rs.next()) {
            var row = new StringBuilder("row");
            for (int i = 1; i <= md.getColumnCount(); i++) {
                Object o;
                try {
                    o = rs.getObject(i);
                } catch (SQLException | RuntimeException e) {
                    o = "getObject error " + e.getClass().getSimpleName();
                }
                String text = o instanceof byte[] b ? Arrays.toString(b) : String.valueOf(o);
                row.append(" | ").append(o == null ? "null" : o.getClass().getSimpleName()).append(' ').append(text).append(" / ").append(rs.getString(i));
            }
            out.add(row.toString());
        }
    }
}
