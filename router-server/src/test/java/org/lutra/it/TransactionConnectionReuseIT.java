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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A transaction's branches run on connections kept at autocommit=0 (their first statement starts the transaction, with no
 * BEGIN): however a transaction ends — committed, rolled back, failed on a backend, its client gone mid-way, on one partition
 * or several (XA) — no connection it used may later run an auto-commit statement at autocommit=0 (the statement would stay
 * uncommitted, invisible to every other session, its locks held), nor go back to a pool with the transaction's work open
 * (its locks held, or committed by whichever transaction used the connection next).
 *
 * <p>Checked from outside the router, on each partition's own database: after every ending, an auto-commit write through the
 * router on every partition is visible to a plain connection as soon as the write returns; the rows the transaction wrote
 * hold no lock (a {@code FOR UPDATE NOWAIT} there takes them); and what it did not commit is nowhere. Pools of two
 * connections, so that every connection is used again and again.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionConnectionReuseIT {
    private static final String SCHEMA = """
            CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    private static final int PARTITIONS = 4;
    private static final int ROUNDS = 5;

    private TestRouter router;
    private final List<Connection> direct = new ArrayList<>();
    private final AtomicInteger nextId = new AtomicInteger(1_000);
    /** Keys the table holds, one or more per partition, found once. */
    private final List<Integer> onPartition = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "txreuse", SCHEMA, null, shards.size(), null, 2);
        for (int p = 0; p < PARTITIONS; p++) direct.add(router.partition(p));
        try (Connection lutra = router.connect(); var st = lutra.createStatement()) {
            for (int id = 1; id <= 40; id++) st.executeUpdate("INSERT INTO t VALUES (" + id + ", 0)");
        }
        for (int p = 0; p < PARTITIONS; p++) {
            try (var st = direct.get(p).createStatement(); var rs = st.executeQuery("SELECT MIN(id) FROM t")) {
                assertTrue(rs.next());
                int id = rs.getInt(1);
                assertTrue(id > 0, "partition " + p + " holds a row");
                onPartition.add(id);
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (Connection c : direct) c.close();
        if (router != null) router.close();
    }

    @BeforeEach
    void clean() throws SQLException {
        try (Connection lutra = router.connect(); var st = lutra.createStatement()) {
            st.executeUpdate("DELETE FROM t WHERE id >= 1000");
            st.executeUpdate("UPDATE t SET v = 0");
        }
    }

    @Test
    void afterCommitsTheConnectionsRunAutoCommitWritesCommitted() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (Connection lutra = router.connect()) {
                lutra.setAutoCommit(false);
                int one = onPartition.get(round % PARTITIONS);
                update(lutra, one, round + 1); // one partition: a plain transaction
                lutra.commit();
                assertValue(one, round + 1);
                afterwardsAutoCommitWritesAreVisible(lutra);

                lutra.setAutoCommit(false);
                readAll(lutra); // reads only, on every partition: a plain branch and XA branches that commit alone
                lutra.commit();
                afterwardsAutoCommitWritesAreVisible(lutra);

                lutra.setAutoCommit(false);
                for (int id : onPartition) update(lutra, id, 100 + round); // every partition: two-phase commit
                lutra.commit();
                for (int id : onPartition) assertValue(id, 100 + round);
                afterwardsAutoCommitWritesAreVisible(lutra);
            }
        }
    }

    @Test
    void afterRollbacksTheConnectionsRunAutoCommitWritesCommitted() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (Connection lutra = router.connect()) {
                lutra.setAutoCommit(false);
                int one = onPartition.get(round % PARTITIONS);
                update(lutra, one, 7);
                lutra.rollback();
                assertValue(one, 0);
                afterwardsAutoCommitWritesAreVisible(lutra);

                lutra.setAutoCommit(false);
                for (int id : onPartition) update(lutra, id, 7);
                try (var st = lutra.createStatement()) {
                    st.execute("SAVEPOINT s");
                    st.executeUpdate("INSERT INTO t VALUES (" + nextId.incrementAndGet() + ", 1)");
                    st.execute("ROLLBACK TO SAVEPOINT s");
                }
                lutra.rollback();
                for (int id : onPartition) assertValue(id, 0);
                afterwardsAutoCommitWritesAreVisible(lutra);
            }
        }
    }

    @Test
    void afterAStatementFailsOnABackendTheConnectionsRunAutoCommitWritesCommitted() throws Exception {
        for (int round = 0; round < 2 * ROUNDS; round++) {
            try (Connection lutra = router.connect()) {
                lutra.setAutoCommit(false);
                int one = onPartition.get(round % PARTITIONS);
                int other = onPartition.get((round + 1) % PARTITIONS);
                int fresh = freshKeyAwayFrom(one);
                update(lutra, one, 9);
                update(lutra, other, 9); // and an XA branch
                try (var st = lutra.createStatement()) {
                    // a duplicate key: one partition's statement fails (and is undone there); or two partitions' statement half done
                    String failing = round % 2 == 0 ? "INSERT INTO t VALUES (" + one + ", 1)" : "INSERT INTO t VALUES (" + fresh + ", 1), (" + one + ", 1)";
                    var e = assertThrows(SQLException.class, () -> st.executeUpdate(failing));
                    assertEquals("23000", e.getSQLState(), e.getMessage());
                }
                boolean committed = false;
                if (round % 4 < 2) {
                    try {
                        lutra.commit();
                        committed = true;
                    } catch (SQLException e) {
                        // a transaction whose statement could not be undone alone is rolled back
                    }
                } else {
                    lutra.rollback();
                }
                assertValue(one, committed ? 9 : 0);
                assertValue(other, committed ? 9 : 0);
                assertEquals(0, rowsEverywhere(fresh), "the failed statement's insert is undone");
                afterwardsAutoCommitWritesAreVisible(lutra);
                try (var st = lutra.createStatement()) {
                    st.executeUpdate("UPDATE t SET v = 0 WHERE id IN (" + one + ", " + other + ")");
                }
            }
        }
    }

    /** A key not in the table whose row would go to another partition than {@code id}'s (found by inserting and deleting it). */
    private int freshKeyAwayFrom(int id) throws SQLException {
        int home = partitionOf(id);
        try (Connection lutra = router.connect(); var st = lutra.createStatement()) {
            while (true) {
                int key = nextId.incrementAndGet();
                st.executeUpdate("INSERT INTO t VALUES (" + key + ", 0)");
                int at = partitionOf(key);
                st.executeUpdate("DELETE FROM t WHERE id = " + key);
                if (at != home) return key;
            }
        }
    }

    private int partitionOf(int id) throws SQLException {
        for (int p = 0; p < PARTITIONS; p++) {
            try (var ps = direct.get(p).prepareStatement("SELECT 1 FROM t WHERE id = ?")) {
                ps.setInt(1, id);
                try (var rs = ps.executeQuery()) {
                    if (rs.next()) return p;
                }
            }
        }
        throw new AssertionError("row " + id + " is on no partition");
    }

    @Test
    void afterItsClientIsGoneMidTransactionTheConnectionsRunAutoCommitWritesCommitted() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            int one = onPartition.get(round % PARTITIONS);
            int other = onPartition.get((round + 2) % PARTITIONS);
            int inserted = nextId.incrementAndGet();
            Connection gone = router.connect();
            gone.setAutoCommit(false);
            update(gone, one, 5);
            try (var st = gone.createStatement()) {
                st.executeUpdate("INSERT INTO t VALUES (" + inserted + ", 5)");
            }
            if (round % 2 == 0) update(gone, other, 5); // and an XA branch
            if (round % 2 == 0) {
                gone.abort(Runnable::run); // its socket closed under it
            } else {
                gone.close(); // closed without COMMIT or ROLLBACK
            }
            // the router rolls the session's transaction back as it notices: its locks go, its writes are nowhere
            awaitUnlocked(one);
            awaitUnlocked(other);
            assertValue(one, 0);
            assertValue(other, 0);
            assertEquals(0, rowsEverywhere(inserted), "the gone client's insert was never committed");
            try (Connection lutra = router.connect()) {
                afterwardsAutoCommitWritesAreVisible(lutra);
                lutra.setAutoCommit(false); // and the next transactions on those connections commit only their own work
                update(lutra, one, 6);
                lutra.commit();
                assertValue(one, 6);
                assertEquals(0, rowsEverywhere(inserted), "not committed by the transaction that used the connection next");
                update(lutra, one, 0);
                lutra.commit();
            }
        }
    }

    /**
     * Auto-commit writes through the router on every partition (and a few at once, so that every pooled connection serves
     * one), each visible to the partition's own plain connection as soon as it returns.
     */
    private void afterwardsAutoCommitWritesAreVisible(Connection lutra) throws Exception {
        lutra.setAutoCommit(true);
        for (int i = 0; i < 3 * PARTITIONS; i++) {
            int id = nextId.incrementAndGet();
            try (var ps = lutra.prepareStatement("INSERT INTO t VALUES (?, 1)")) {
                ps.setInt(1, id);
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(1, rowsEverywhere(id), "auto-commit insert of " + id + " committed when it returned");
            int existing = onPartition.get(i % PARTITIONS);
            try (var ps = lutra.prepareStatement("UPDATE t SET v = v WHERE id = ?")) {
                ps.setInt(1, existing);
                ps.executeUpdate();
            }
            assertUnlocked(existing); // the auto-commit update's row lock went with its commit
        }
    }

    private static void update(Connection lutra, int id, int v) throws SQLException {
        try (var ps = lutra.prepareStatement("UPDATE t SET v = ? WHERE id = ?")) {
            ps.setInt(1, v);
            ps.setInt(2, id);
            assertEquals(1, ps.executeUpdate());
        }
    }

    private static void readAll(Connection lutra) throws SQLException {
        try (var st = lutra.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM t")) {
            assertTrue(rs.next());
            assertTrue(rs.getLong(1) >= 40);
        }
    }

    /** How many rows with {@code id} the partitions' own databases hold, each read by a plain auto-commit connection. */
    private int rowsEverywhere(int id) throws SQLException {
        int rows = 0;
        for (Connection c : direct) {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM t WHERE id = ?")) {
                ps.setInt(1, id);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    rows += rs.getInt(1);
                }
            }
        }
        return rows;
    }

    private void assertValue(int id, int v) throws SQLException {
        for (Connection c : direct) {
            try (var ps = c.prepareStatement("SELECT v FROM t WHERE id = ?")) {
                ps.setInt(1, id);
                try (var rs = ps.executeQuery()) {
                    if (rs.next()) {
                        assertEquals(v, rs.getInt(1), "row " + id + " as its partition holds it");
                        return;
                    }
                }
            }
        }
        fail("row " + id + " is on no partition");
    }

    /** Whether a plain connection can lock row {@code id} at once (NOWAIT): no transaction holds a lock on it. */
    private boolean unlocked(int id) throws SQLException {
        for (Connection c : direct) {
            c.setAutoCommit(false);
            try (var ps = c.prepareStatement("SELECT v FROM t WHERE id = ? FOR UPDATE NOWAIT")) {
                ps.setInt(1, id);
                ps.executeQuery().close();
            } catch (SQLException e) {
                if (e.getErrorCode() != 1205 && e.getErrorCode() != 3572) throw e; // MariaDB's NOWAIT: a lock wait timeout at once
                return false;
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        return true;
    }

    private void assertUnlocked(int id) throws SQLException {
        assertTrue(unlocked(id), "row " + id + " is locked by no transaction");
    }

    /** Waits (at most 30 s) for a gone client's transaction to be rolled back: the router does so as it notices the client is gone. */
    private void awaitUnlocked(int id) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!unlocked(id)) {
            assertTrue(System.nanoTime() < until, "row " + id + " still locked 30 s after its transaction's client went away");
            Thread.sleep(50);
        }
    }
}
