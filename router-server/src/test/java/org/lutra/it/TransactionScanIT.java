package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Scans of a lookup group inside client transactions while another router moves its rows nonstop
 * (placement.TransactionScan): transactions through two routers run several scans and reads by key, with pauses
 * between them (so that their first reads of the partitions fall before some moves and their scans after),
 * at REPEATABLE READ and READ COMMITTED. Moves change where rows are, never what they are, and nothing else
 * writes, so every answer must be the plain database's; a transaction may instead be refused with 40001
 * (rolled back: a move committed where its snapshot is older), and is then retried.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class TransactionScanIT {
    static final long SEED = Long.getLong("lutra.txscan.seed", System.nanoTime());
    static final int USERS = 120;

    Differential differential;
    TestRouter b;
    TestRouter c;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "txscan", PlacementDifferentialIT.SCHEMA);
        b = new TestRouter(differential.router, "txscanB", List.of());
        c = new TestRouter(differential.router, "txscanC", List.of());
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : new TestRouter[] {c, b}) if (r != null) r.server.close();
        if (differential != null) differential.close();
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void transactionsScanningWhileRowsMoveAnswerAsOneDatabaseOrAreRefusedRetryably() throws Exception {
        var random = new Random(SEED);
        for (int id = 1; id <= USERS; id++) {
            differential.both("INSERT INTO users (id, name, karma) VALUES (" + id + ", 't" + id + "', " + random.nextInt(100) + ")");
            for (int f = random.nextInt(4); f > 0; f--) {
                differential.both("INSERT IGNORE INTO followers (source, destination) VALUES (" + id + ", " + random.nextInt(50) + ")");
            }
        }
        var statements = new ArrayList<>(PlacementDifferentialIT.SCANS);
        if (Boolean.parseBoolean(System.getProperty("lutra.txscan.points", "true"))) for (int id = 1; id <= USERS; id += 7) statements.add("SELECT id, name, karma FROM users WHERE id = " + id);
        if (Boolean.parseBoolean(System.getProperty("lutra.txscan.keyed", "true"))) {
            // reads of one key validated by their answer (SelectPlan.keyProvenRows), and by a secondary lookup's entries
            // read under the fence (Target.exact): inside transactions whose snapshots may predate the moves
            try (var st = differential.lutra.createStatement()) {
                st.execute("CREATE INDEX users_name ON users (name)");
                st.execute("CREATE SECONDARY LOOKUP users_by_name ON users (name)");
            }
            for (int id = 3; id <= USERS; id += 9) {
                statements.add("SELECT destination FROM followers WHERE source = " + id + " ORDER BY destination DESC LIMIT 2");
                statements.add("SELECT u.name, f.destination FROM users u JOIN followers f ON f.source = u.id WHERE u.id = " + id + " ORDER BY f.destination");
                statements.add("SELECT source, COUNT(*) FROM followers WHERE source = " + id + " GROUP BY source");
                statements.add("SELECT COUNT(*), MAX(destination) FROM followers WHERE source = " + id);
                statements.add("SELECT id, karma FROM users WHERE name = 't" + id + "'");
                statements.add("SELECT id, karma FROM users WHERE name IN ('t" + id + "', 't" + (id + 40) + "') ORDER BY id");
            }
        }
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (String sql : statements) expected.put(sql, PlacementDifferentialIT.outcome(differential.reference, sql));

        var stop = new AtomicBoolean();
        var moves = new AtomicLong();
        var committed = new AtomicLong();
        var refused = new AtomicLong();
        var contention = new AtomicLong();
        var threads = Executors.newFixedThreadPool(4);
        var work = new ArrayList<Future<?>>();
        try {
            work.add(threads.submit(() -> {
                var r = new Random(SEED + 1);
                try (Connection admin = differential.router.connect(); var st = admin.createStatement()) {
                    while (!stop.get()) {
                        var keys = new java.util.StringJoiner(", ");
                        for (int n = 1 + r.nextInt(15); n > 0; n--) keys.add(String.valueOf(1 + r.nextInt(USERS)));
                        try {
                            st.executeUpdate("ALTER TABLE users SET PARTITION = p" + r.nextInt(4) + " WHERE id IN (" + keys + ")");
                            moves.incrementAndGet();
                        } catch (SQLException e) {
                            if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205) throw e;
                            contention.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
            int reader = 0;
            for (TestRouter router : new TestRouter[] {b, c, b}) {
                int isolation = reader++ == 1 ? Connection.TRANSACTION_READ_COMMITTED : Connection.TRANSACTION_REPEATABLE_READ;
                long seed = SEED + 10 + reader;
                work.add(threads.submit(() -> {
                    var r = new Random(seed);
                    try (Connection lutra = router.connect()) {
                        lutra.setTransactionIsolation(isolation);
                        lutra.setAutoCommit(false);
                        while (!stop.get()) {
                            var done = new ArrayList<String>();
                            boolean refusedHere = false;
                            for (int n = 2 + r.nextInt(4); n > 0 && !refusedHere; n--) {
                                String sql = statements.get(r.nextInt(statements.size()));
                                var errors = new ArrayList<SQLException>();
                                var answered = PlacementDifferentialIT.outcome(lutra, sql, errors::add);
                                if (!errors.isEmpty() && "40001".equals(errors.getFirst().getSQLState())) {
                                    refusedHere = true;
                                    assertTrue(errors.getFirst().getMessage().contains("retry the transaction") || errors.getFirst().getErrorCode() == 1213,
                                            errors.getFirst().getMessage());
                                    continue;
                                }
                                done.add(sql);
                                assertEquals(expected.get(sql), answered, "seed " + SEED + ", isolation " + isolation + ", after " + moves.get()
                                        + " moves, in a transaction that ran " + done + ": " + sql + (errors.isEmpty() ? "" : " (" + errors.getFirst().getMessage() + ")"));
                                Thread.sleep(r.nextInt(15)); // a move may commit between this transaction's reads
                            }
                            if (refusedHere) {
                                lutra.rollback();
                                refused.incrementAndGet();
                            } else {
                                lutra.commit();
                                committed.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            long started = System.nanoTime();
            while (work.stream().noneMatch(Future::isDone) && System.nanoTime() - started < 90_000_000_000L
                    && (System.nanoTime() - started < 20_000_000_000L || moves.get() < 30)) {
                Thread.sleep(100);
            }
            stop.set(true);
            for (var f : work) f.get();
        } finally {
            stop.set(true);
            threads.shutdownNow();
        }
        System.out.printf("TransactionScanIT: seed %d, %d transactions committed and %d refused (40001, retried) through 2 routers while one made %d moves"
                + " (%d retried after contention), every answer as one database's%n", SEED, committed.get(), refused.get(), moves.get(), contention.get());
        assertTrue(moves.get() > 20, moves.get() + " moves");
        assertTrue(committed.get() > 50, committed.get() + " transactions committed");
    }

    /**
     * What a scan costs, nothing else running: COUNT(*) of the same rows lookup-placed (fenced) and hash-placed (not),
     * in auto-commit and inside a REPEATABLE READ transaction (its first statement, and again once it has read every
     * partition), taking turns; medians and p90 printed (docs/benchmarks-router.md).
     */
    @Test
    @org.junit.jupiter.api.Order(2)
    void whatAScanCosts() throws Exception {
        try (var st = differential.lutra.createStatement()) {
            st.executeUpdate("DELETE FROM hashed_users");
            assertTrue(st.executeUpdate("INSERT INTO hashed_users (id, name, karma) SELECT id, name, karma FROM users") >= USERS);
        }
        int n = 300;
        long[][] t = new long[6][n];
        try (Connection lutra = b.connect(); var st = lutra.createStatement()) {
            for (int i = 0; i < n; i++) {
                int column = 0;
                for (String table : List.of("users", "hashed_users")) {
                    long t0 = System.nanoTime();
                    st.executeQuery("SELECT COUNT(*) FROM " + table).close();
                    t[column++][i] = System.nanoTime() - t0;
                    lutra.setAutoCommit(false);
                    t0 = System.nanoTime();
                    st.executeQuery("SELECT COUNT(*) FROM " + table).close(); // the transaction's first statement
                    long t1 = System.nanoTime();
                    st.executeQuery("SELECT COUNT(*) FROM " + table).close(); // every partition read before
                    long t2 = System.nanoTime();
                    lutra.commit();
                    lutra.setAutoCommit(true);
                    t[column++][i] = t1 - t0;
                    t[column++][i] = t2 - t1;
                }
            }
        }
        String[] labels = {"auto-commit", "transaction, first statement", "transaction, partitions read before"};
        for (int k = 0; k < 3; k++) {
            java.util.Arrays.sort(t[k]);
            java.util.Arrays.sort(t[k + 3]);
            System.out.printf("TransactionScanIT: COUNT(*) of %d rows on 4 partitions, %s, median over %d: lookup-placed %.2f ms, hash-placed %.2f ms;"
                    + " p90 %.2f vs %.2f ms%n", USERS, labels[k], n, t[k][n / 2] / 1e6, t[k + 3][n / 2] / 1e6, t[k][n * 9 / 10] / 1e6, t[k + 3][n * 9 / 10] / 1e6);
        }
    }

    @Test
    @org.junit.jupiter.api.Order(3)
    void aScanInAReadUncommittedTransactionIsRefused() throws Exception {
        try (Connection lutra = b.connect()) {
            lutra.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
            lutra.setAutoCommit(false);
            var e = assertThrows(SQLException.class, () -> lutra.createStatement().executeQuery("SELECT COUNT(*) FROM users").close());
            assertEquals("42000", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("READ UNCOMMITTED"), e.getMessage());
            lutra.rollback();
        }
    }
}
