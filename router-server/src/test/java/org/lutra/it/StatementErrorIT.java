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
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A statement that fails inside a transaction, through Lutra and on one plain MariaDB holding the same
 * rows: where the failed statement wrote on one partition only (or only read), the transaction goes on
 * as MariaDB's does — duplicate keys, CHECK constraints, values out of range, NULL into NOT NULL, lock
 * wait timeouts and NOWAIT against a second session holding rows — and COMMIT keeps the statements
 * before and after it. A write over several partitions that fails still ends the whole transaction
 * (25000 after it), and a lock wait timeout in a transaction that may hold locks on several partitions (it
 * wrote or ran a locking read there; a plain read locks nothing) is still reported as a suspected deadlock
 * (1213) and rolls it back (docs/transactions.md, "Failures").
 *
 * <p>The table is placed by range (partition = id / 100), so the test knows every statement's partitions.
 * Seed and size: {@code -Dlutra.stmterr.seed=N}, {@code -Dlutra.stmterr.transactions=N} (default 80).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatementErrorIT {
    static final String SCHEMA = """
            CREATE TABLE acct (id INT PRIMARY KEY, a INT NOT NULL, b TINYINT, CONSTRAINT nonneg CHECK (a >= 0))
              PARTITION BY range(id) ON (p0 < 100, p1 < 200, p2 < 300, p3);
            """;
    static final int LOCK_WAIT = 1;
    /** Rows the holder session keeps locked FOR UPDATE: one on p0, one on p1. */
    static final int[] HELD = {50, 150};
    static final int DEADLOCK = 1213, LOCK_WAIT_TIMEOUT = 1205;

    Differential differential;
    Connection lutra, reference, lutraHolder, referenceHolder;
    long seed;

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.stmterr.seed", System.nanoTime());
        System.out.println("StatementErrorIT seed " + seed + " (replay with -Dlutra.stmterr.seed=" + seed + ")");
        differential = new Differential(shards, "stmterr", SCHEMA, new RouterConfig.Transactions("stmterr", LOCK_WAIT, 0, 0));
        lutra = differential.lutra;
        reference = differential.reference;
        try (var st = reference.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT);
        }
        var rows = new ArrayList<String>();
        for (int id = 0; id < 400; id += 1) if (id % 3 != 0 && id % 100 < 60) rows.add("(" + id + ", 10, 1)");
        differential.both("INSERT INTO acct (id, a, b) VALUES " + String.join(", ", rows));
        lutraHolder = differential.router.connect();
        referenceHolder = differential.newReference();
        for (Connection h : List.of(lutraHolder, referenceHolder)) {
            h.setAutoCommit(false);
            try (var st = h.createStatement()) {
                st.executeQuery("SELECT id FROM acct WHERE id IN (" + HELD[0] + ", " + HELD[1] + ") FOR UPDATE").close();
            }
        }
    }

    @BeforeEach
    void endTransactions() throws SQLException {
        for (Connection c : List.of(lutra, reference)) {
            try (var st = c.createStatement()) {
                st.execute("ROLLBACK");
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (Connection h : new Connection[] {lutraHolder, referenceHolder}) if (h != null) h.close();
        if (differential != null) differential.close();
    }

    /**
     * Random transactions continuing after every error, ended by COMMIT or ROLLBACK: every statement's answer,
     * and after each transaction the table, must be the plain MariaDB's — or, where docs/transactions.md says Lutra ends the
     * transaction (a write over several partitions, a lock wait timeout on several), exactly that.
     */
    @Test
    void randomTransactionsGoOnAfterErrorsAsOneMariaDb() throws SQLException {
        var r = new SplittableRandom(seed);
        int transactions = Integer.getInteger("lutra.stmterr.transactions", 80);
        int kept = 0, ended = 0, deadlocks = 0, statements = 0, timeouts = 0, keptOverPlainReads = 0;
        int t = 0;
        // past the asked-for number, until both rules that end a transaction ran (a seed may miss one: 1 in ~60 did), and a
        // lock wait timeout the transaction went on after while plain reads had joined it on other partitions
        for (; t < transactions || (ended == 0 || deadlocks == 0 || keptOverPlainReads == 0) && t < 4 * transactions; t++) {
            both("BEGIN");
            var done = new ArrayList<String>();
            Set<Integer> locking = new TreeSet<>(); // the partitions where Lutra's transaction may hold locks
            Set<Integer> joined = new TreeSet<>(); // those it has joined, plain reads' too
            boolean open = true;
            boolean scanFirst = r.nextInt(4) == 0, waitNext = scanFirst && r.nextBoolean();
            if (scanFirst) { // a plain read of every partition first, and now and then a wait for a held row right after it
                assertEquals(rows(reference), rows(lutra), "transaction " + t + " (seed " + seed + ") begins");
                joined.addAll(Set.of(0, 1, 2, 3));
                done.add("(plain read of every partition)");
            }
            int length = 3 + r.nextInt(12);
            for (int i = 0; i < length && open; i++) {
                var s = i == 0 && waitNext ? heldRowUpdate(r) : next(r);
                done.add(s.sql);
                statements++;
                String expected = outcome(reference, s.sql);
                String got = outcome(lutra, s.sql);
                String where = "transaction " + t + " (seed " + seed + "): " + String.join("; ", done);
                if (s.locks()) locking.addAll(s.partitions); // a failed statement's count too: InnoDB keeps the locks it took
                joined.addAll(s.partitions);
                if (!expected.startsWith("error")) {
                    assertEquals(expected, got, where);
                    continue;
                }
                int code = Integer.parseInt(expected.substring(6));
                if (code == LOCK_WAIT_TIMEOUT) timeouts++;
                boolean neverWaited = s.sql.endsWith("NOWAIT"); // no deadlock's: the one-partition rule
                if (code == LOCK_WAIT_TIMEOUT && locking.size() > 1 && !neverWaited) {
                    assertEquals("error " + DEADLOCK, got, "a lock wait timeout with locks on several partitions is a suspected deadlock: " + where);
                    assertEquals("error 0", outcome(lutra, "UPDATE acct SET a = a WHERE id = 1"), "25000 after it: " + where);
                    deadlocks++;
                    open = false;
                } else if (s.write && s.partitions.size() > 1) {
                    assertEquals(expected, got, where);
                    assertEquals("error 0", outcome(lutra, "UPDATE acct SET a = a WHERE id = 1"), "a write over several partitions failed: 25000 after it: " + where);
                    ended++;
                    open = false;
                } else {
                    assertEquals(expected, got, where);
                    kept++;
                    if (code == LOCK_WAIT_TIMEOUT && !neverWaited && joined.size() > 1) keptOverPlainReads++;
                }
                if (open && r.nextInt(3) == 0) {
                    // a plain read of every partition: it joins them, but holds no locks there, so it adds to no deadlock
                    assertEquals(rows(reference), rows(lutra), "inside " + where);
                    joined.addAll(Set.of(0, 1, 2, 3));
                }
            }
            String end = !open || r.nextInt(3) == 0 ? "ROLLBACK" : "COMMIT";
            both(end);
            done.add(end);
            assertEquals(rows(reference), rows(lutra), "after transaction " + t + " (seed " + seed + "): " + String.join("; ", done));
        }
        System.out.printf("StatementErrorIT: %d transactions, %d statements, %d errors the transaction went on after (%d lock wait timeouts in all,"
                + " %d of them waits with plain reads on other partitions), %d writes over several partitions and %d suspected deadlocks that ended it%n",
                t, statements, kept, timeouts, keptOverPlainReads, ended, deadlocks);
        assertTrue(kept > transactions / 2, "errors the transactions went on after: " + kept);
        assertTrue(ended > 0 && deadlocks > 0, "both rules that end a transaction ran: " + ended + ", " + deadlocks);
        assertTrue(keptOverPlainReads > 0, "a lock wait timeout after plain reads of other partitions kept its transaction");
    }

    /** A lock wait timeout on the only partition the transaction holds: it goes on, and COMMIT keeps the rest with one COMMIT. */
    @Test
    void aLockWaitTimeoutOnOnePartitionKeepsTheTransaction() throws SQLException {
        TxnStats stats = differential.router.server.transactions().stats();
        long onePhase = stats.onePhaseCommits.sum(), twoPhase = stats.twoPhaseCommits.sum();
        try (var c = differential.router.connect(); var st = c.createStatement()) {
            only(st, 71, 72);
            c.setAutoCommit(false);
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 100 WHERE id = 71"));
            var e = assertThrows(SQLException.class, () -> st.executeQuery("SELECT a FROM acct WHERE id = " + HELD[0] + " FOR UPDATE").close());
            assertEquals(LOCK_WAIT_TIMEOUT, e.getErrorCode(), e.getMessage());
            var nowait = assertThrows(SQLException.class, () -> st.executeQuery("SELECT a FROM acct WHERE id = " + HELD[0] + " FOR UPDATE NOWAIT").close());
            assertEquals(LOCK_WAIT_TIMEOUT, nowait.getErrorCode(), nowait.getMessage());
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 100 WHERE id = 72"), "the transaction goes on");
            c.commit();
            assertEquals(List.of(List.of("110"), List.of("110")), Differential.rows(c, "SELECT a FROM acct WHERE id IN (71, 72) ORDER BY id"));
        }
        assertEquals(twoPhase, stats.twoPhaseCommits.sum(), "one partition wrote: no two-phase commit");
        assertTrue(stats.onePhaseCommits.sum() >= onePhase + 1);
    }

    /**
     * A duplicate key on one partition while the transaction wrote on another: it goes on, a failed write counts
     * as no write (one writer left: one-phase), and a later write on a second partition commits with XA.
     */
    @Test
    void aFailedWriteIsNoWriteInTheCommit() throws SQLException {
        TxnStats stats = differential.router.server.transactions().stats();
        try (var c = differential.router.connect(); var st = c.createStatement()) {
            only(st, 74, 171, 272);
            c.setAutoCommit(false);
            long twoPhase = stats.twoPhaseCommits.sum();
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = 74"));
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO acct (id, a) VALUES (171, 1)"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
            var check = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE acct SET a = a - 1000 WHERE id = 272"));
            assertEquals("23000", check.getSQLState(), check.getMessage());
            c.commit();
            assertEquals(twoPhase, stats.twoPhaseCommits.sum(), "p1's and p2's branches wrote nothing: one-phase");
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a - 1 WHERE id = 74"));
            assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO acct (id, a) VALUES (171, 1)"));
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = 171"));
            c.commit();
            assertEquals(twoPhase + 1, stats.twoPhaseCommits.sum(), "two partitions wrote: two-phase");
            assertEquals(List.of(List.of("10"), List.of("11")), Differential.rows(c, "SELECT a FROM acct WHERE id IN (74, 171) ORDER BY id"));
        }
    }

    /** A write over two partitions that fails on one: the other's half may have been applied, so the whole transaction ends. */
    @Test
    void aWriteOverSeveralPartitionsThatFailsEndsTheTransaction() throws SQLException {
        try (var c = differential.router.connect(); var st = c.createStatement()) {
            only(st, 77, 78, 371);
            st.executeUpdate("DELETE FROM acct WHERE id = 79");
            c.setAutoCommit(false);
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 5 WHERE id = 77"));
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO acct (id, a) VALUES (79, 1), (371, 1)"));
            assertEquals(1062, e.getErrorCode(), e.getMessage());
            var after = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE acct SET a = a + 5 WHERE id = 78"));
            assertEquals("25000", after.getSQLState(), after.getMessage());
            c.rollback();
            assertEquals(List.of(List.of("10")), Differential.rows(c, "SELECT a FROM acct WHERE id = 77"), "the earlier statement was rolled back");
            assertEquals(List.of(), Differential.rows(c, "SELECT a FROM acct WHERE id = 79"), "p0's half of the failed statement too");
        }
    }

    /** A lock wait timeout while the transaction holds locks on two partitions: reported as a deadlock (1213, 40001), rolled back. */
    @Test
    void aLockWaitTimeoutOnSeveralPartitionsIsStillASuspectedDeadlock() throws SQLException {
        try (var c = differential.router.connect(); var st = c.createStatement()) {
            only(st, 275, 276);
            c.setAutoCommit(false);
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 5 WHERE id = 275"));
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE acct SET a = a + 5 WHERE id = " + HELD[0]));
            assertEquals(DEADLOCK, e.getErrorCode(), e.getMessage());
            assertEquals("40001", e.getSQLState());
            var after = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE acct SET a = a + 5 WHERE id = 276"));
            assertEquals("25000", after.getSQLState(), after.getMessage());
            c.rollback();
            assertEquals(List.of(List.of("10")), Differential.rows(c, "SELECT a FROM acct WHERE id = 275"));
        }
    }

    /**
     * A NOWAIT locking read that fails against a held row while the transaction is on several partitions: it never
     * waited, so it is no deadlock's; the transaction goes on and commits, as on one MariaDB. WAIT 1 did wait: still
     * a suspected deadlock.
     */
    @Test
    void aNowaitReadOnSeveralPartitionsKeepsTheTransaction() throws SQLException {
        try (var c = differential.router.connect(); var st = c.createStatement()) {
            for (int id : new int[] {81, 181, 281}) both("INSERT INTO acct (id, a) VALUES (" + id + ", 10) ON DUPLICATE KEY UPDATE a = 10");
            for (Connection x : List.of(c, reference)) x.setAutoCommit(false);
            for (String sql : List.of(
                    "UPDATE acct SET a = a + 1 WHERE id = 81",
                    "UPDATE acct SET a = a + 1 WHERE id = 181",
                    "SELECT id, a FROM acct WHERE id = " + HELD[0] + " FOR UPDATE NOWAIT",
                    "SELECT id, a FROM acct WHERE id IN (" + HELD[1] + ", 281) ORDER BY id LOCK IN SHARE MODE NOWAIT",
                    "UPDATE acct SET a = a + 1 WHERE id = 281",
                    "COMMIT",
                    "SELECT id, a FROM acct WHERE id IN (81, 181, 281) ORDER BY id")) {
                assertEquals(outcome(reference, sql), outcome(c, sql), sql);
            }
            assertEquals(List.of(List.of("11"), List.of("11"), List.of("11")), Differential.rows(c, "SELECT a FROM acct WHERE id IN (81, 181, 281) ORDER BY id"));
            assertEquals("error " + LOCK_WAIT_TIMEOUT, outcome(reference, "SELECT a FROM acct WHERE id = " + HELD[0] + " FOR UPDATE NOWAIT"));
            reference.rollback();
            // WAIT 1 waited for the lock: a lock wait timeout on several partitions is still a suspected deadlock
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = 81"));
            assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = 181"));
            var e = assertThrows(SQLException.class, () -> st.executeQuery("SELECT a FROM acct WHERE id = " + HELD[0] + " FOR UPDATE WAIT 1").close());
            assertEquals(DEADLOCK, e.getErrorCode(), e.getMessage());
            c.rollback();
        } finally {
            reference.setAutoCommit(true);
        }
    }

    /**
     * A plain read of every partition, then an UPDATE that waits for a row the holder keeps until the lock wait
     * timeout: the read locked nothing (a consistent read at READ UNCOMMITTED, READ COMMITTED, REPEATABLE READ), so
     * the transaction holds locks on the waiting partition alone, and Lutra answers as one MariaDB: 1205, the
     * transaction open, its writes before and after committed.
     */
    @Test
    void aLockWaitTimeoutAfterAPlainReadOfEveryPartitionKeepsTheTransaction() throws SQLException {
        for (int level : new int[] {Connection.TRANSACTION_READ_UNCOMMITTED, Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ}) {
            var outcomes = new ArrayList<List<String>>();
            for (boolean throughLutra : new boolean[] {true, false}) {
                for (int id : PLAIN_READ_IDS) both("INSERT INTO acct (id, a) VALUES (" + id + ", 10) ON DUPLICATE KEY UPDATE a = 10");
                try (var c = throughLutra ? differential.router.connect() : waitingReference()) {
                    c.setTransactionIsolation(level);
                    c.setAutoCommit(false);
                    var seen = new ArrayList<String>();
                    for (String sql : List.of(
                            "UPDATE acct SET a = a + 1 WHERE id = " + PLAIN_READ_IDS[0], // on p0, the partition that waits below
                            "SELECT count(*) FROM acct WHERE id % 100 < 70", // a scan of every partition, the held rows' too
                            "SELECT id, a FROM acct WHERE id IN (" + ids(PLAIN_READ_IDS) + ") ORDER BY id",
                            "UPDATE acct SET a = a + 1 WHERE id = " + HELD[0], // waits for the holder: 1205
                            "UPDATE acct SET a = a + 1 WHERE id = " + PLAIN_READ_IDS[1],
                            "COMMIT",
                            "SELECT id, a FROM acct WHERE id IN (" + ids(PLAIN_READ_IDS) + ") ORDER BY id")) {
                        seen.add(sql + " -> " + outcome(c, sql));
                    }
                    outcomes.add(seen);
                }
            }
            assertEquals(outcomes.get(1), outcomes.get(0), "isolation " + level + ": Lutra as one MariaDB");
            assertTrue(outcomes.get(0).get(3).endsWith("error " + LOCK_WAIT_TIMEOUT), outcomes.get(0).get(3));
            assertTrue(outcomes.get(0).get(6).endsWith("rows [85|11, 185|11, 285|10, 385|10]"), "both writes committed: " + outcomes.get(0).get(6));
        }
    }

    /**
     * The same lock wait timeout after a read that locked on another partition (FOR UPDATE, LOCK IN SHARE MODE), or after
     * a plain read at SERIALIZABLE (InnoDB locks every read there): the transaction holds locks on two partitions, so
     * Lutra reports a suspected deadlock (1213, 40001) and rolls it back, where one MariaDB would keep it (docs/transactions.md).
     */
    @Test
    void aLockWaitTimeoutAfterALockingReadOnAnotherPartitionIsASuspectedDeadlock() throws SQLException {
        record Case(int level, String read, int lockedPartitions) {}
        for (var k : List.of(
                new Case(Connection.TRANSACTION_REPEATABLE_READ, "SELECT a FROM acct WHERE id = " + PLAIN_READ_IDS[2] + " FOR UPDATE", 2),
                new Case(Connection.TRANSACTION_READ_COMMITTED, "SELECT a FROM acct WHERE id = " + PLAIN_READ_IDS[2] + " LOCK IN SHARE MODE", 2),
                new Case(Connection.TRANSACTION_SERIALIZABLE, "SELECT id, a FROM acct WHERE id IN (" + ids(PLAIN_READ_IDS) + ") ORDER BY id", 4),
                new Case(Connection.TRANSACTION_SERIALIZABLE, "SELECT a FROM acct WHERE id = " + PLAIN_READ_IDS[2], 2))) {
            for (int id : PLAIN_READ_IDS) both("INSERT INTO acct (id, a) VALUES (" + id + ", 10) ON DUPLICATE KEY UPDATE a = 10");
            try (var c = differential.router.connect(); var st = c.createStatement()) {
                c.setTransactionIsolation(k.level());
                c.setAutoCommit(false);
                assertEquals(1, st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = " + PLAIN_READ_IDS[0]), k.toString());
                st.executeQuery(k.read()).close();
                var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = " + HELD[0]), k.toString());
                assertEquals(DEADLOCK, e.getErrorCode(), k + ": " + e.getMessage());
                assertEquals("40001", e.getSQLState(), k.toString());
                assertTrue(e.getMessage().contains("Deadlock suspected") && e.getMessage().contains("on " + k.lockedPartitions() + " partitions"), k + ": " + e.getMessage());
                var after = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE acct SET a = a + 1 WHERE id = " + PLAIN_READ_IDS[1]));
                assertEquals("25000", after.getSQLState(), k + ": " + after.getMessage());
                c.rollback();
                assertEquals(List.of(List.of("10")), Differential.rows(c, "SELECT a FROM acct WHERE id = " + PLAIN_READ_IDS[0]), k + ": rolled back");
            }
        }
    }

    /** Keys of the plain-read tests, one on each partition (never the random run's, nor the other targeted tests'). */
    static final int[] PLAIN_READ_IDS = {85, 185, 285, 385};

    private static String ids(int[] ids) {
        return String.join(", ", java.util.Arrays.stream(ids).mapToObj(String::valueOf).toList());
    }

    /** A second plain MariaDB session on the reference rows, whose lock waits end as Lutra's do (after LOCK_WAIT seconds). */
    private Connection waitingReference() throws SQLException {
        Connection c = differential.newReference();
        try (var st = c.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT);
        }
        return c;
    }

    /** Through the router, in auto-commit mode, one key at a time (a scan would wait for the held rows): ids 70..99 of a partition, never the random run's. */
    private static void only(java.sql.Statement st, int... ids) throws SQLException {
        for (int id : ids) st.executeUpdate("INSERT INTO acct (id, a) VALUES (" + id + ", 10) ON DUPLICATE KEY UPDATE a = 10");
    }

    // ---- the random run's statements ---------------------------------------------------------------

    record Stmt(String sql, boolean write, Set<Integer> partitions) {
        /** Whether it may leave locks on its partitions: a write (even one that failed), a locking read; not a plain read. */
        boolean locks() {
            return write || sql.contains(" FOR UPDATE") || sql.contains(" LOCK IN SHARE MODE");
        }
    }

    /** Keys spread over the four partitions; a third of those below 60 in each are free, 60..99 never loaded. */
    private static int key(SplittableRandom r) {
        int k = 100 * r.nextInt(4) + r.nextInt(70);
        return k == HELD[0] || k == HELD[1] ? k + 1 : k;
    }

    private static Set<Integer> on(int... keys) {
        var out = new TreeSet<Integer>();
        for (int k : keys) out.add(k / 100);
        return out;
    }

    /** An UPDATE of a row the holder keeps: a lock wait timeout after LOCK_WAIT seconds, on both sides. */
    private static Stmt heldRowUpdate(SplittableRandom r) {
        int h = HELD[r.nextInt(2)];
        return new Stmt("UPDATE acct SET a = a + 1 WHERE id = " + h, true, on(h));
    }

    private static Stmt next(SplittableRandom r) {
        int k = key(r), k2 = key(r), v = r.nextInt(15);
        return switch (r.nextInt(16)) {
            case 0, 1 -> new Stmt("INSERT INTO acct (id, a, b) VALUES (" + k + ", " + v + ", " + (r.nextInt(6) == 0 ? 300 : v) + ")", true, on(k));
            case 2 -> new Stmt("INSERT INTO acct (id, a) VALUES (" + k + ", " + v + "), (" + k2 + ", " + v + ")", true, on(k, k2));
            case 3 -> new Stmt("INSERT INTO acct (id, a) VALUES (" + k + ", " + v + ") ON DUPLICATE KEY UPDATE a = a + 1", true, on(k));
            case 4 -> new Stmt("INSERT INTO acct (id, a) VALUES (" + k + ", NULL)", true, on(k));
            case 5, 6 -> new Stmt("UPDATE acct SET a = a - " + v + " WHERE id = " + k, true, on(k));
            case 7 -> new Stmt("UPDATE acct SET a = a - " + v + " WHERE id IN (" + k + ", " + k2 + ")", true, on(k, k2));
            case 8 -> new Stmt("UPDATE acct SET b = " + (r.nextBoolean() ? 1000 : v) + " WHERE id = " + k, true, on(k));
            case 9 -> new Stmt("DELETE FROM acct WHERE id = " + k, true, on(k));
            case 10 -> new Stmt("SELECT id, a FROM acct WHERE id = " + k + " FOR UPDATE", false, on(k));
            case 11 -> { // a held row now and then: NOWAIT answers at once
                int h = r.nextBoolean() ? HELD[r.nextInt(2)] : k;
                yield new Stmt("SELECT id, a FROM acct WHERE id = " + h + " FOR UPDATE NOWAIT", false, on(h));
            }
            case 12 -> {
                int h = HELD[r.nextInt(2)];
                yield new Stmt("SELECT id, a FROM acct WHERE id IN (" + h + ", " + k + ") ORDER BY id LOCK IN SHARE MODE NOWAIT", false, on(h, k));
            }
            case 13 -> {
                int from = 100 * r.nextInt(4) + 40;
                yield new Stmt("SELECT id FROM acct WHERE id BETWEEN " + from + " AND " + (from + 20) + " ORDER BY id FOR UPDATE SKIP LOCKED", false, on(from));
            }
            case 14 -> {
                yield r.nextInt(4) == 0 ? heldRowUpdate(r) : new Stmt("SELECT a FROM acct WHERE id = " + k, false, on(k));
            }
            default -> new Stmt("SELECT id, a, b FROM acct WHERE id IN (" + k + ", " + k2 + ") ORDER BY id", false, on(k, k2));
        };
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private void both(String sql) throws SQLException {
        try (var l = lutra.createStatement(); var ref = reference.createStatement()) {
            ref.execute(sql);
            l.execute(sql);
        }
    }

    /** "ok" and the update count, the rows, or "error" and the error code. */
    private static String outcome(Connection c, String sql) {
        try (var st = c.createStatement()) {
            if (st.execute(sql)) {
                var out = new ArrayList<String>();
                try (var rs = st.getResultSet()) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        var row = new StringBuilder();
                        for (int i = 1; i <= n; i++) row.append(i > 1 ? "|" : "").append(rs.getString(i));
                        out.add(row.toString());
                    }
                }
                return "rows " + out;
            }
            return "ok " + st.getUpdateCount();
        } catch (SQLException e) {
            return "error " + e.getErrorCode();
        }
    }

    private static List<List<String>> rows(Connection c) throws SQLException {
        return Differential.rows(c, "SELECT * FROM acct WHERE id % 100 < 70 ORDER BY id"); // 70..99: the targeted tests', through Lutra only
    }
}
