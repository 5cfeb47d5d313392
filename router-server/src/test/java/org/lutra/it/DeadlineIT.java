package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Statement deadlines through the driver over real shards: a statement blocked on a shard (here
 * by another session's row lock, with the lock wait timeout far away) is stopped there by KILL
 * QUERY when its deadline passes, the client gets MariaDB's max_statement_time error, nothing the
 * statement changed is kept, and the session goes on.
 */
@ExtendWith({EmbeddedShardsExtension.class, HeapReport.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadlineIT {
    static final long ROUTER_TIMEOUT_MS = 2_500;
    /** Far beyond every deadline here: only the deadline can end the wait. */
    static final int LOCK_WAIT_SECONDS = 30;

    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        var limits = new RouterConfig.Limits(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ROUTER_TIMEOUT_MS);
        router = new TestRouter(shards, "deadlineit", """
                CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
                CREATE TABLE ledger (k INT PRIMARY KEY, n INT NOT NULL) PARTITION BY hash(k) ON (p0, p1, p2, p3);
                """,
                new RouterConfig.Transactions("deadlineit", LOCK_WAIT_SECONDS, 0, 0), shards.size(), limits);
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
        router.close();
    }

    @Test
    void aWriteOverAllPartitionsPastTheClientsQueryTimeoutIsKilledAndChangesNothing() throws Exception {
        try (var blocker = lockRow(1); var c = router.connect(); var st = c.createStatement()) {
            st.setQueryTimeout(1);
            var e = timedOut(st, "UPDATE kv SET v = 'late'", 1_000);
            assertTrue(e.getMessage().contains("max_statement_time"), e.getMessage());
            blocker.rollback();
            assertEquals(0, count(st, "SELECT COUNT(*) FROM kv WHERE v = 'late'"), "no partition kept the statement's rows");
            assertEquals(8, count(st, "SELECT COUNT(*) FROM kv"), "the session goes on");
        }
        // the killed branch's connection goes back once its server answered the KILL: on a busy machine after the next statements
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (router.server.activeBackendConnections() != 0 && System.nanoTime() < until) Thread.sleep(50);
        assertEquals(0, router.server.activeBackendConnections(), "no backend connection stays borrowed");
    }

    @Test
    void theRoutersStatementTimeoutAppliesWithoutAClientTimeout() throws Exception {
        try (var blocker = lockRow(1); var c = router.connect(); var st = c.createStatement()) {
            timedOut(st, "UPDATE kv SET v = 'late' WHERE k = 1", ROUTER_TIMEOUT_MS);
            blocker.rollback();
            assertEquals(0, count(st, "SELECT COUNT(*) FROM kv WHERE v = 'late'"));
        }
    }

    @Test
    void inATransactionTheTimeoutRollsTheTransactionBack() throws Exception {
        try (var blocker = lockRow(1); var c = router.connect(); var st = c.createStatement()) {
            c.setAutoCommit(false);
            st.executeUpdate("UPDATE kv SET v = 'mine' WHERE k = 2");
            st.setQueryTimeout(1);
            var e = timedOut(st, "UPDATE kv SET v = 'mine' WHERE k = 1", 1_000);
            assertTrue(e.getMessage().contains("the whole transaction was rolled back"), e.getMessage());
            c.rollback();
            blocker.rollback();
            c.setAutoCommit(true);
            assertEquals(0, count(st, "SELECT COUNT(*) FROM kv WHERE v = 'mine'"), "the transaction's earlier write is gone too");
        }
    }

    @Test
    void aStatementWithinItsDeadlineIsUntouched() throws Exception {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.setQueryTimeout(1);
            for (int i = 0; i < 50; i++) assertEquals(8, count(st, "SELECT COUNT(*) FROM kv"));
            assertEquals(8, st.executeUpdate("UPDATE kv SET v = 'b'"));
        }
    }

    @Test
    void statementCancelFromAnotherThreadStopsItOnItsShards() throws Exception {
        try (var blocker = lockRow(1); var c = router.connect(); var st = c.createStatement()) {
            st.cancel(); // nothing runs: nothing happens
            assertEquals(8, count(st, "SELECT COUNT(*) FROM kv"));
            var canceller = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(500);
                    st.cancel();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            long t0 = System.nanoTime();
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE kv SET v = 'late'"));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            canceller.get();
            assertEquals("70100", e.getSQLState(), e.getMessage());
            assertEquals(1317, e.getErrorCode(), e.getMessage());
            assertTrue(ms < 3_000, "cancelled after " + ms + " ms");
            System.err.println("DeadlineIT: cancel after 500 ms answered after " + ms + " ms");
            blocker.rollback();
            assertEquals(0, count(st, "SELECT COUNT(*) FROM kv WHERE v = 'late'"), "no partition kept the statement's rows");
            assertEquals(8, count(st, "SELECT COUNT(*) FROM kv"), "the session goes on");
        }
    }

    /**
     * Without assuming when a kill lands: 4 clients run one write over all partitions in a loop while
     * a fifth holds a row lock now and then, and statements are cut at random moments by 1 s query
     * timeouts, the router's 2.5 s statement timeout and cancels sent 0-40 ms into them (or into the
     * next statement). The clients' ledger counts acknowledged statements; afterwards every row must
     * hold exactly that count: an interrupted statement changed nothing on any partition, an
     * acknowledged one everything.
     */
    @Test
    void randomTimeoutsAndCancelsLeaveEveryWriteAllOrNothing() throws Exception {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.executeUpdate("DELETE FROM ledger");
            st.executeUpdate("INSERT INTO ledger VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0)");
        }
        long end = System.nanoTime() + 8_000_000_000L;
        var acknowledged = new java.util.concurrent.atomic.AtomicLong();
        var interrupted = new java.util.concurrent.atomic.AtomicLong();
        var unexpected = new java.util.concurrent.ConcurrentLinkedQueue<String>();
        var cancels = java.util.concurrent.Executors.newScheduledThreadPool(2);
        var threads = java.util.concurrent.Executors.newFixedThreadPool(5);
        try {
            var tasks = new java.util.ArrayList<java.util.concurrent.Future<?>>();
            tasks.add(threads.submit(() -> {
                var rnd = java.util.concurrent.ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    try (var locker = lockRow(rnd.nextInt(1, 9))) {
                        Thread.sleep(rnd.nextInt(0, 1_500));
                        locker.rollback();
                    }
                    Thread.sleep(rnd.nextInt(0, 300));
                }
                return null;
            }));
            for (int w = 0; w < 4; w++) {
                tasks.add(threads.submit(() -> {
                    var rnd = java.util.concurrent.ThreadLocalRandom.current();
                    try (var c = router.connect(); var st = c.createStatement()) {
                        while (System.nanoTime() < end) {
                            st.setQueryTimeout(rnd.nextBoolean() ? 1 : 0);
                            if (rnd.nextInt(3) == 0) {
                                cancels.schedule(() -> {
                                    try {
                                        st.cancel();
                                    } catch (SQLException e) {
                                        // the worker's last cancel may fire after its run ended and its statement was closed
                                        if (System.nanoTime() < end) unexpected.add("cancel: " + e.getSQLState() + " " + e.getMessage());
                                    }
                                }, rnd.nextInt(0, 40), java.util.concurrent.TimeUnit.MILLISECONDS);
                            }
                            try {
                                assertEquals(8, st.executeUpdate("UPDATE ledger SET n = n + 1"));
                                acknowledged.incrementAndGet();
                            } catch (SQLException e) {
                                if ("70100".equals(e.getSQLState())) interrupted.incrementAndGet();
                                else unexpected.add(e.getSQLState() + " " + e.getErrorCode() + " " + e.getMessage());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (var t : tasks) t.get();
        } finally {
            cancels.shutdown();
            cancels.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            threads.shutdownNow();
        }
        System.err.println("DeadlineIT: ledger " + acknowledged + " acknowledged, " + interrupted + " interrupted, " + unexpected.size() + " other errors");
        assertTrue(unexpected.isEmpty(), String.join("\n", unexpected));
        assertTrue(acknowledged.get() > 0 && interrupted.get() > 0, acknowledged + " acknowledged, " + interrupted + " interrupted: the run proved nothing");
        try (var c = router.connect(); var rs = c.createStatement().executeQuery("SELECT k, n FROM ledger ORDER BY k")) {
            while (rs.next()) assertEquals(acknowledged.get(), rs.getLong(2), "row " + rs.getInt(1) + " against the clients' ledger");
        }
        long settle = System.nanoTime() + 5_000_000_000L; // locking transactions and snapshots end off the client's path
        while (router.server.activeBackendConnections() != 0 && System.nanoTime() < settle) Thread.sleep(50);
        assertEquals(0, router.server.activeBackendConnections(), "no backend connection stays borrowed");
    }

    /** A session whose open transaction holds row {@code k}'s lock. */
    /**
     * A Cancel names the request it stops (the driver sends the id of the request it waits on): one
     * that names another request — an earlier statement, whose answer crossed the Cancel — leaves
     * the running statement alone, which once stopped whatever the session ran when it arrived.
     */
    @Test
    void aCancelStopsTheRequestItNamesAndNoOther() throws Exception {
        try (var session = new RawSession(router)) {
            try (var blocker = lockRow(1)) {
                session.execute(7, "UPDATE kv SET v = 'seven' WHERE k = 1"); // waits on the row lock
                Thread.sleep(300);
                session.cancel(6); // the request before it, already answered
                Thread.sleep(300);
                blocker.rollback();
            }
            var answer = session.answer();
            assertTrue(answer.hasUpdateResult(), "a cancel for request 6 left request 7 alone: " + answer);
            assertEquals(1, answer.getUpdateResult().getUpdateCount());
            try (var blocker = lockRow(2)) {
                session.execute(8, "UPDATE kv SET v = 'eight' WHERE k = 2");
                Thread.sleep(300);
                long t0 = System.nanoTime();
                session.cancel(8);
                var stopped = session.answer();
                assertTrue(stopped.hasError(), "request 8 was cancelled: " + stopped);
                assertEquals("70100", stopped.getError().getSqlState());
                assertEquals(1317, stopped.getError().getVendorCode());
                assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "stopped by the cancel, not by the 2.5 s statement timeout");
                blocker.rollback();
            }
        }
        try (var c = router.connect(); var st = c.createStatement()) {
            assertEquals(1, count(st, "SELECT COUNT(*) FROM kv WHERE v = 'seven'"));
            assertEquals(0, count(st, "SELECT COUNT(*) FROM kv WHERE v = 'eight'"), "the cancelled update changed nothing");
        }
    }

    private Connection lockRow(int k) throws SQLException {
        var c = router.connect();
        c.setAutoCommit(false);
        try (var st = c.createStatement()) {
            assertEquals(1, st.executeUpdate("UPDATE kv SET v = 'held' WHERE k = " + k));
        }
        return c;
    }

    /** Runs {@code sql}, which must fail with the deadline's error soon after {@code deadlineMs}, long before the lock wait would end. */
    private static SQLException timedOut(Statement st, String sql, long deadlineMs) {
        long t0 = System.nanoTime();
        var e = assertThrows(SQLException.class, () -> st.executeUpdate(sql));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.err.println("DeadlineIT: " + sql + " answered after " + ms + " ms (deadline " + deadlineMs + " ms)");
        assertEquals("70100", e.getSQLState(), e.getMessage());
        assertEquals(1969, e.getErrorCode(), e.getMessage());
        assertTrue(ms >= deadlineMs - 100 && ms < deadlineMs + 4_000, "answered after " + ms + " ms for a deadline of " + deadlineMs + " ms");
        return e;
    }

    private static long count(Statement st, String sql) throws SQLException {
        try (var rs = st.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
