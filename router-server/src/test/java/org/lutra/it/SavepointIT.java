package org.lutra.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.txn.TxnStats;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Savepoints over partitions: SAVEPOINT, ROLLBACK TO and RELEASE through Lutra against one plain
 * MariaDB holding the same rows (random transactions over hash-, lookup- and SAME AS-placed tables
 * with a UNIQUE secondary lookup, rows moved away from home between them), the 2PC decision after a
 * rollback to a savepoint, and Spring's PROPAGATION_NESTED over HikariCP.
 *
 * <p>Seed and size: {@code -Dlutra.savepoint.seed=N}, {@code -Dlutra.savepoint.transactions=N} (default 150).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SavepointIT {
    static final String SCHEMA = """
            CREATE TABLE t_hash (id INT PRIMARY KEY, a INT, u INT, UNIQUE KEY (u)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE t_lookup (id INT PRIMARY KEY, a INT) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE t_child (id INT NOT NULL, pid INT NOT NULL, a INT, PRIMARY KEY (id, pid)) PARTITION BY lookup(pid) SAME AS t_lookup;
            """;
    static final List<String> TABLES = List.of("t_hash", "t_lookup", "t_child");
    static final List<String> NAMES = List.of("s0", "s1", "S1", "s2", "`s 3`");
    static final int DOES_NOT_EXIST = 1305;

    Differential differential;
    Connection lutra;
    Connection reference;
    long seed;

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.savepoint.seed", System.nanoTime());
        System.out.println("SavepointIT seed " + seed + " (replay with -Dlutra.savepoint.seed=" + seed + ")");
        differential = new Differential(shards, "spit", SCHEMA);
        lutra = differential.lutra;
        reference = differential.reference;
        try (var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP t_hash_u ON t_hash (u) UNIQUE");
        }
        for (int id = 0; id < 40; id++) {
            differential.both("INSERT INTO t_hash VALUES (" + id + ", " + id % 7 + ", " + (1000 + id) + ")");
            differential.both("INSERT INTO t_lookup VALUES (" + id + ", " + id % 5 + ")");
            differential.both("INSERT INTO t_child VALUES (" + id + ", " + id % 20 + ", " + id % 3 + ")");
        }
    }

    /** A test that failed mid-transaction leaves none open for the next. */
    @org.junit.jupiter.api.BeforeEach
    void endTransactions() throws SQLException {
        both("ROLLBACK");
        both("SET autocommit = 1");
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    /** MySQL's rules, statement by statement, next to the reference's answers. */
    @Test
    void savepointStatementsAnswerAsMariaDb() throws SQLException {
        String[] script = { // keys 2500..2504 and u below 0: the random run uses ids below 2000 and u from 1000 to 2999
                "SAVEPOINT x", "ROLLBACK TO SAVEPOINT x", "RELEASE SAVEPOINT x",       // auto-commit: accepted, nothing kept
                "BEGIN", "SAVEPOINT A1", "INSERT INTO t_hash VALUES (2500, 1, -2500)", "SAVEPOINT a2",
                "INSERT INTO t_hash VALUES (2501, 1, -2501)", "SAVEPOINT a1",              // a1 set again: moves after a2
                "INSERT INTO t_lookup VALUES (2502, 1)", "ROLLBACK WORK TO a2",           // drops the new a1, keeps a2
                "ROLLBACK TO a1", "ROLLBACK TO SAVEPOINT a2", "RELEASE SAVEPOINT a2", "ROLLBACK TO a2",
                "SAVEPOINT `odd``name`", "INSERT INTO t_child VALUES (2503, 3, 1)", "ROLLBACK TO `odd``name`", "COMMIT",
                "ROLLBACK TO `odd``name`",                                              // gone with its transaction
                "SET autocommit = 0", "SAVEPOINT z", "INSERT INTO t_hash VALUES (2504, 1, -2504)", "ROLLBACK TO z", "COMMIT", "SET autocommit = 1",
        };
        for (String sql : script) {
            assertEquals(outcome(reference, sql), outcome(lutra, sql), sql);
        }
        assertTablesEqual("after the script");
        var e = assertThrows(SQLException.class, () -> lutra.createStatement().execute("ROLLBACK TO nowhere"));
        assertEquals("42000", e.getSQLState());
        assertEquals("SAVEPOINT nowhere does not exist", e.getMessage());
    }

    /**
     * A partition that joins after a savepoint gets it at its start, so ROLLBACK TO undoes its work; and a
     * branch whose writes were all undone is a reader again: the commit is one-phase, no XA decision.
     */
    @Test
    void rollbackToUndoesPartitionsJoinedLaterAndTheirShareInTheCommit() throws SQLException {
        TxnStats stats = differential.router.server.transactions().stats();
        long twoPhase, onePhase;
        try (var c = differential.router.connect(); var st = c.createStatement()) { // rows of its own, on the router only
            st.executeUpdate("INSERT INTO t_hash VALUES (5000, 0, 5000), (5001, 0, 5001), (5002, 0, 5002), (5003, 0, 5003), (5004, 0, 5004), (5005, 0, 5005)");
            twoPhase = stats.twoPhaseCommits.sum();
            onePhase = stats.onePhaseCommits.sum();
            c.setAutoCommit(false);
            st.executeUpdate("UPDATE t_hash SET a = 77 WHERE id = 5000");
            var before = c.setSavepoint("before");
            for (int id = 5001; id < 5006; id++) st.executeUpdate("UPDATE t_hash SET a = 77 WHERE id = " + id); // every partition joins
            st.executeUpdate("INSERT INTO t_lookup VALUES (5000, 1), (5001, 1), (5002, 1), (5003, 1)");
            c.rollback(before);
            assertEquals(1, count(st, "SELECT COUNT(*) FROM t_hash WHERE a = 77 AND id >= 5000"), "the transaction sees its state at the savepoint");
            c.commit();
            assertEquals(1, count(st, "SELECT COUNT(*) FROM t_hash WHERE a = 77 AND id >= 5000"));
            assertEquals(0, count(st, "SELECT COUNT(*) FROM t_lookup WHERE id >= 5000"));
            assertEquals(twoPhase, stats.twoPhaseCommits.sum(), "no partition but the first kept a write: no two-phase commit");
            assertEquals(onePhase + 1, stats.onePhaseCommits.sum());
            c.setAutoCommit(true);
            st.executeUpdate("DELETE FROM t_hash WHERE id >= 5000");
        }
    }

    /** A result still streaming from the partitions when a savepoint statement runs is read into the router first, whole. */
    @Test
    void aStreamingResultSurvivesSavepointStatements() throws SQLException {
        try (var c = differential.router.connect(); var counter = c.createStatement(); var reader = c.createStatement();
             var writer = c.createStatement()) {
            c.setAutoCommit(false);
            int all = count(counter, "SELECT COUNT(*) FROM t_hash");
            reader.setFetchSize(3);
            int read = 0;
            try (ResultSet rs = reader.executeQuery("SELECT id FROM t_hash")) {
                for (int i = 0; i < 2 && rs.next(); i++) read++;
                var mid = c.setSavepoint("mid");
                writer.executeUpdate("UPDATE t_hash SET a = a + 1 WHERE id = 1");
                c.rollback(mid);
                c.releaseSavepoint(mid);
                while (rs.next()) read++;
            }
            assertEquals(all, read, "every row of the streamed result, once");
            c.rollback();
        }
    }

    /**
     * Random transactions of inserts, updates and deletes over the three tables, with SAVEPOINT /
     * ROLLBACK TO / RELEASE among them, ended by COMMIT or ROLLBACK; every statement's count (or
     * error) and, after each transaction, every table must agree with the plain MariaDB. Between
     * transactions a lookup key moves away from its home now and then, so SAME AS rows and the
     * key's rows live off their DEFAULT NEW partition.
     */
    @Test
    void randomTransactionsWithSavepointsEndAsOneMariaDbEnds() throws SQLException {
        var r = new SplittableRandom(seed);
        int transactions = Integer.getInteger("lutra.savepoint.transactions", 150);
        int rolledBackTo = 0, errors = 0, recovered = 0, statements = 0;
        for (int t = 0; t < transactions; t++) {
            if (r.nextInt(4) == 0) moveALookupKey(r);
            both("BEGIN");
            List<String> done = new ArrayList<>();
            var held = new Held();
            boolean open = true;
            int length = 3 + r.nextInt(20);
            for (int i = 0; i < length && open; i++) {
                String sql = next(r);
                done.add(sql);
                statements++;
                String expected = outcome(reference, sql);
                assertEquals(expected, outcome(lutra, sql), "transaction " + t + ": " + String.join("; ", done));
                if (expected.startsWith("ok")) {
                    held.ran(sql);
                    if (sql.startsWith("ROLLBACK")) rolledBackTo++;
                } else if (!expected.equals("error " + DOES_NOT_EXIST)) {
                    errors++;
                    // In a transaction holding a savepoint, Lutra keeps it after a statement error MySQL undoes alone (a
                    // duplicate key) for ROLLBACK TO; without one it rolled back whole (docs/transactions.md).
                    String back = held.names.isEmpty() || r.nextInt(4) == 0 ? null : "ROLLBACK TO " + held.names.get(r.nextInt(held.names.size()));
                    if (back != null) {
                        done.add(back);
                        assertEquals("ok 0", outcome(reference, back), back);
                        assertEquals("ok 0", outcome(lutra, back), "transaction " + t + ": " + String.join("; ", done));
                        held.ran(back);
                        recovered++;
                    } else {
                        open = false;
                    }
                }
                if (open && r.nextInt(5) == 0) {
                    String table = TABLES.get(r.nextInt(TABLES.size()));
                    assertEquals(rows(reference, table), rows(lutra, table), "inside transaction " + t + ": " + String.join("; ", done));
                }
            }
            String end = !open || r.nextInt(3) == 0 ? "ROLLBACK" : "COMMIT";
            both(end);
            done.add(end);
            assertTablesEqual("after transaction " + t + ": " + String.join("; ", done));
        }
        System.out.printf("SavepointIT: %d transactions, %d statements, %d rollbacks to a savepoint, %d statement errors (%d recovered by ROLLBACK TO)%n",
                transactions, statements, rolledBackTo, errors, recovered);
        assertTrue(recovered > 0, "some statement errors were recovered from by ROLLBACK TO");
        assertTrue(rolledBackTo > transactions / 6, "the run rolled back to savepoints: " + rolledBackTo);
    }

    /**
     * Spring's nested transactions (savepoints) over DataSourceTransactionManager and HikariCP: the inner part rolls
     * back (an exception of the application's, a duplicate key), the outer commits.
     */
    @Test
    void springNestedTransactionRollsBackToItsSavepoint() throws Exception {
        PoolEvictions.clear();
        var config = new HikariConfig();
        config.setJdbcUrl(differential.router.url());
        config.setUsername(TestRouter.USER);
        config.setPassword(TestRouter.PASSWORD);
        config.setMaximumPoolSize(2);
        config.setExceptionOverrideClassName(PoolEvictions.class.getName());
        try (var pool = new HikariDataSource(config)) {
            var jdbc = new JdbcTemplate(pool);
            var manager = new DataSourceTransactionManager(pool);
            var outer = new TransactionTemplate(manager);
            var nested = new TransactionTemplate(manager);
            nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
            outer.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO t_lookup VALUES (?, ?)", 6000, 1);
                var failure = assertThrows(IllegalStateException.class, () -> nested.executeWithoutResult(inner -> {
                    jdbc.update("INSERT INTO t_lookup VALUES (?, ?)", 6001, 1);
                    jdbc.update("INSERT INTO t_child VALUES (?, ?, ?)", 6002, 6000, 1);
                    jdbc.update("UPDATE t_hash SET a = -1 WHERE id IN (1, 2, 3)");
                    throw new IllegalStateException("inner business rule");
                }));
                assertEquals("inner business rule", failure.getMessage());
                // a duplicate key inside the nested part: Spring rolls back to its savepoint, the outer goes on
                assertThrows(org.springframework.dao.DuplicateKeyException.class, () -> nested.executeWithoutResult(inner -> {
                    jdbc.update("UPDATE t_hash SET a = -1 WHERE id IN (4, 5, 6, 7)");
                    jdbc.update("INSERT INTO t_lookup VALUES (?, ?)", 6000, 2);
                }));
                nested.executeWithoutResult(inner -> jdbc.update("INSERT INTO t_child VALUES (?, ?, ?)", 6003, 6000, 2)); // nested, committed with the outer
            });
            assertEquals(List.of(6000), jdbc.queryForList("SELECT id FROM t_lookup WHERE id IN (6000, 6001)", Integer.class));
            assertEquals(List.of(6003), jdbc.queryForList("SELECT id FROM t_child WHERE pid = 6000", Integer.class));
            assertEquals(0, jdbc.queryForObject("SELECT COUNT(*) FROM t_hash WHERE a = -1", Integer.class));
            jdbc.update("DELETE FROM t_child WHERE pid = 6000");
            jdbc.update("DELETE FROM t_lookup WHERE id = 6000");
            assertEquals(List.of(), PoolEvictions.seen(), "HikariCP evicted no connection");
        }
    }

    /** The savepoints the transaction holds, by MySQL's rules, as the run's statements that succeeded left them. */
    private static final class Held {
        final List<String> names = new ArrayList<>();

        void ran(String sql) {
            String[] words = sql.split(" ");
            String name = NAMES.stream().filter(n -> sql.endsWith(" " + n)).findFirst().orElse(null);
            if (name == null) return; // not a savepoint statement
            int at = indexOf(name);
            if (words[0].equals("SAVEPOINT")) {
                if (at >= 0) names.remove(at);
                names.add(name);
            } else if (words[0].equals("ROLLBACK") && at >= 0) {
                names.subList(at + 1, names.size()).clear();
            } else if (words[0].equals("RELEASE") && at >= 0) {
                names.subList(at, names.size()).clear();
            }
        }

        private int indexOf(String name) {
            for (int i = 0; i < names.size(); i++) if (names.get(i).equalsIgnoreCase(name)) return i;
            return -1;
        }
    }

    // ---- the random run's statements ---------------------------------------------------------------

    private String next(SplittableRandom r) {
        int kind = r.nextInt(20);
        String name = NAMES.get(r.nextInt(NAMES.size()));
        if (kind < 4) return "SAVEPOINT " + name;
        if (kind < 6) return (r.nextBoolean() ? "ROLLBACK TO SAVEPOINT " : "ROLLBACK WORK TO ") + name;
        if (kind == 6) return "RELEASE SAVEPOINT " + name;
        int id = r.nextInt(80);
        int newId = r.nextInt(2000); // inserts: mostly new keys (a duplicate ends the transaction)
        int a = r.nextInt(9);
        return switch (r.nextInt(10)) {
            case 0 -> "INSERT INTO t_hash VALUES (" + newId + ", " + a + ", " + (1000 + r.nextInt(2000)) + ")";
            case 1 -> "INSERT INTO t_lookup VALUES (" + (r.nextBoolean() ? id : newId) + ", " + a + ")";
            case 2 -> "INSERT INTO t_child VALUES (" + newId + ", " + r.nextInt(60) + ", " + a + ")";
            case 3 -> "UPDATE t_hash SET a = a + 1 WHERE id IN (" + id + ", " + r.nextInt(80) + ")";
            case 4 -> "UPDATE t_lookup SET a = " + a + " WHERE id = " + id;
            case 5 -> "UPDATE t_child SET a = a + 1 WHERE pid = " + r.nextInt(60);
            case 6 -> "UPDATE t_hash SET a = " + a + " WHERE u = " + (1000 + r.nextInt(60));
            case 7 -> "DELETE FROM " + TABLES.get(r.nextInt(TABLES.size())) + " WHERE id = " + id;
            case 8 -> "DELETE FROM t_child WHERE pid = " + r.nextInt(60) + " AND a = " + r.nextInt(3);
            default -> "UPDATE " + TABLES.get(r.nextInt(TABLES.size())) + " SET a = a + 1 WHERE a = " + a; // every partition
        };
    }

    private void moveALookupKey(SplittableRandom r) throws SQLException {
        int key = r.nextInt(60);
        try (var st = lutra.createStatement()) {
            st.executeUpdate("ALTER TABLE t_lookup SET PARTITION = p" + r.nextInt(4) + " WHERE id = " + key);
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private void both(String sql) throws SQLException {
        try (var l = lutra.createStatement(); var ref = reference.createStatement()) {
            ref.execute(sql);
            l.execute(sql);
        }
    }

    /** "ok" and the update count, or "error" and the error code. */
    private static String outcome(Connection c, String sql) {
        try (var st = c.createStatement()) {
            st.execute(sql);
            return "ok " + st.getUpdateCount();
        } catch (SQLException e) {
            if (e.getErrorCode() == 0) System.err.println("SavepointIT: " + sql + " -> " + e.getSQLState() + " " + e.getMessage()); // the code alone says little
            return "error " + e.getErrorCode();
        }
    }

    private void assertTablesEqual(String when) throws SQLException {
        for (String table : TABLES) assertEquals(rows(reference, table), rows(lutra, table), table + " " + when);
    }

    private static List<String> rows(Connection c, String table) throws SQLException {
        var out = new ArrayList<String>();
        try (var st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + table + " ORDER BY 1, 2")) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                var row = new StringBuilder();
                for (int i = 1; i <= columns; i++) row.append(i > 1 ? "|" : "").append(rs.getString(i));
                out.add(row.toString());
            }
        }
        return out;
    }

    private static int count(java.sql.Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
