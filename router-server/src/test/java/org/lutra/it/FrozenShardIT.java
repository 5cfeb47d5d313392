package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A shard that stops answering without closing its sockets (SIGSTOP: the kernel still accepts
 * connections and acknowledges bytes, the server reads nothing). No statement deadline is set
 * here, so only the router's backend watch can end the wait: statements waiting on the frozen
 * shard fail within a bound with 2013 and say why, sessions on other partitions do not notice,
 * a transaction with a branch there is rolled back (its locks on healthy shards released), and
 * once the shard runs again everything works without restarting the router. The shard is
 * always thawed in a finally block, so a failing test never leaves it frozen for the next class.
 */
@ExtendWith({EmbeddedShardsExtension.class, HeapReport.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrozenShardIT {
    static final int PING_TIMEOUT_MS = 1_000;
    /** A wait is noticed after one to two ping timeouts, then the ping itself times out; the rest is slack for a busy machine. */
    static final long DETECTION_BOUND_MS = 3 * PING_TIMEOUT_MS + 4_000;
    static final int FROZEN = 3; // shard 3 holds partition p3: keys k with k mod 4 = 3

    Shards shards;
    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        assumeTrue(shards.canKill(), "freezing needs shards this JVM started");
        this.shards = shards;
        router = new TestRouter(shards, "frozenit", """
                CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
                """, new RouterConfig.Transactions("frozenit", 5, 0, 0), shards.size(), null, 8, PING_TIMEOUT_MS);
    }

    @BeforeEach
    void rows() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.executeUpdate("DELETE FROM kv");
            st.executeUpdate("INSERT INTO kv VALUES (1, 'a'), (2, 'a'), (3, 'a'), (4, 'a'), (5, 'a'), (6, 'a'), (7, 'a'), (8, 'a')");
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (router != null) router.close();
    }

    @Test
    void aReadWaitingOnAFrozenShardFailsWithinTheBoundWhileOtherPartitionsAnswer() throws Exception {
        try (var c = router.connect(); var other = router.connect(); var st = c.createStatement(); var ost = other.createStatement()) {
            long start = System.nanoTime();
            SQLException failure = whileFrozen(() -> {
                var waiting = Executors.newVirtualThreadPerTaskExecutor().submit(() -> st.executeQuery("SELECT v FROM kv WHERE k = 3"));
                Thread.sleep(200);
                assertEquals("a", value(ost, "SELECT v FROM kv WHERE k = 1"), "another partition answers while p3 is frozen");
                var e = assertThrows(ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
                return (SQLException) e.getCause();
            });
            long millis = elapsedMillis(start);
            System.out.println("FrozenShardIT: a point read on the frozen shard failed after " + millis + " ms: " + failure.getMessage());
            assertEquals(2013, failure.getErrorCode(), failure.getMessage());
            assertTrue(failure.getMessage().contains("did not answer"), failure.getMessage());
            assertTrue(millis < DETECTION_BOUND_MS, "answered after " + millis + " ms");
            assertEquals("a", value(st, "SELECT v FROM kv WHERE k = 3"), "the same session goes on once the shard runs again");
            assertEquals(8, value(st, "SELECT COUNT(*) FROM kv"));
        }
        awaitNoBorrowedConnections();
    }

    @Test
    void aStatementOverAllPartitionsFailsAsAWhole() throws Exception {
        try (var c = router.connect(); var st = c.createStatement()) {
            long start = System.nanoTime();
            SQLException failure = whileFrozen(() -> assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE kv SET v = 'all'")));
            long millis = elapsedMillis(start);
            System.out.println("FrozenShardIT: an update over all partitions failed after " + millis + " ms");
            assertEquals(2013, failure.getErrorCode(), failure.getMessage());
            assertTrue(millis < DETECTION_BOUND_MS, "answered after " + millis + " ms");
            assertEquals(0, value(st, "SELECT COUNT(*) FROM kv WHERE v = 'all'"), "an update over several partitions is all or nothing");
        }
        awaitNoBorrowedConnections();
    }

    @Test
    void aTransactionWithABranchOnTheFrozenShardIsRolledBackAndReleasesItsLocks() throws Exception {
        try (var c = router.connect(); var st = c.createStatement(); var other = router.connect(); var ost = other.createStatement()) {
            c.setAutoCommit(false);
            st.executeUpdate("UPDATE kv SET v = 'txn' WHERE k = 1"); // p1 holds its lock
            SQLException failure = whileFrozen(() -> {
                var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE kv SET v = 'txn' WHERE k = 3"));
                // the healthy branch is rolled back at once: k = 1 is free for others while p3 is still frozen
                assertEquals(1, ost.executeUpdate("UPDATE kv SET v = 'other' WHERE k = 1"));
                return e;
            });
            assertEquals(2013, failure.getErrorCode(), failure.getMessage());
            assertThrows(SQLException.class, c::commit, "the failed transaction cannot commit");
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(0, value(st, "SELECT COUNT(*) FROM kv WHERE v = 'txn'"), "nothing of the transaction is kept");
            assertEquals("other", value(st, "SELECT v FROM kv WHERE k = 1"));
        }
        awaitNoBorrowedConnections();
    }

    @Test
    void aLongStatementOnAHealthyShardIsNotCutOff() throws Exception {
        try (var c = router.connect(); var st = c.createStatement()) {
            long start = System.nanoTime();
            // waits three ping timeouts on p1: the watch pings it, the server answers, nothing is touched
            assertEquals("a", value(st, "SELECT v FROM kv WHERE k = 1 AND SLEEP(3) = 0"));
            assertTrue(elapsedMillis(start) >= 3_000);
        }
    }

    @Test
    void aStreamedResultStuckOnAFrozenShardFailsInsteadOfHanging() throws Exception {
        try (var c = router.connect(); var ps = c.prepareStatement("INSERT INTO kv VALUES (?, 'b')")) {
            for (int k = 100; k < 4_100; k++) {
                ps.setInt(1, k);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        try (var c = router.connect(); var st = c.createStatement()) {
            st.setFetchSize(10);
            SQLException failure;
            // 10 MB from p3: more than the sockets between it and the router buffer, so reading them needs the server
            try (var rs = st.executeQuery("SELECT k, REPEAT(v, 10000) FROM kv")) {
                assertTrue(rs.next());
                long start = System.nanoTime();
                failure = whileFrozen(() -> assertThrows(SQLException.class, () -> {
                    while (rs.next()) {
                        // reads until p3's rows are needed
                    }
                }));
                assertTrue(elapsedMillis(start) < DETECTION_BOUND_MS);
            }
            assertEquals(2013, failure.getErrorCode(), failure.getMessage());
            assertEquals("a", value(st, "SELECT v FROM kv WHERE k = 3"));
        }
        awaitNoBorrowedConnections();
    }

    /**
     * Runs {@code during} with the shard frozen, on a thread of its own and for at most a minute
     * (a socket read cannot be interrupted: a router that never answers must fail the test, not
     * hang it), and thaws the shard whatever happens.
     */
    private <T> T whileFrozen(Callable<T> during) throws Exception {
        var thread = Executors.newVirtualThreadPerTaskExecutor();
        try {
            shards.freeze(FROZEN);
            return thread.submit(during).get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) throw error;
            throw (Exception) e.getCause();
        } finally {
            shards.thaw(FROZEN);
            thread.shutdownNow();
        }
    }

    private void awaitNoBorrowedConnections() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (router.server.activeBackendConnections() != 0 && System.nanoTime() < until) Thread.sleep(50);
        assertEquals(0, router.server.activeBackendConnections(), "no backend connection stays borrowed");
        // the watch forgets them too, evicted ones included (else it would ping the partition for ever)
        while (router.server.watchedBackendConnections() != 0 && System.nanoTime() < until) Thread.sleep(50);
        assertEquals(0, router.server.watchedBackendConnections(), "the backend watch still counts connections as borrowed");
    }

    private static long elapsedMillis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static Object value(Statement st, String sql) throws SQLException {
        try (var rs = st.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            Object v = rs.getObject(1);
            return v instanceof Long l ? Integer.valueOf(l.intValue()) : v;
        }
    }
}
