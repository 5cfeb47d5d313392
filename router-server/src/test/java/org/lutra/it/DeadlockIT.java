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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Deadlocks across partitions, which no shard sees, found by the router's detector from the shards' lock-wait views
 * (docs/transactions.md). The lock wait timeout is 60 s here: within a test only the detector can end such a deadlock, and
 * the counters say which did. Each partition is on a server of its own.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadlockIT {
    /** Account n of partition p has id 100 * p + n; every account starts with 100. */
    static final String SCHEMA = """
            CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)
              PARTITION BY range(id) ON (p0 < 100, p1 < 200, p2 < 300, p3);
            """;
    static final int LOCK_WAIT_SECONDS = 60;
    static final int ACCOUNTS_PER_PARTITION = 10;

    TestRouter router;
    /** A second router on the same partitions (its own name, its own transactions). */
    TestRouter other;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "deadlockit", SCHEMA, new RouterConfig.Transactions("dl1", LOCK_WAIT_SECONDS, 1, 5));
        other = new TestRouter(router, "dl2", List.of());
    }

    @AfterAll
    void stop() throws Exception {
        other.stopRouter();
        router.close();
    }

    @BeforeEach
    void resetAccounts() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.executeUpdate("DELETE FROM accounts");
            var values = new ArrayList<String>();
            for (int p = 0; p < 4; p++) {
                for (int n = 1; n <= ACCOUNTS_PER_PARTITION; n++) values.add("(" + (100 * p + n) + ", 100)");
            }
            st.executeUpdate("INSERT INTO accounts (id, balance) VALUES " + String.join(", ", values));
        }
    }

    /** Two sessions lock a row each on two partitions, then each asks for the other's: one is the victim, the other commits. */
    @Test
    void twoSessionsLockingInOppositeOrdersOneIsTheVictim() throws Exception {
        var before = Counters.of(router, other);
        try (var a = router.connect(); var b = router.connect()) {
            var outcomes = cycle(List.of(a, b), List.of(1, 101));
            assertOneVictim(outcomes);
            int survivor = outcomes.get(0) == null ? 0 : 1;
            // the survivor moved 10 from its first account to its second, as if it had run alone
            var expected = survivor == 0 ? Map.of(1, 90L, 101, 110L) : Map.of(101, 90L, 1, 110L);
            assertEquals(expected, balancesOnShards(List.of(1, 101)));
        }
        var after = Counters.of(router, other);
        assertEquals(1, after.detected - before.detected, "found by the detector: " + after);
        assertEquals(before.byTimeout, after.byTimeout, "none waited out the lock wait timeout");
        var status = status(router);
        assertEquals(String.valueOf(Counters.of(router).detected), status.get("deadlocks_detected"), status.toString());
        assertEquals("0", status.get("deadlocks_by_timeout"), status.toString());
    }

    /**
     * An auto-commit statement over two partitions meets a transaction in a cycle: its sub-queries hold 101 on p1 and wait for
     * 1 on p0, which the transaction holds while it asks for 101. The statement is the younger, the victim; nothing of it was
     * visible, so the router runs it again, and both end as if they had run one after the other: no error reaches either.
     */
    @Test
    void anAutoCommitVictimIsRunAgain() throws Exception {
        var before = Counters.of(router, other);
        long restartsBefore = router.server.transactions().stats().deadlockRestarts.sum();
        try (var a = router.connect(); var x = router.connect()) {
            a.setAutoCommit(false);
            update(a, 1, -10);
            var statement = async(() -> assertEquals(2, x.createStatement().executeUpdate("UPDATE accounts SET balance = balance * 2 WHERE id IN (1, 101)")));
            awaitLocked(1, 101);
            update(a, 101, +10);
            a.commit();
            assertNull(outcome(statement), "the auto-commit statement answered");
        }
        // the transaction first, then the statement: (100 - 10) * 2 and (100 + 10) * 2
        assertEquals(Map.of(1, 180L, 101, 220L), balancesOnShards(List.of(1, 101)));
        var after = Counters.of(router, other);
        assertEquals(1, after.detected - before.detected, after.toString());
        assertEquals(1, router.server.transactions().stats().deadlockRestarts.sum() - restartsBefore, "run again once");
        assertEquals(String.valueOf(router.server.transactions().stats().deadlockRestarts.sum()), status(router).get("deadlock_restarts"));
    }

    /**
     * The victim's session starts its next transaction with BEGIN, as after one MariaDB's deadlocks (sysbench's oltp_read_write
     * and frameworks retry so): the deadlock ended its transaction whole and the session was told. Any other statement still
     * asks for the ROLLBACK first (25000).
     */
    @Test
    void aVictimBeginsItsNextTransactionWithBegin() throws Exception {
        try (var a = router.connect(); var b = router.connect()) {
            var sessions = List.of(a, b);
            int[] first = {1, 101};
            for (int i = 0; i < 2; i++) {
                sessions.get(i).createStatement().execute("BEGIN");
                update(sessions.get(i), first[i], -10);
            }
            var futures = new ArrayList<CompletableFuture<Void>>();
            for (int i = 0; i < 2; i++) {
                var c = sessions.get(i);
                int next = first[(i + 1) % 2];
                futures.add(async(() -> {
                    update(c, next, +10);
                    c.createStatement().execute("COMMIT");
                }));
            }
            var outcomes = new ArrayList<SQLException>();
            for (var f : futures) outcomes.add(outcome(f));
            assertOneVictim(outcomes);
            int victim = outcomes.get(0) != null ? 0 : 1;
            var v = sessions.get(victim);
            var refused = assertThrows(SQLException.class, () -> update(v, 201, -1));
            assertEquals("25000", refused.getSQLState(), refused.getMessage());
            v.createStatement().execute("BEGIN");
            update(v, 201, -5);
            v.createStatement().execute("COMMIT");
            int survivor = 1 - victim;
            assertEquals(Map.of(first[survivor], 90L, first[victim], 110L, 201, 95L), balancesOnShards(List.of(1, 101, 201)),
                    "the survivor's transfer and the victim's next transaction, nothing of its first");
        }
    }

    /** Until account {@code id}, on partition {@code partition}, is locked by someone: SKIP LOCKED on the partition itself skips it. */
    private void awaitLocked(int partition, int id) throws Exception {
        try (var c = router.partition(partition); var ps = c.prepareStatement("SELECT id FROM accounts WHERE id = ? FOR UPDATE SKIP LOCKED")) {
            ps.setInt(1, id);
            for (int i = 0; i < 3_000; i++) {
                try (var rs = ps.executeQuery()) {
                    if (!rs.next()) return;
                }
                Thread.sleep(10);
            }
        }
        fail("account " + id + " was never locked");
    }

    /** A cycle of three: A waits for B on p1, B for C on p2, C for A on p0. One victim; the two others commit. */
    @Test
    void aCycleOfThreeSessionsOverThreePartitions() throws Exception {
        var before = Counters.of(router, other);
        try (var a = router.connect(); var b = router.connect(); var c = router.connect()) {
            var outcomes = cycle(List.of(a, b, c), List.of(1, 101, 201));
            assertOneVictim(outcomes);
            var expected = new HashMap<>(Map.of(1, 100L, 101, 100L, 201, 100L));
            int[] first = {1, 101, 201};
            for (int i = 0; i < 3; i++) {
                if (outcomes.get(i) != null) continue;
                expected.merge(first[i], -10L, Long::sum);
                expected.merge(first[(i + 1) % 3], 10L, Long::sum);
            }
            assertEquals(expected, balancesOnShards(List.of(1, 101, 201)));
        }
        var after = Counters.of(router, other);
        assertEquals(1, after.detected - before.detected, after.toString());
        assertEquals(before.byTimeout, after.byTimeout);
    }

    /**
     * The two transactions of the cycle run through two routers: each router knows its own branches only, and sees the
     * other's through what it publishes. Both pick the same victim; only its own router rolls it back.
     */
    @Test
    void aCycleAcrossTwoRouters() throws Exception {
        var before = Counters.of(router, other);
        try (var a = router.connect(); var b = other.connect()) {
            var outcomes = cycle(List.of(a, b), List.of(2, 102));
            assertOneVictim(outcomes);
            int survivor = outcomes.get(0) == null ? 0 : 1;
            var expected = survivor == 0 ? Map.of(2, 90L, 102, 110L) : Map.of(102, 90L, 2, 110L);
            assertEquals(expected, balancesOnShards(List.of(2, 102)));
            // the victim's own router broke the cycle
            var victimRouter = survivor == 0 ? other : router;
            var after = Counters.of(router, other);
            assertEquals(1, after.detected - before.detected, after.toString());
            assertEquals(1, Counters.of(victimRouter).detected - (survivor == 0 ? before.detectedOther : before.detectedFirst), after.toString());
            assertEquals(before.byTimeout, after.byTimeout);
        }
    }

    /**
     * A cycle through a session that is no router's (an administrator's, on p0's server): A holds row 3 and waits for B on
     * p1; B holds row 103 and waits for the administrator on p0, who waits for A on p0. No shard sees it (p0's sees two
     * waits, no cycle); the router breaks it by rolling back one of its own, the two others go on.
     */
    @Test
    void aCycleThroughAnAdministratorsSessionIsBrokenByARouterTransaction() throws Exception {
        var before = Counters.of(router, other);
        try (var a = router.connect(); var b = router.connect(); var admin = router.partition(0)) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            admin.setAutoCommit(false);
            update(a, 3, -10);
            update(b, 103, -10);
            update(admin, 4, -10);
            var fa = async(() -> update(a, 103, +10));
            var fb = async(() -> update(b, 4, +10));
            var fAdmin = async(() -> update(admin, 3, +10));
            try {
                CompletableFuture.anyOf(fa, fb).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException victimFailed) {
                // looked at below
            }
            if (fa.isDone() && fa.isCompletedExceptionally()) {
                // A is the victim: its row 3 goes to the administrator, whose row 4 then goes to B
                assertVictim(outcome(fa));
                a.rollback();
                assertNull(outcome(fAdmin), "the administrator's session goes on");
                admin.commit();
                assertNull(outcome(fb));
                b.commit();
            } else {
                // B is the victim: its row 103 goes to A, which commits and frees row 3 for the administrator
                assertVictim(outcome(fb));
                b.rollback();
                assertNull(outcome(fa));
                a.commit();
                assertNull(outcome(fAdmin), "the administrator's session goes on");
                admin.commit();
            }
        }
        var after = Counters.of(router, other);
        assertEquals(1, after.detected - before.detected, after.toString());
        assertEquals(before.byTimeout, after.byTimeout);
    }

    /**
     * With the detector off (deadlock_check_ms negative) the same cycle ends at the lock wait timeout: a suspected deadlock
     * (40001, 1213), counted as found by timeout — what the counters compare.
     */
    @Test
    void withTheDetectorOffTheLockWaitTimeoutEndsTheCycle(Shards shards) throws Exception {
        try (var off = new TestRouter(shards, "deadlockoff", SCHEMA, new RouterConfig.Transactions("dloff", 2, 1, 5, 0, 0, 0, -1))) {
            try (var c = off.connect(); var st = c.createStatement()) {
                st.executeUpdate("INSERT INTO accounts (id, balance) VALUES (1, 100), (101, 100)");
            }
            try (var a = off.connect(); var b = off.connect()) {
                var outcomes = cycle(List.of(a, b), List.of(1, 101));
                var errors = outcomes.stream().filter(java.util.Objects::nonNull).toList();
                assertFalse(errors.isEmpty(), outcomes.toString());
                for (var e : errors) {
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                    assertEquals(1213, e.getErrorCode(), e.getMessage());
                    assertTrue(e.getMessage().startsWith("Deadlock suspected"), e.getMessage());
                }
            }
            var s = off.server.transactions().stats();
            assertEquals(0, s.deadlocksDetected.sum());
            assertEquals(0, s.deadlockChecks.sum(), "the detector never looked");
            assertTrue(s.deadlocksByTimeout.sum() >= 1, "found by timeout: " + s.deadlocksByTimeout.sum());
            assertEquals(String.valueOf(s.deadlocksByTimeout.sum()), status(off).get("deadlocks_by_timeout"));
        }
    }

    /** A waits for B, which holds locks on two partitions and takes its time, then commits: no cycle, nobody is rolled back. */
    @Test
    void aLockWaitWithoutACycleIsNotAborted() throws Exception {
        var before = Counters.of(router, other);
        try (var a = router.connect(); var b = router.connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            update(b, 5, -10);
            update(b, 105, +10);
            update(a, 205, -10);
            var waits = async(() -> update(a, 5, +10)); // waits for b on p0
            Thread.sleep(1_500); // b thinks: the detector looks at the shards several times meanwhile
            assertFalse(waits.isDone(), "a waits for b's lock");
            b.commit();
            assertNull(outcome(waits));
            a.commit();
        }
        assertEquals(Map.of(5, 100L, 105, 110L, 205, 90L), balancesOnShards(List.of(5, 105, 205)));
        var after = Counters.of(router, other);
        assertEquals(before.detected, after.detected, after.toString());
        assertEquals(before.byTimeout, after.byTimeout);
        assertTrue(after.checks > before.checks, "the detector looked at the shards while a waited: " + after);
    }

    /** A router transaction waits for a lock an administrator's session holds on p0 (no cycle): left to finish, not aborted. */
    @Test
    void aWaitForANonRouterSessionsLockIsNotAborted() throws Exception {
        var before = Counters.of(router, other);
        try (var t = router.connect(); var admin = router.partition(0)) {
            admin.setAutoCommit(false);
            update(admin, 6, +1);
            t.setAutoCommit(false);
            update(t, 106, -10);
            var waits = async(() -> update(t, 6, +10)); // waits on p0 for the administrator
            Thread.sleep(1_500);
            assertFalse(waits.isDone(), "t waits for the administrator's lock");
            admin.commit();
            assertNull(outcome(waits));
            t.commit();
        }
        assertEquals(Map.of(6, 111L, 106, 90L), balancesOnShards(List.of(6, 106)));
        var after = Counters.of(router, other);
        assertEquals(before.detected, after.detected, after.toString());
        assertTrue(after.checks > before.checks, after.toString());
    }

    /**
     * The bank under contention: sessions on both routers move money between random accounts of different partitions, each
     * transfer locking its two accounts in its own order; a deadlock victim retries. Every deadlock is the detector's (none
     * waits out the 60 s timeout), and the shards end holding exactly what the committed transfers say.
     */
    @Test
    void randomTransfersEveryDeadlockFoundByTheDetector() throws Exception {
        long seed = Long.getLong("lutra.seed", System.nanoTime());
        var before = Counters.of(router, other);
        int sessions = 8, transfers = 25, accounts = 2; // accounts 1 and 2 of each partition: hot rows
        var committed = new ConcurrentHashMap<Integer, Long>();
        var victims = new AtomicLong();
        var failure = new AtomicReference<Throwable>();
        var threads = new ArrayList<Thread>();
        for (int s = 0; s < sessions; s++) {
            var random = new Random(seed + s);
            var through = s % 2 == 0 ? router : other;
            threads.add(Thread.ofPlatform().start(() -> {
                try (var c = through.connect()) {
                    c.setAutoCommit(false);
                    for (int n = 0; n < transfers; n++) {
                        int pFrom = random.nextInt(4), pTo = (pFrom + 1 + random.nextInt(3)) % 4;
                        int from = 100 * pFrom + 1 + random.nextInt(accounts), to = 100 * pTo + 1 + random.nextInt(accounts);
                        long amount = 1 + random.nextInt(9);
                        for (int attempt = 1; ; attempt++) {
                            try {
                                update(c, from, -amount);
                                Thread.sleep(random.nextInt(4)); // the application thinks, holding its first lock
                                update(c, to, amount);
                                c.commit();
                                committed.merge(from, -amount, Long::sum);
                                committed.merge(to, amount, Long::sum);
                                break;
                            } catch (SQLException e) {
                                if (!"40001".equals(e.getSQLState()) || attempt == 20) throw e;
                                assertEquals(1213, e.getErrorCode(), e.getMessage());
                                victims.incrementAndGet();
                                c.rollback();
                            }
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (var t : threads) t.join();
        if (failure.get() != null) throw new AssertionError("seed " + seed, failure.get());
        var ids = new ArrayList<Integer>();
        for (int p = 0; p < 4; p++) for (int n = 1; n <= accounts; n++) ids.add(100 * p + n);
        var expected = new HashMap<Integer, Long>();
        for (int id : ids) expected.put(id, 100 + committed.getOrDefault(id, 0L));
        assertEquals(expected, balancesOnShards(ids), "seed " + seed + ": the shards hold what the committed transfers say");
        var after = Counters.of(router, other);
        System.out.printf("DeadlockIT: seed %d, %d sessions x %d transfers over 2 routers: %d victims retried, %d deadlocks found by the"
                + " detector, %d by timeout, %d checks of the shards' views%n", seed, sessions, transfers, victims.get(),
                after.detected - before.detected, after.byTimeout - before.byTimeout, after.checks - before.checks);
        assertEquals(before.byTimeout, after.byTimeout, "seed " + seed + ": no deadlock waited out the lock wait timeout");
        assertTrue(after.detected > before.detected, "seed " + seed + ": the transfers deadlocked across shards, and the detector found it");
        // each transfer holds one row and waits for one on another server: no shard can see a cycle of them, so every
        // victim the sessions saw is one the detector chose
        assertEquals(after.detected - before.detected, victims.get(), "seed " + seed);
    }

    // ---- helpers --------------------------------------------------------------------------------

    /**
     * Session i takes account {@code first.get(i)}, then asks for the next session's: a cycle of lock waits over the
     * partitions. Each session commits if its second update goes through; returns each session's error, or null.
     */
    private static List<SQLException> cycle(List<Connection> sessions, List<Integer> first) throws Exception {
        int n = sessions.size();
        for (int i = 0; i < n; i++) {
            sessions.get(i).setAutoCommit(false);
            update(sessions.get(i), first.get(i), -10);
        }
        var futures = new ArrayList<CompletableFuture<Void>>();
        for (int i = 0; i < n; i++) {
            var c = sessions.get(i);
            int next = first.get((i + 1) % n);
            futures.add(async(() -> {
                update(c, next, +10);
                c.commit();
            }));
        }
        var outcomes = new ArrayList<SQLException>();
        for (int i = 0; i < n; i++) {
            SQLException e = outcome(futures.get(i));
            outcomes.add(e);
            if (e != null) sessions.get(i).rollback();
        }
        return outcomes;
    }

    private static void assertOneVictim(List<SQLException> outcomes) {
        var errors = outcomes.stream().filter(java.util.Objects::nonNull).toList();
        assertEquals(1, errors.size(), "exactly one victim: " + outcomes);
        assertVictim(errors.getFirst());
    }

    private static void assertVictim(SQLException e) {
        assertEquals("40001", e.getSQLState(), e.getMessage());
        assertEquals(1213, e.getErrorCode(), e.getMessage());
        assertTrue(e.getMessage().startsWith("Deadlock found when trying to get lock") && e.getMessage().contains("deadlock across shards"),
                e.getMessage());
    }

    private interface Work {
        void run() throws SQLException;
    }

    private static CompletableFuture<Void> async(Work work) {
        var f = new CompletableFuture<Void>();
        Thread.ofPlatform().start(() -> {
            try {
                work.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** The work's SQLException, or null if it succeeded; fails on anything else, or after 30 s (half the lock wait timeout). */
    private static SQLException outcome(CompletableFuture<Void> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof SQLException s) return s;
            throw e;
        }
    }

    private static void update(Connection c, int id, long delta) throws SQLException {
        try (var ps = c.prepareStatement("UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
            ps.setLong(1, delta);
            ps.setInt(2, id);
            assertEquals(1, ps.executeUpdate(), "account " + id);
        }
    }

    /** Balances read on the partitions themselves, not through a router. */
    private Map<Integer, Long> balancesOnShards(List<Integer> ids) throws SQLException {
        var balances = new HashMap<Integer, Long>();
        for (int id : ids) {
            try (var c = router.partition(id / 100); var ps = c.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
                ps.setInt(1, id);
                try (var rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "account " + id);
                    balances.put(id, rs.getLong(1));
                }
            }
        }
        return balances;
    }

    private static Map<String, String> status(TestRouter r) throws SQLException {
        var status = new HashMap<String, String>();
        try (var c = r.connect(); var rs = c.createStatement().executeQuery("SHOW LUTRA STATUS")) {
            while (rs.next()) status.put(rs.getString("Variable_name"), rs.getString("Value"));
        }
        return status;
    }

    /** The routers' deadlock counters, summed; and the first's and the second's own detections. */
    private record Counters(long detected, long byTimeout, long checks, long detectedFirst, long detectedOther) {
        static Counters of(TestRouter... routers) {
            long detected = 0, byTimeout = 0, checks = 0;
            for (var r : routers) {
                var s = r.server.transactions().stats();
                detected += s.deadlocksDetected.sum();
                byTimeout += s.deadlocksByTimeout.sum();
                checks += s.deadlockChecks.sum();
            }
            return new Counters(detected, byTimeout, checks, routers[0].server.transactions().stats().deadlocksDetected.sum(),
                    routers.length > 1 ? routers[1].server.transactions().stats().deadlocksDetected.sum() : 0);
        }
    }
}
