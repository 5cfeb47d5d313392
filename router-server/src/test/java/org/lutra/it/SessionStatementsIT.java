package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * Session statements (SET sql_mode, time_zone, @x, the other carried variables) in scripts run
 * through Lutra over four partitions and, statement by statement, on one plain MariaDB holding the
 * same rows: every answer, update count, error (SQLState and number) and warning must agree. Then
 * what the shared backend connections must not do: leak one session's variables into another's,
 * or be sent a SET when they already carry the session's values.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionStatementsIT {
    private static final String SCHEMA = """
            CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP NULL, d DATETIME NULL, n TINYINT, s VARCHAR(5)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE pair (id INT PRIMARY KEY, n TINYINT) PARTITION BY hash(id) ON (p1, p2);
            """;
    Differential differential;
    Shards shards;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        differential = new Differential(shards, "sessionstmtit", SCHEMA);
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @BeforeEach
    void rows() throws SQLException {
        for (Connection c : List.of(differential.lutra, differential.reference)) {
            try (Statement st = c.createStatement()) {
                st.execute("SET time_zone = '+00:00'");
                st.execute("SET sql_mode = DEFAULT");
                st.execute("DELETE FROM ev");
                st.execute("DELETE FROM pair");
                st.execute("INSERT INTO ev VALUES (1, '2024-01-01 10:00:00', '2024-01-01 10:00:00', 1, 'a'), (2, '2024-03-31 01:30:00', "
                        + "'2024-03-31 01:30:00', 2, 'b'), (3, '2024-06-01 23:59:59', '2024-06-01 23:59:59', 3, 'c'), (4, NULL, NULL, 4, 'd')");
                st.execute("INSERT INTO pair VALUES (1, 1), (2, 2)");
                st.execute("SET time_zone = DEFAULT");
            }
        }
    }

    @Test
    void timeZone() throws SQLException {
        script("""
                SELECT @@time_zone, @@session.time_zone
                SET time_zone = '+05:00'
                SELECT @@time_zone, @@session.time_zone
                SELECT id, ts, d FROM ev ORDER BY id
                SELECT id, ts FROM ev WHERE id = 3
                SELECT COUNT(*) FROM ev WHERE ts > '2024-03-31 06:00:00'
                SELECT id, UNIX_TIMESTAMP(ts), ts + INTERVAL 1 HOUR FROM ev WHERE id IN (1, 2) ORDER BY id
                SELECT MIN(ts), MAX(ts) FROM ev
                SELECT id, ts, ROW_NUMBER() OVER (ORDER BY ts DESC) AS r FROM ev ORDER BY id
                SELECT d.id, d.ts FROM (SELECT id, ts FROM ev WHERE ts IS NOT NULL) AS d ORDER BY d.ts
                SELECT e.id, e.ts, p.n FROM ev e LEFT JOIN pair p ON p.id = e.id ORDER BY e.id
                INSERT INTO ev (id, ts) VALUES (10, '2024-02-02 02:02:02'), (11, '2024-02-02 03:03:03')
                SET time_zone = '-08:00'
                SELECT id, ts FROM ev WHERE id >= 10 ORDER BY id
                SET time_zone = 'no/such zone'
                SELECT @@time_zone
                SELECT id, ts FROM ev ORDER BY ts DESC LIMIT 2
                SET time_zone = DEFAULT
                SELECT id, ts FROM ev ORDER BY id
                """);
    }

    @Test
    void sqlMode() throws SQLException {
        script("""
                SET sql_mode = ''
                SELECT @@sql_mode
                INSERT INTO ev (id, n) VALUES (5, 300)
                SHOW WARNINGS
                SHOW COUNT(*) WARNINGS
                SHOW WARNINGS
                SELECT n FROM ev WHERE id = 5
                SHOW WARNINGS
                INSERT INTO ev (id, n) VALUES (6, 1), (7, 1), (8, 1), (9, 999)
                SELECT COUNT(*) FROM ev
                SET sql_mode = 'STRICT_ALL_TABLES'
                SELECT @@sql_mode
                INSERT INTO ev (id, n) VALUES (12, 300)
                SHOW WARNINGS
                SHOW ERRORS
                SHOW COUNT(*) ERRORS
                INSERT INTO ev (id, n) VALUES (13, 1), (14, 1), (15, 1), (16, 999)
                SELECT COUNT(*) FROM ev
                UPDATE ev SET n = n * 100 WHERE id IN (1, 2, 3)
                SELECT id, n FROM ev WHERE id IN (1, 2, 3) ORDER BY id
                INSERT INTO pair (id, n) VALUES (3, 1), (4, 200)
                SELECT COUNT(*) FROM pair
                SET sql_mode = CONCAT(@@sql_mode, ',ERROR_FOR_DIVISION_BY_ZERO')
                SELECT @@sql_mode, @@session.sql_mode
                UPDATE ev SET n = 1 / 0 WHERE id = 1
                UPDATE ev SET n = 1 / 0 WHERE id > 0
                SELECT 1 / 0
                SHOW WARNINGS
                SET sql_mode = ''
                UPDATE ev SET n = n * 1000 WHERE id > 0
                SHOW COUNT(*) WARNINGS
                SHOW WARNINGS LIMIT 1
                SHOW WARNINGS LIMIT 1, 2
                SELECT id, n FROM ev ORDER BY id
                SET sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO'
                SET sql_mode = 'NO_SUCH_MODE'
                SELECT @@sql_mode
                SET sql_mode = 'TRADITIONAL'
                SELECT @@sql_mode
                INSERT INTO ev (id, d) VALUES (17, '2024-02-30')
                SET sql_mode = 'ONLY_FULL_GROUP_BY'
                SELECT s, COUNT(*) FROM ev GROUP BY s ORDER BY s
                SELECT s, n FROM ev GROUP BY s ORDER BY s
                SET sql_mode = DEFAULT
                SELECT @@sql_mode
                INSERT INTO ev (id, d) VALUES (18, '2024-02-30')
                """);
    }

    @Test
    void userVariables() throws SQLException {
        script("""
                SELECT @never, @a
                SET @a = 5, @s = 'x''y', @d = 1.50, @f = 1e3, @n = NULL, @b = X'00FF', @t = NOW() - NOW()
                SELECT @a, @s, @d, @f, @n, HEX(@b), @t
                SELECT @a + 1, @d * 2, @f / 3, CONCAT(@s, 'z'), @a = '5', @d = 1.5
                SELECT id FROM ev WHERE id = @a - 4
                SELECT id FROM ev WHERE id IN (@a - 4, @a - 3) ORDER BY id
                SELECT COUNT(*), SUM(n + @a) FROM ev WHERE id < @a
                SELECT id, n * @d FROM ev ORDER BY id
                SELECT id, n + @a, RANK() OVER (ORDER BY n DESC) FROM ev ORDER BY id
                SELECT d.id, d.x FROM (SELECT id, n * @a AS x FROM ev WHERE n < @a) AS d ORDER BY d.id
                SELECT e.id, p.n + @a FROM ev e JOIN pair p ON p.id = e.id WHERE e.n < @a ORDER BY e.id
                UPDATE ev SET s = @s WHERE id = 2
                UPDATE ev SET n = n + @a WHERE id > 2
                SELECT id, s, n FROM ev ORDER BY id
                INSERT INTO ev (id, n, s) VALUES (25, @a, @s)
                SELECT id, n, s FROM ev WHERE id = 25
                SET @a := @a + 10, @`odd_name` = 'é', @s = 'HÉLLO' COLLATE utf8mb4_bin
                SELECT @a, @odd_name, @s = 'héllo', @s = 'HÉLLO', COLLATION(@s), CHARSET(@s)
                SET @l = CONVERT('é' USING latin1)
                SELECT @l, CHARSET(@l), COLLATION(@l), LENGTH(@l)
                SET @a = NULL
                SELECT @a
                SET @e = 1 +
                SELECT @e
                """);
    }

    @Test
    void otherSessionVariables() throws SQLException {
        script("""
                SET foreign_key_checks = 0, unique_checks = 0, sql_notes = 0
                SELECT @@foreign_key_checks, @@unique_checks, @@sql_notes
                SET lc_time_names = 'de_DE'
                SELECT id, DATE_FORMAT(d, '%W %M') FROM ev WHERE id IN (1, 2, 3) ORDER BY id
                SET default_week_format = 1
                SELECT WEEK('2024-01-07'), @@default_week_format
                SET SESSION lc_time_names = 'xx_XX'
                SET @@session.foreign_key_checks = 1, @@unique_checks = DEFAULT, LOCAL sql_notes = 1, lc_time_names = DEFAULT
                SELECT @@foreign_key_checks, @@unique_checks, @@sql_notes, @@lc_time_names
                """);
    }

    /** SET inside a transaction reaches the connections the transaction already pinned, and the later ones. */
    @Test
    void insideATransaction() throws SQLException {
        for (Connection c : List.of(differential.lutra, differential.reference)) c.setAutoCommit(false);
        try {
            script("""
                    SELECT id, ts FROM ev WHERE id IN (1, 2) ORDER BY id
                    SET time_zone = '+02:00', @k = 3
                    SELECT id, ts FROM ev ORDER BY id
                    UPDATE ev SET ts = '2030-01-01 00:00:00' WHERE id = @k
                    SET time_zone = '+00:00'
                    SELECT id, ts FROM ev WHERE id = @k
                    COMMIT
                    SELECT id, ts FROM ev ORDER BY id
                    """);
        } finally {
            for (Connection c : List.of(differential.lutra, differential.reference)) c.setAutoCommit(true);
        }
    }

    /** Prepared SET with parameters, and statements with parameters next to user variables. */
    @Test
    void preparedSet() throws SQLException {
        for (Connection c : List.of(differential.lutra, differential.reference)) {
            try (var ps = c.prepareStatement("SET @p = ?, time_zone = ?")) {
                ps.setInt(1, 3);
                ps.setString(2, "+03:00");
                ps.execute();
            }
        }
        script("""
                SELECT @p, @@time_zone
                SELECT id, ts FROM ev WHERE id = @p
                """);
    }

    /** What the router cannot make exact is refused (SQLState 42000, error 1235), and the session goes on with what it had. */
    @Test
    void refusedForms() throws SQLException {
        var lutra = differential.lutra;
        try (Statement st = lutra.createStatement()) {
            st.execute("SET @keep = 7, time_zone = '+01:00'");
            for (String sql : List.of("SET sql_mode = 'ANSI_QUOTES'", "SET sql_mode = 'ANSI'", "SET sql_mode = 'NO_BACKSLASH_ESCAPES'",
                    "SET sql_mode = 'PIPES_AS_CONCAT'", "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'", "SET @x = (SELECT COUNT(*) FROM ev)",
                    "SET @x = LAST_INSERT_ID()", "SET GLOBAL sql_mode = ''", "SET div_precision_increment = 8", "SET sql_select_limit = 1",
                    "SET group_concat_max_len = 10", "SET innodb_lock_wait_timeout = 1", "SELECT @x := 1", "SELECT id INTO @x FROM ev WHERE id = 1",
                    "SET @x = @y := 2", "SET max_statement_time = 1", "SET @x = 1, autocommit = 0", "SET PASSWORD = PASSWORD('x')")) {
                var e = assertThrows(SQLException.class, () -> st.execute(sql), sql);
                assertRefusal(e, sql + ": " + e.getMessage());
            }
            assertEquals(List.of(List.of("@keep", "@@time_zone", "@@sql_mode"), List.of("7", "+01:00", defaultSqlMode())),
                    answer(lutra, "SELECT @keep, @@time_zone, @@sql_mode"));
            st.execute("SET @keep = NULL, time_zone = DEFAULT");
        }
    }

    private String defaultSqlMode() throws SQLException {
        return answer(differential.reference, "SELECT @@GLOBAL.sql_mode").get(1).getFirst();
    }

    /**
     * Two sessions over the same pooled backend connections: what one set never shows in the
     * other, and a session whose connections already carry its values sends no SET (counted by the
     * shards' Com_set_option).
     */
    @Test
    void sessionsDoNotShareVariablesAndSetsAreSentOnlyWhenNeeded() throws Exception {
        String defaults = answer(differential.reference, "SELECT @@GLOBAL.time_zone, @@GLOBAL.sql_mode").get(1).toString();
        try (Connection a = differential.router.connect(); Connection b = differential.router.connect();
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            sa.execute("SET time_zone = '+05:00', sql_mode = 'STRICT_ALL_TABLES', @mine = 'a'");
            for (int i = 0; i < 30; i++) {
                var ra = answer(a, "SELECT @@time_zone, @@sql_mode, @mine, COUNT(*) FROM ev WHERE id > " + (i % 3));
                assertEquals(List.of("+05:00", "STRICT_ALL_TABLES", "a"), ra.get(1).subList(0, 3), "session a, round " + i);
                var rb = answer(b, "SELECT @@time_zone, @@sql_mode, @mine, COUNT(*) FROM ev WHERE id > " + (i % 3));
                assertEquals(defaults, List.of(rb.get(1).get(0), rb.get(1).get(1)).toString(), "session b, round " + i);
                assertNull(rb.get(1).get(2), "session b must not see a's @mine, round " + i);
            }
            // a alone now: each of its statements over 4 partitions finds its values already there after the first rounds
            answer(a, "SELECT COUNT(*) FROM ev WHERE ts > '2000-01-01'");
            long before = setsOnShards();
            for (int i = 0; i < 50; i++) answer(a, "SELECT COUNT(*), MAX(ts) FROM ev WHERE ts > '2000-01-01' AND n > " + (i % 2));
            long sets = setsOnShards() - before;
            // 8 pooled connections per partition may still each need one SET; never one per statement
            assertTrue(sets <= 4 * 8, "SETs sent for 50 statements over 4 partitions that already carry the session's values: " + sets);
        }
    }

    private long setsOnShards() throws SQLException {
        long total = 0;
        for (int i = 0; i < shards.size(); i++) {
            try (var c = shards.connect(i); var st = c.createStatement(); var rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Com_set_option'")) {
                rs.next();
                total += rs.getLong(2);
            }
        }
        return total;
    }

    /** Random sequences of SETs and reads over the two tables, compared statement by statement. */
    @Test
    void randomScripts() throws SQLException {
        var random = ThreadLocalRandom.current();
        String[] zones = {"'+00:00'", "'+05:30'", "'-11:00'", "'SYSTEM'", "DEFAULT", "'+14:00'"};
        String[] modes = {"''", "'STRICT_ALL_TABLES'", "'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO'", "DEFAULT", "'TRADITIONAL'",
                "'NO_ZERO_DATE'"};
        var script = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            switch (random.nextInt(7)) {
                case 0 -> script.append("SET time_zone = ").append(zones[random.nextInt(zones.length)]).append('\n');
                case 1 -> script.append("SET sql_mode = ").append(modes[random.nextInt(modes.length)]).append('\n');
                case 2 -> script.append("SET @v").append(random.nextInt(3)).append(" = ").append(random.nextInt(-200, 300)).append('\n');
                case 3 -> script.append("SELECT id, ts, n, @v0, @v1 FROM ev WHERE id <= ").append(random.nextInt(1, 6)).append(" ORDER BY id\n");
                case 4 -> script.append("UPDATE ev SET n = @v").append(random.nextInt(3)).append(" WHERE id IN (").append(random.nextInt(1, 5))
                        .append(", ").append(random.nextInt(1, 5)).append(")\n");
                case 5 -> script.append("INSERT INTO pair (id, n) VALUES (").append(random.nextInt(3, 1000)).append(", ").append(random.nextInt(-200, 300))
                        .append("), (").append(random.nextInt(3, 1000)).append(", 1)\n");
                default -> script.append("SELECT COUNT(*), SUM(n), MAX(ts), @@time_zone, @@sql_mode FROM ev\n");
            }
        }
        script.append("SELECT * FROM pair ORDER BY id\n");
        script(script.toString());
    }

    // ---- running a script on both sides ------------------------------------------------------------

    private void script(String lines) throws SQLException {
        for (String sql : lines.strip().split("\n")) {
            assertEquals(outcome(differential.reference, sql), outcome(differential.lutra, sql), sql);
        }
    }

    /** What one statement gives: labels and rows, or an update count, or an error's SQLState and number; and the warnings. */
    private static String outcome(Connection c, String sql) {
        try (Statement st = c.createStatement()) {
            String answer = st.execute(sql) ? rows(st.getResultSet()).toString() : "count " + st.getUpdateCount();
            return answer + warnings(st);
        } catch (SQLException e) {
            return "error " + e.getSQLState() + " " + e.getErrorCode();
        }
    }

    private static String warnings(Statement st) throws SQLException {
        var out = new ArrayList<String>();
        for (var w = st.getWarnings(); w != null; w = w.getNextWarning()) out.add(w.getSQLState() + " " + w.getErrorCode());
        return out.isEmpty() ? "" : " warnings " + out;
    }

    private static final java.util.regex.Pattern AT_ROW = java.util.regex.Pattern.compile("at row \\d+");
    private static final java.util.regex.Pattern PARTITION_PREFIX = java.util.regex.Pattern.compile("^\\[p\\d@shard\\d\\] ");

    private static List<List<String>> rows(java.sql.ResultSet rs) throws SQLException {
        var out = new ArrayList<List<String>>();
        var labels = new ArrayList<String>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) labels.add(rs.getMetaData().getColumnLabel(i));
        out.add(labels);
        while (rs.next()) {
            var row = new ArrayList<String>();
            for (int i = 1; i <= labels.size(); i++) {
                String v = rs.getString(i);
                // SHOW WARNINGS names the partition, and counts rows per partition (docs/dialect.md: "at row N" differs)
                row.add(v == null ? null : AT_ROW.matcher(PARTITION_PREFIX.matcher(v).replaceFirst("")).replaceAll("at row N"));
            }
            out.add(row);
        }
        rs.close();
        return out;
    }

    private static List<List<String>> answer(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); var rs = st.executeQuery(sql)) {
            return rows(rs);
        }
    }
}
