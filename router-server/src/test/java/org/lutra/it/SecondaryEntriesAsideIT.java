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
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A row's secondary lookup entries committed aside, ahead of the row's own transaction
 * ({@code placement.SecondaryEntries#writeForWrittenRows}): an insert whose rows are on one partition commits there alone, and
 * a UNIQUE value stays unique over all partitions while writers of it race, wait, roll back and take over stale entries.
 * Trades placed by their account, unique by id (TPC-E's trade), on real shards, through two routers.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecondaryEntriesAsideIT {
    static final String SCHEMA = """
            CREATE TABLE trades (id BIGINT NOT NULL PRIMARY KEY, acct INT NOT NULL, qty INT NOT NULL, KEY (acct))
              PARTITION BY hash(acct) ON (p0, p1, p2, p3);
            """;

    TestRouter a;
    TestRouter b;
    /** Accounts by the partition their trades go to. */
    final Map<Integer, List<Integer>> accountsOn = new TreeMap<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "secaside", SCHEMA);
        b = new TestRouter(a, "asideB", List.of());
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP trade_id ON trades (id) UNIQUE");
            for (int acct = 1; acct <= 24; acct++) st.executeUpdate("INSERT INTO trades (id, acct, qty) VALUES (" + (1_000_000 + acct) + ", " + acct + ", 0)");
        }
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT acct FROM trades")) {
                while (rs.next()) accountsOn.computeIfAbsent(p, x -> new ArrayList<>()).add(rs.getInt(1));
            }
        }
        assertEquals(4, accountsOn.size(), "accounts on every partition: " + accountsOn);
    }

    @AfterAll
    void stop() throws Exception {
        if (b != null) b.server.close();
        if (a != null) a.close();
    }

    int account(int partition) {
        return accountsOn.get(partition).getFirst();
    }

    /** The partitions holding trade {@code id}, one entry per row, read on the shards. */
    List<Integer> onShards(long id) throws SQLException {
        var out = new ArrayList<Integer>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT id FROM trades WHERE id = " + id)) {
                while (rs.next()) out.add(p);
            }
        }
        return out;
    }

    static void insert(Connection c, long id, int acct) throws SQLException {
        try (var ps = c.prepareStatement("INSERT INTO trades (id, acct, qty) VALUES (?, ?, 1)")) {
            ps.setLong(1, id);
            ps.setInt(2, acct);
            assertEquals(1, ps.executeUpdate());
        }
    }

    @Test
    void aNewValuesInsertCommitsOnItsRowsPartitionAlone() throws Exception {
        var stats = a.server.transactions().stats();
        long twoPhase = stats.twoPhaseCommits.sum();
        long onePhase = stats.onePhaseCommits.sum();
        try (Connection lutra = a.connect()) {
            for (int i = 0; i < 20; i++) insert(lutra, 2000 + i, account((i + 1) % 4)); // auto-commit
            lutra.setAutoCommit(false);
            for (int i = 0; i < 20; i++) {
                try (var ps = lutra.prepareStatement("SELECT COUNT(*) FROM trades WHERE acct = ?")) {
                    ps.setInt(1, account((i + 1) % 4));
                    ps.executeQuery().close();
                }
                insert(lutra, 3000 + i, account((i + 1) % 4));
                lutra.commit();
            }
        }
        System.out.println("SecondaryEntriesAsideIT: commits one-phase " + (stats.onePhaseCommits.sum() - onePhase) + ", two-phase "
                + (stats.twoPhaseCommits.sum() - twoPhase) + ", by partitions " + stats.partitions);
        assertEquals(twoPhase, stats.twoPhaseCommits.sum(), "the ids' entries at their homes (another partition for most) committed aside: no two-phase commit");
        assertEquals(onePhase + 40, stats.onePhaseCommits.sum(), "each insert committed on its row's partition");
        int elsewhere = 0;
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT v, p FROM lutra_sec_trade_id WHERE v >= 2000 AND v < 4000")) {
                while (rs.next()) {
                    assertEquals(onShards(rs.getLong(1)), List.of(rs.getInt(2)), "the entry of " + rs.getLong(1) + " names its row's partition");
                    if (rs.getInt(2) != p) elsewhere++;
                }
            }
        }
        assertTrue(elsewhere >= 10, "entries at another partition than their rows: " + elsewhere);
        for (long id : new long[] {2000, 2007, 3005, 3019}) {
            assertEquals(List.of(onShards(id).getFirst()), onShards(id));
            try (Connection lutra = b.connect(); var rs = lutra.createStatement().executeQuery("SELECT acct FROM trades WHERE id = " + id)) {
                assertTrue(rs.next(), "trade " + id + " found through its entry");
            }
        }
    }

    /** A second writer of an id finds the entry naming the first's partition, and waits there for its uncommitted row. */
    @Test
    void aSecondWriterWaitsForTheFirstsRowThen1062OrItsRollback() throws Exception {
        var pool = Executors.newSingleThreadExecutor();
        try {
            for (boolean firstCommits : new boolean[] {true, false}) {
                long id = firstCommits ? 4001 : 4002;
                try (Connection first = a.connect(); Connection second = b.connect()) {
                    first.setAutoCommit(false);
                    insert(first, id, account(0));
                    Future<String> other = pool.submit(() -> {
                        try {
                            insert(second, id, account(1));
                            return "ok";
                        } catch (SQLException e) {
                            return e.getErrorCode() + " " + e.getMessage();
                        }
                    });
                    Thread.sleep(300); // the second is waiting (or about to): either way it must see the first's outcome
                    if (firstCommits) first.commit();
                    else first.rollback();
                    String outcome = other.get();
                    if (firstCommits) {
                        assertTrue(outcome.startsWith("1062 "), outcome);
                        assertEquals(List.of(0), onShards(id));
                    } else {
                        assertEquals("ok", outcome);
                        assertEquals(List.of(1), onShards(id));
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A stale entry (its row deleted) is taken over in the first writer's transaction, which holds it; a second writer's
     * aside waits its one second for that lock, then claims in its own transaction and waits there for the first.
     */
    @Test
    void aWriterHoldingAStaleEntrysTakeoverMakesTheNextWaitThen1062() throws Exception {
        long id = 5001;
        try (Connection lutra = a.connect()) {
            insert(lutra, id, account(2));
            lutra.createStatement().executeUpdate("DELETE FROM trades WHERE id = " + id);
        }
        var pool = Executors.newSingleThreadExecutor();
        try (Connection first = a.connect(); Connection second = b.connect()) {
            first.setAutoCommit(false);
            insert(first, id, account(0)); // the entry names partition 2: taken over in this transaction
            Future<String> other = pool.submit(() -> {
                try {
                    insert(second, id, account(1));
                    return "ok";
                } catch (SQLException e) {
                    return e.getErrorCode() + " " + e.getMessage();
                }
            });
            Thread.sleep(1500); // longer than the aside's lock wait
            first.commit();
            String outcome = other.get();
            assertTrue(outcome.startsWith("1062 "), outcome);
            assertEquals(List.of(0), onShards(id));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Writers of the same ids on different partitions, in transactions that commit or roll back: each id on one partition at most, every committed one there. */
    @Test
    void racingWritersLeaveEachIdOnePartitionAndEveryCommittedRow() throws Exception {
        long seed = new Random().nextLong();
        int writers = 3;
        var committed = new ConcurrentHashMap<Long, Integer>();
        var pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < 15; round++) {
                long id = 6000 + round;
                var barrier = new CyclicBarrier(writers);
                var futures = new ArrayList<Future<?>>();
                for (int w = 0; w < writers; w++) {
                    var random = new Random(seed + round * 31L + w);
                    TestRouter r = w % 2 == 0 ? a : b;
                    int partition = w;
                    futures.add(pool.submit(() -> {
                        try (Connection c = r.connect()) {
                            c.setAutoCommit(false);
                            barrier.await();
                            try {
                                insert(c, id, account(partition));
                                Thread.sleep(random.nextInt(40));
                                if (random.nextInt(3) == 0) {
                                    c.rollback();
                                } else {
                                    c.commit();
                                    assertNull(committed.put(id, partition), "two writers of " + id + " committed (seed " + seed + ")");
                                }
                            } catch (SQLException e) {
                                if (e.getErrorCode() != 1062 && !"40001".equals(e.getSQLState())) throw e;
                                c.rollback();
                            }
                        }
                        return null;
                    }));
                }
                for (var f : futures) f.get();
                var where = onShards(id);
                assertTrue(where.size() <= 1, id + " on " + where + " (seed " + seed + ")");
                if (committed.containsKey(id)) assertEquals(List.of(committed.get(id)), where, id + " (seed " + seed + ")");
                else assertEquals(List.of(), where, id + " (seed " + seed + ")");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
