package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * MariaDB's shared locking read, {@code SELECT ... LOCK IN SHARE MODE [WAIT n | NOWAIT | SKIP LOCKED]}, through the
 * router as on one MariaDB: the same rows as a plain MariaDB holding the same rows, in auto-commit and in transactions,
 * on one partition and over several; and the same locks: every lock scenario runs twice, through two router sessions
 * and through two sessions of the plain MariaDB, and must end the same way statement by statement (a lock wait
 * timeout, a NOWAIT refusal, a row skipped). Lock waits end after {@value #LOCK_WAIT} s on both sides.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockInShareModeIT {
    static final int LOCK_WAIT = 1;
    static final int USERS = 12;
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, mode VARCHAR(20), karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;

    Differential differential;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "shareit", SCHEMA, new RouterConfig.Transactions("shareit", LOCK_WAIT, 0, 0));
        for (int id = 1; id <= USERS; id++) {
            differential.both("INSERT INTO users (id, name, mode, karma) VALUES (" + id + ", 'u" + id + "', '"
                    + (id % 3 == 0 ? "LOCK IN SHARE MODE" : "m" + id) + "', " + id + ")");
            differential.both("INSERT INTO followers VALUES (" + id + ", " + (id % 5) + "), (" + id + ", " + (id % 7 + 10) + ")");
        }
        try (var st = differential.reference.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT);
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    enum Mode {
        AUTO_COMMIT(Connection.TRANSACTION_REPEATABLE_READ), REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED), SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE);

        final int level;

        Mode(int level) {
            this.level = level;
        }

        void open(Connection c) throws SQLException {
            c.setAutoCommit(true);
            c.setTransactionIsolation(level);
            c.setAutoCommit(this == AUTO_COMMIT);
        }
    }

    static final List<String> READS = List.of(
            "SELECT * FROM users WHERE id = 3 LOCK IN SHARE MODE",
            "select id, name from users where id in (1, 2, 3, 4, 5) order by id lock in share mode",
            "SELECT * FROM users ORDER BY id LOCK IN SHARE MODE WAIT 1",
            "SELECT COUNT(*), SUM(karma) FROM users LOCK IN SHARE MODE NOWAIT",
            "SELECT id, karma FROM users ORDER BY id LIMIT 5 LOCK IN SHARE MODE SKIP LOCKED",
            "SELECT id, mode FROM users WHERE mode <> 'LOCK IN SHARE MODE' ORDER BY id LOCK IN SHARE MODE",
            "SELECT id, mode FROM users WHERE mode = 'LOCK IN SHARE MODE' ORDER BY id",
            "SELECT * FROM users WHERE id = 4 /* shared */ LOCK /* read */ IN\n SHARE MODE -- done\n",
            "SELECT * FROM users WHERE id = 5 /*! LOCK IN SHARE MODE */",
            "SELECT u.id, f.destination FROM users u JOIN followers f ON f.source = u.id ORDER BY u.id, f.destination LOCK IN SHARE MODE",
            "SELECT name FROM users WHERE id = 8 UNION ALL SELECT name FROM users WHERE id = 9 LOCK IN SHARE MODE",
            "SELECT * FROM users WHERE id = 5 FOR UPDATE WAIT 1",
            "SELECT id FROM users ORDER BY id FOR UPDATE NOWAIT",
            "SELECT id FROM users ORDER BY id FOR UPDATE SKIP LOCKED",
            "SELECT * FROM users WHERE id = 3 FOR SHARE", // MySQL's spelling, which MariaDB refuses: compared with LOCK IN SHARE MODE there
            "SELECT id FROM users ORDER BY id FOR SHARE SKIP LOCKED");

    @Test
    void readsTheRowsOneMariaDbReadsInEveryMode() throws SQLException {
        var differences = new ArrayList<String>();
        for (Mode mode : Mode.values()) {
            mode.open(differential.lutra);
            mode.open(differential.reference);
            for (String sql : READS) {
                String lutra = answer(differential.lutra, sql);
                String mariadb = answer(differential.reference, sql.replace("FOR SHARE", "LOCK IN SHARE MODE"));
                if (!lutra.equals(mariadb)) differences.add(mode + " " + sql + ": lutra " + lutra + " / mariadb " + mariadb);
                assertFalse(lutra.startsWith("error"), mode + " " + sql + ": " + lutra);
            }
            // a prepared statement's parameter before the clause
            for (int id : new int[] {2, 7}) {
                String sql = "SELECT id, name FROM users WHERE id = ? LOCK IN SHARE MODE";
                try (var l = differential.lutra.prepareStatement(sql); var r = differential.reference.prepareStatement(sql)) {
                    l.setInt(1, id);
                    r.setInt(1, id);
                    try (var lr = l.executeQuery(); var rr = r.executeQuery()) {
                        assertEquals(rows(rr), rows(lr), mode + " prepared " + id);
                    }
                }
            }
            if (mode != Mode.AUTO_COMMIT) {
                differential.lutra.commit();
                differential.reference.commit();
            }
        }
        Mode.AUTO_COMMIT.open(differential.lutra);
        Mode.AUTO_COMMIT.open(differential.reference);
        assertEquals(List.of(), differences);
    }

    /** A shared lock on one row, held by a transaction: compatible with another shared lock, not with a write. */
    @Test
    void aSharedLockOnOneRowHoldsUntilTheTransactionEnds() throws SQLException {
        assertSameOnBoth((holder, other) -> {
            var o = new ArrayList<String>();
            holder.setAutoCommit(false);
            o.add(outcome(holder, "SELECT id, name FROM users WHERE id = 3 LOCK IN SHARE MODE"));
            o.add(outcome(other, "SELECT id FROM users WHERE id = 3 LOCK IN SHARE MODE NOWAIT"));
            o.add(outcome(other, "SELECT id FROM users WHERE id = 3 FOR UPDATE NOWAIT"));
            o.add(waited(other, "UPDATE users SET karma = karma + 1 WHERE id = 3"));
            o.add(outcome(other, "UPDATE users SET karma = karma + 1 WHERE id = 4"));
            holder.commit();
            o.add(outcome(other, "UPDATE users SET karma = karma + 1 WHERE id = 3"));
            return o;
        }, List.of("rows 3", "rows 3", "error 1205", "waited, error 1205", "updated 1", "updated 1"));
    }

    /** A shared lock on every row of every partition, held by a transaction: no row can be written, no row inserted. */
    @Test
    void aSharedLockOverEveryPartitionHoldsEveryRow() throws SQLException {
        var expected = new ArrayList<String>();
        expected.add("rows " + ids(1, USERS));
        for (int id = 1; id <= USERS; id++) expected.add("error 1205");
        expected.add("waited, error 1205");
        expected.add("waited, error 1205");
        expected.add("updated 1");
        assertSameOnBoth((holder, other) -> {
            var o = new ArrayList<String>();
            holder.setAutoCommit(false);
            o.add(outcome(holder, "SELECT id, name FROM users ORDER BY id LOCK IN SHARE MODE"));
            for (int id = 1; id <= USERS; id++) o.add(outcome(other, "SELECT id FROM users WHERE id = " + id + " FOR UPDATE NOWAIT"));
            o.add(waited(other, "UPDATE users SET karma = karma + 1 WHERE id = 11"));
            o.add(waited(other, "INSERT INTO users (id, name) VALUES (100, 'gap')")); // REPEATABLE READ: the scan locked the gaps
            holder.rollback();
            o.add(outcome(other, "UPDATE users SET karma = karma + 1 WHERE id = 11"));
            return o;
        }, expected);
    }

    /** In auto-commit the statement's locks end with it, on every partition. */
    @Test
    void anAutoCommitSharedReadReleasesItsLocks() throws SQLException {
        var expected = new ArrayList<String>();
        expected.add("rows " + ids(1, USERS));
        for (int id = 1; id <= USERS; id++) expected.add("rows " + id);
        assertSameOnBoth((holder, other) -> {
            var o = new ArrayList<String>();
            o.add(outcome(holder, "SELECT id, name FROM users ORDER BY id LOCK IN SHARE MODE"));
            other.setAutoCommit(false);
            for (int id = 1; id <= USERS; id++) o.add(outcome(other, "SELECT id FROM users WHERE id = " + id + " FOR UPDATE NOWAIT"));
            other.rollback();
            return o;
        }, expected);
    }

    /** A shared read meeting another session's exclusive lock: NOWAIT fails at once, SKIP LOCKED leaves the row out, WAIT n waits n s. */
    @Test
    void aSharedReadMeetingAnExclusiveLock() throws SQLException {
        String allBut6 = ids(1, 5) + "," + ids(7, USERS);
        assertSameOnBoth((holder, other) -> {
            var o = new ArrayList<String>();
            other.setAutoCommit(false);
            o.add(outcome(other, "SELECT id FROM users WHERE id = 6 FOR UPDATE"));
            o.add(outcome(holder, "SELECT id FROM users WHERE id = 6 LOCK IN SHARE MODE NOWAIT"));
            o.add(outcome(holder, "SELECT id FROM users WHERE id = 7 LOCK IN SHARE MODE NOWAIT"));
            o.add(outcome(holder, "SELECT id FROM users ORDER BY id LOCK IN SHARE MODE SKIP LOCKED"));
            o.add(outcome(holder, "SELECT id FROM users ORDER BY id LOCK IN SHARE MODE NOWAIT"));
            o.add(waited(holder, "SELECT id FROM users WHERE id = 6 LOCK IN SHARE MODE WAIT 1"));
            other.rollback();
            o.add(outcome(holder, "SELECT id FROM users WHERE id = 6 LOCK IN SHARE MODE NOWAIT"));
            return o;
        }, List.of("rows 6", "error 1205", "rows 7", "rows " + allBut6, "error 1205", "waited, error 1205", "rows 6"));
    }

    interface Scenario {
        List<String> run(Connection holder, Connection other) throws SQLException;
    }

    /** Runs {@code scenario} through two router sessions and through two plain MariaDB sessions: both must end as {@code expected}. */
    private void assertSameOnBoth(Scenario scenario, List<String> expected) throws SQLException {
        List<String> lutra;
        try (var holder = differential.router.connect(); var other = differential.router.connect()) {
            lutra = scenario.run(holder, other);
        }
        List<String> mariadb;
        try (var holder = reference(); var other = reference()) {
            mariadb = scenario.run(holder, other);
        }
        assertEquals(expected, mariadb, "the plain MariaDB (the test's own expectation)");
        assertEquals(mariadb, lutra, "through the router");
    }

    private Connection reference() throws SQLException {
        var c = differential.newReference();
        try (var st = c.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT);
        }
        return c;
    }

    /** {@link #outcome}, marked "waited, " when it took most of the lock wait timeout: a lock wait, not a refusal. */
    private static String waited(Connection c, String sql) {
        long start = System.nanoTime();
        String outcome = outcome(c, sql);
        long millis = (System.nanoTime() - start) / 1_000_000;
        return (millis >= LOCK_WAIT * 800L ? "waited, " : "") + outcome;
    }

    /** Every row of the answer, or "error" and the error number. */
    private static String answer(Connection c, String sql) {
        try {
            return Differential.rows(c, sql).toString();
        } catch (SQLException e) {
            return "error " + e.getErrorCode();
        }
    }

    /** "rows" and the first column's values, "updated n", or "error" and the error number. */
    private static String outcome(Connection c, String sql) {
        try (var st = c.createStatement()) {
            if (!st.execute(sql)) return "updated " + st.getUpdateCount();
            try (var rs = st.getResultSet()) {
                return "rows " + String.join(",", firstColumn(rs));
            }
        } catch (SQLException e) {
            return "error " + e.getErrorCode();
        }
    }

    private static List<String> firstColumn(java.sql.ResultSet rs) throws SQLException {
        var out = new ArrayList<String>();
        while (rs.next()) out.add(rs.getString(1));
        return out;
    }

    private static List<List<String>> rows(java.sql.ResultSet rs) throws SQLException {
        var out = new ArrayList<List<String>>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            var row = new ArrayList<String>();
            for (int i = 1; i <= n; i++) row.add(rs.getString(i));
            out.add(row);
        }
        return out;
    }

    private static String ids(int from, int to) {
        var out = new ArrayList<String>();
        for (int id = from; id <= to; id++) out.add(String.valueOf(id));
        return String.join(",", out);
    }
}
