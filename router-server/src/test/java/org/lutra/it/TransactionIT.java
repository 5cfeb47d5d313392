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
import org.lutra.txn.TxnStats;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Transactions through the router against real shards: what commits, what rolls back, which
 * commit path runs, and the failures applications must be able to handle.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionIT {
    /** Account n of partition p has id 100 * p + n. */
    static final String SCHEMA = """
            CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL, CONSTRAINT no_overdraft CHECK (balance >= 0))
              PARTITION BY range(id) ON (p0 < 100, p1 < 200, p2 < 300, p3);
            """;
    static final int LOCK_WAIT_SECONDS = 1;
    static final int ACCOUNTS_PER_PARTITION = 50;

    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "txnit", SCHEMA, new RouterConfig.Transactions("txnit", LOCK_WAIT_SECONDS, 1, 5));
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

    @AfterAll
    void stop() throws Exception {
        router.close();
    }

    @Test
    void commitOverTwoPartitionsUsesTwoPhaseCommitAndIsAtomic() throws SQLException {
        long before = stats().twoPhaseCommits.sum();
        try (var c = router.connect(); var observer = router.connect()) {
            c.setAutoCommit(false);
            update(c, 1, -10);
            update(c, 101, +10);
            assertEquals(100, balance(observer, 1), "uncommitted changes are invisible to others");
            assertEquals(100, balance(observer, 101));
            c.commit();
            assertEquals(90, balance(observer, 1));
            assertEquals(110, balance(observer, 101));
        }
        assertEquals(before + 1, stats().twoPhaseCommits.sum());
        assertNoPreparedBranches();
    }

    @Test
    void rollbackOverTwoPartitionsLeavesNothing() throws SQLException {
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            update(c, 2, -10);
            update(c, 202, +10);
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(100, balance(c, 2));
            assertEquals(100, balance(c, 202));
        }
        assertNoPreparedBranches();
    }

    @Test
    void onePartitionCommitsWithOneCommitAndNoDecision() throws SQLException {
        long onePhase = stats().onePhaseCommits.sum();
        long twoPhase = stats().twoPhaseCommits.sum();
        int decisions = decisionRows();
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            update(c, 3, -5);
            update(c, 4, +5);
            c.commit();
            assertEquals(95, balance(c, 3));
        }
        assertEquals(onePhase + 1, stats().onePhaseCommits.sum());
        assertEquals(twoPhase, stats().twoPhaseCommits.sum());
        assertTrue(decisionRows() <= decisions, "no decision was logged (recovery may meanwhile delete old ones)");
    }

    @Test
    void readOnlyParticipantTakesNoPartInTheCommit() throws SQLException {
        long onePhase = stats().onePhaseCommits.sum();
        long twoPhase = stats().twoPhaseCommits.sum();
        long readOnly = stats().readOnlyBranches.sum();
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            long other = balance(c, 305);
            update(c, 5, other);
            c.commit();
            assertEquals(200, balance(c, 5));
        }
        assertEquals(onePhase + 1, stats().onePhaseCommits.sum());
        assertEquals(twoPhase, stats().twoPhaseCommits.sum());
        assertEquals(readOnly + 1, stats().readOnlyBranches.sum());
    }

    @Test
    void aWriteThatMatchedNothingTakesNoPartInTheCommit() throws SQLException {
        long onePhase = stats().onePhaseCommits.sum();
        long twoPhase = stats().twoPhaseCommits.sum();
        long readOnly = stats().readOnlyBranches.sum();
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            update(c, 6, +1);
            try (var st = c.createStatement()) {
                assertEquals(0, st.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 306 AND balance < 0"));
            }
            c.commit();
            assertEquals(101, balance(c, 6));
            assertEquals(100, balance(c, 306));
        }
        assertEquals(onePhase + 1, stats().onePhaseCommits.sum(), "one partition changed rows: it commits alone");
        assertEquals(twoPhase, stats().twoPhaseCommits.sum());
        assertEquals(readOnly + 1, stats().readOnlyBranches.sum(), "the partition where nothing matched commits as read-only");
        assertNoPreparedBranches();
    }

    @Test
    void autoCommitWriteOverTwoPartitionsIsAllOrNothing() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.executeUpdate("UPDATE accounts SET balance = 200 WHERE id = 6");
            // account 6 can pay 150, account 106 cannot: the CHECK fails on p1 only
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE accounts SET balance = balance - 150 WHERE id IN (6, 106)"));
            assertTrue(e.getMessage().contains("no_overdraft"), e.getMessage());
            assertEquals(200, balance(c, 6), "p0's half of the failed statement was rolled back");
            assertEquals(100, balance(c, 106));
            long twoPhase = stats().twoPhaseCommits.sum();
            assertEquals(2, st.executeUpdate("UPDATE accounts SET balance = balance - 50 WHERE id IN (6, 106)"));
            assertEquals(twoPhase + 1, stats().twoPhaseCommits.sum());
            assertEquals(150, balance(c, 6));
            assertEquals(50, balance(c, 106));
        }
    }

    @Test
    void disconnectRollsBackAndReleasesLocks() throws SQLException {
        var quitter = router.connect();
        quitter.setAutoCommit(false);
        update(quitter, 7, +900);
        update(quitter, 107, +900);
        quitter.close(); // the client goes away mid-transaction
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            update(c, 7, +1); // would wait LOCK_WAIT_SECONDS and fail if the locks were still held
            update(c, 107, +1);
            c.commit();
            assertEquals(101, balance(c, 7));
            assertEquals(101, balance(c, 107));
        }
    }

    /** A duplicate key on one partition: MariaDB undid that statement alone, and the transaction goes on (docs/transactions.md, "Failures"). */
    @Test
    void failedStatementOnOnePartitionKeepsTheTransaction() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            c.setAutoCommit(false);
            update(c, 8, +5);
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO accounts (id, balance) VALUES (108, 1)"));
            assertEquals("23000", dup.getSQLState(), dup.getMessage());
            update(c, 9, +5);
            c.commit();
            assertEquals(105, balance(c, 8), "the statement before the failure is committed");
            assertEquals(105, balance(c, 9));
        }
    }

    /** A write over two partitions that fails on one: the other's half is not undone by its server, so the whole transaction is. */
    @Test
    void failedStatementOverSeveralPartitionsRollsBackTheWholeTransaction() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            c.setAutoCommit(false);
            update(c, 8, +5);
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE accounts SET balance = balance - 101 WHERE id IN (9, 109)"));
            assertTrue(e.getMessage().contains("no_overdraft"), e.getMessage());
            var after = assertThrows(SQLException.class, () -> update(c, 9, +5));
            assertEquals("25000", after.getSQLState(), after.getMessage());
            var commit = assertThrows(SQLException.class, c::commit);
            assertEquals("40000", commit.getSQLState(), commit.getMessage());
            update(c, 9, +5); // a new transaction
            c.commit();
            assertEquals(100, balance(c, 8), "the statement before the failure was rolled back too");
            assertEquals(105, balance(c, 9));
        }
    }

    @Test
    void statementRefusedByTheRouterKeepsTheTransaction() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            c.setAutoCommit(false);
            update(c, 10, +5);
            var e = assertThrows(SQLException.class, () -> st.executeQuery("SELECT * FROM nosuch"));
            assertEquals("42S02", e.getSQLState());
            c.commit();
            assertEquals(105, balance(c, 10));
        }
    }

    /**
     * A backend statement cached by an auto-commit read (rows streamed) is reused inside a
     * transaction: its rows must not stream there, or the transaction's next sub-query on that
     * connection waits behind them. A union of two branches on one partition hung its session for
     * good (found by ProtocolFuzzIT); the driver's socket timeout turns a hang into a failure.
     */
    @Test
    void statementsCachedByAutoCommitReadsDoNotStreamInsideATransaction() throws SQLException {
        String union = "SELECT balance FROM accounts WHERE id = 1 UNION ALL SELECT balance FROM accounts WHERE id = 2";
        try (var c = java.sql.DriverManager.getConnection(router.url() + "?socketTimeout=20000", TestRouter.USER, TestRouter.PASSWORD);
             var st = c.createStatement()) {
            for (int round = 0; round < 10; round++) {
                c.setAutoCommit(true);
                assertEquals(List.of(100L, 100L), balances(st, union));
                c.setAutoCommit(false);
                assertEquals(List.of(100L, 100L), balances(st, union));
                c.commit();
            }
        }
    }

    private static List<Long> balances(java.sql.Statement st, String sql) throws SQLException {
        var out = new ArrayList<Long>();
        try (var rs = st.executeQuery(sql)) {
            while (rs.next()) out.add(rs.getLong(1));
        }
        return out;
    }

    @Test
    void beginInsideATransactionCommitsItFirstAsMySqlDoes() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.execute("BEGIN");
            update(c, 11, +1);
            update(c, 111, +1);
            st.execute("START TRANSACTION"); // commits the first
            update(c, 11, +1);
            st.execute("ROLLBACK");
            assertEquals(101, balance(c, 11));
            assertEquals(101, balance(c, 111));
        }
    }

    @Test
    void readOnlyTransactionRefusesWrites() throws SQLException {
        try (var c = router.connect(); var st = c.createStatement()) {
            st.execute("START TRANSACTION READ ONLY");
            balance(c, 12);
            var e = assertThrows(SQLException.class, () -> update(c, 12, 1));
            assertEquals("25006", e.getSQLState(), e.getMessage());
            st.execute("ROLLBACK");
        }
    }

    @Test
    void deadlockAcrossShardsSurfacesAsRetryable() throws Exception {
        try (var a = router.connect(); var b = router.connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            update(a, 13, +1);   // a locks p0
            update(b, 113, +1);  // b locks p1
            // each now waits for the other on another shard: no shard sees a cycle
            var first = CompletableFuture.supplyAsync(() -> attempt(a, 113));
            var second = CompletableFuture.supplyAsync(() -> attempt(b, 13));
            var deadlocks = java.util.stream.Stream.of(first.get(), second.get()).filter(java.util.Objects::nonNull).toList();
            assertFalse(deadlocks.isEmpty(), "one of the two must be chosen as the victim");
            for (SQLException e : deadlocks) {
                assertEquals("40001", e.getSQLState(), e.getMessage());
                assertEquals(1213, e.getErrorCode(), "reported as MySQL reports deadlocks");
                assertTrue(e.getMessage().contains("deadlock across shards"), e.getMessage());
            }
            for (var c : List.of(a, b)) {
                try {
                    c.commit();
                } catch (SQLException e) {
                    assertEquals("40000", e.getSQLState(), e.getMessage()); // the victim's commit says it was rolled back
                }
            }
        }
        try (var c = router.connect()) {
            long total = balance(c, 13) + balance(c, 113);
            assertTrue(total == 200 || total == 202, "each transaction committed whole or not at all: " + total);
        }
    }

    @Test
    void isolationLevelReachesTheBackends() throws SQLException {
        try (var c = router.connect(); var writer = router.connect(); var st = c.createStatement()) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(false);
            try (var rs = st.executeQuery("SELECT @@tx_isolation")) {
                assertTrue(rs.next());
                assertEquals("READ-COMMITTED", rs.getString(1));
            }
            long seen = balance(c, 14);
            update(writer, 14, +1);
            assertEquals(seen + 1, balance(c, 14), "READ COMMITTED sees other transactions' commits");
            c.commit();

            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertEquals(Connection.TRANSACTION_REPEATABLE_READ, c.getTransactionIsolation());
            seen = balance(c, 14);
            update(writer, 14, +1);
            assertEquals(seen, balance(c, 14), "REPEATABLE READ keeps its snapshot");
            c.commit();
        }
    }

    /**
     * The bank: concurrent transfers between accounts on different partitions, some rolled back
     * on purpose, never create or destroy money. A SERIALIZABLE reader (locking reads on every
     * shard, held until commit, and prepared branches keep their locks) checks the total while
     * they run; plain reads across shards have no common snapshot and could not.
     */
    @Test
    void bankTotalNeverChanges() throws Exception {
        int[] ids = new int[4 * 30]; // accounts 21..50 of every partition
        for (int i = 0; i < ids.length; i++) ids[i] = 100 * (i % 4) + 21 + i / 4;
        long total;
        try (var c = router.connect()) {
            total = sum(c, ids);
        }
        var failures = new AtomicReference<Throwable>();
        var committed = new AtomicInteger();
        var rolledBack = new AtomicInteger();
        var checks = new AtomicInteger();
        var running = new java.util.concurrent.atomic.AtomicBoolean(true);
        var workers = new ArrayList<Thread>();
        for (int w = 0; w < 4; w++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try (var c = router.connect()) {
                    c.setAutoCommit(false);
                    var random = ThreadLocalRandom.current();
                    for (int n = 0; n < 40; n++) {
                        int from = ids[random.nextInt(ids.length)], to = ids[random.nextInt(ids.length)];
                        if (from == to) continue;
                        int amount = random.nextInt(1, 20);
                        try {
                            update(c, from, -amount);
                            update(c, to, amount);
                            if (random.nextInt(5) == 0) {
                                c.rollback();
                                rolledBack.incrementAndGet();
                            } else {
                                c.commit();
                                committed.incrementAndGet();
                            }
                        } catch (SQLException e) {
                            if (!e.getSQLState().startsWith("40") && !e.getSQLState().equals("23000")) throw e;
                            c.rollback(); // deadlock victim or overdraft: the whole transfer is gone; move on
                        }
                    }
                } catch (Throwable t) {
                    failures.compareAndSet(null, t);
                }
            }));
        }
        var checker = Thread.ofPlatform().start(() -> {
            try (var c = router.connect()) {
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                c.setAutoCommit(false);
                while (running.get()) {
                    try {
                        long seen = sum(c, ids);
                        c.commit();
                        assertEquals(total, seen, "total while transfers run");
                        checks.incrementAndGet();
                    } catch (SQLException e) {
                        if (!e.getSQLState().startsWith("40")) throw e;
                        c.rollback();
                    }
                }
            } catch (Throwable t) {
                failures.compareAndSet(null, t);
            }
        });
        for (var t : workers) t.join();
        running.set(false);
        checker.join();
        if (failures.get() != null) throw new AssertionError(failures.get());
        assertTrue(committed.get() > 20 && rolledBack.get() > 0, committed + " committed, " + rolledBack + " rolled back");
        assertTrue(checks.get() > 0, "the total was checked while transfers ran");
        try (var c = router.connect()) {
            assertEquals(total, sum(c, ids));
        }
        long direct = 0;
        for (int p = 0; p < 4; p++) {
            try (var c = router.partition(p); var rs = c.createStatement().executeQuery("SELECT balance FROM accounts")) {
                while (rs.next()) direct += rs.getLong(1);
            }
        }
        assertEquals(4 * ACCOUNTS_PER_PARTITION * 100, direct, "all accounts, read on the shards themselves");
        assertNoPreparedBranches();
    }

    @Test
    void routerStatusCountsCommitsAndInDoubtBranches() throws SQLException {
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            update(c, 16, -1);
            update(c, 216, +1);
            c.commit();
            var status = new java.util.HashMap<String, String>();
            try (var rs = c.createStatement().executeQuery("SHOW LUTRA STATUS")) {
                while (rs.next()) status.put(rs.getString("Variable_name"), rs.getString("Value"));
            }
            c.commit();
            assertEquals(String.valueOf(stats().twoPhaseCommits.sum()), status.get("txn_two_phase_commits"));
            assertTrue(Long.parseLong(status.get("txn_two_phase_commits")) >= 1, status.toString());
            assertEquals("0", status.get("xa_in_doubt_branches"), status.toString());
            assertTrue(Double.parseDouble(status.get("txn_decision_ms_mean")) > 0, status.toString());
        }
    }

    @Test
    void routerStatusCountsTransactionsAndStatementsByPartitionsTouched() throws SQLException {
        try (var c = router.connect()) {
            var before = status(c);
            c.setAutoCommit(false);
            update(c, 16, -1);
            update(c, 216, +1); // another partition: a transaction over two
            c.commit();
            update(c, 17, -1);
            update(c, 18, +1); // both on 16's partition
            c.commit();
            c.setAutoCommit(true);
            try (var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM accounts")) { // every partition, auto-commit
                rs.next();
            }
            var after = status(c);
            var txn = delta(after.get("txn_by_partitions"), before.get("txn_by_partitions"));
            assertEquals(java.util.Map.of(1, 1L, 2, 1L), txn, after.toString());
            var statements = delta(after.get("statements_by_partitions"), before.get("statements_by_partitions"));
            assertEquals(java.util.Map.of(1, 4L, 4, 1L), statements, after.toString());
        }
    }

    private static java.util.Map<String, String> status(java.sql.Connection c) throws SQLException {
        var status = new java.util.HashMap<String, String>();
        try (var rs = c.createStatement().executeQuery("SHOW LUTRA STATUS")) {
            while (rs.next()) status.put(rs.getString("Variable_name"), rs.getString("Value"));
        }
        return status;
    }

    /** The counts of "1:3 2:1" histograms, after minus before, zeros left out. */
    private static java.util.Map<Integer, Long> delta(String after, String before) {
        var out = new java.util.TreeMap<Integer, Long>();
        for (String pair : after.isBlank() ? new String[0] : after.split(" ")) {
            out.merge(Integer.parseInt(pair.substring(0, pair.indexOf(':'))), Long.parseLong(pair.substring(pair.indexOf(':') + 1)), Long::sum);
        }
        for (String pair : before.isBlank() ? new String[0] : before.split(" ")) {
            out.merge(Integer.parseInt(pair.substring(0, pair.indexOf(':'))), -Long.parseLong(pair.substring(pair.indexOf(':') + 1)), Long::sum);
        }
        out.values().removeIf(v -> v == 0);
        return out;
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static SQLException attempt(Connection c, int id) {
        try {
            update(c, id, +1);
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    private static void update(Connection c, int id, long delta) throws SQLException {
        try (var ps = c.prepareStatement("UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
            ps.setLong(1, delta);
            ps.setInt(2, id);
            assertEquals(1, ps.executeUpdate(), "account " + id);
        }
    }

    private static long balance(Connection c, int id) throws SQLException {
        try (var ps = c.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            ps.setInt(1, id);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next(), "account " + id);
                return rs.getLong(1);
            }
        }
    }

    private static long sum(Connection c, int[] ids) throws SQLException {
        var in = new StringBuilder();
        for (int id : ids) in.append(in.isEmpty() ? "" : ", ").append(id);
        long sum = 0;
        try (var rs = c.createStatement().executeQuery("SELECT balance FROM accounts WHERE id IN (" + in + ")")) {
            while (rs.next()) sum += rs.getLong(1);
        }
        return sum;
    }

    private TxnStats stats() {
        return router.server.transactions().stats();
    }

    private int decisionRows() throws SQLException {
        int rows = 0;
        for (int p = 0; p < 4; p++) {
            try (var c = router.partition(p); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM lutra_xa_decisions")) {
                rs.next();
                rows += rs.getInt(1);
            }
        }
        return rows;
    }

    private void assertNoPreparedBranches() throws SQLException {
        for (int p = 0; p < 4; p++) {
            try (var c = router.partition(p); var rs = c.createStatement().executeQuery("XA RECOVER")) {
                while (rs.next()) {
                    String data = new String(rs.getBytes(4), java.nio.charset.StandardCharsets.ISO_8859_1);
                    assertFalse(data.contains(router.database + "_p" + p), "prepared branch left on p" + p + ": " + data);
                }
            }
        }
    }
}
