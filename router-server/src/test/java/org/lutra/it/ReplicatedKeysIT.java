package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Replicated keys ({@code ALTER TABLE t SET PARTITION = (p1, p3) WHERE ...}) through three routers on the
 * same shards, checked against one plain MariaDB holding the same rows and on the shards themselves: every
 * copy identical after writes through a stale router, SAME AS inserts on every copy, scans counting each row
 * once, un-replication; and a random run while a mover replicates and un-replicates keys.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicatedKeysIT {
    static final String SCHEMA = PlacementDifferentialIT.SCHEMA;
    static final int KEYS = PlacementDifferentialIT.KEYS;
    static final long SEED = Long.getLong("lutra.replicas.seed", System.nanoTime());
    static final String[] GROUP = {"users:id", "followers:source", "tweets:author"};
    /** Scans that read several tables of the group in one sub-query per partition (co-located joins and subqueries). */
    static final List<String> GROUP_SCANS = List.of(
            "SELECT u.id, COUNT(f.destination) FROM users u LEFT JOIN followers f ON f.source = u.id GROUP BY u.id ORDER BY u.id",
            "SELECT COUNT(*), SUM(t.likes), SUM(u.karma) FROM users u JOIN tweets t ON t.author = u.id",
            "SELECT f.source, f.destination, t.id FROM followers f JOIN tweets t ON t.author = f.source ORDER BY 1, 2, 3",
            "SELECT id, name FROM users WHERE id IN (SELECT source FROM followers WHERE destination < 20) ORDER BY id",
            "SELECT u.id, (SELECT COUNT(*) FROM tweets t WHERE t.author = u.id) AS n FROM users u ORDER BY u.id",
            "SELECT COUNT(*) FROM users u WHERE NOT EXISTS (SELECT 1 FROM followers f WHERE f.source = u.id)",
            "SELECT u.karma % 3, COUNT(DISTINCT f.destination) FROM users u JOIN followers f ON f.source = u.id GROUP BY u.karma % 3 ORDER BY 1",
            "SELECT u.name, f.destination FROM users u JOIN followers f ON f.source = u.id ORDER BY u.id, f.destination LIMIT 5");

    Shards shards;
    Differential differential;
    TestRouter b;
    TestRouter c;
    Connection viaB;
    Connection viaC;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        differential = new Differential(shards, "replkeys", SCHEMA);
        b = new TestRouter(differential.router, "replkeysB", List.of());
        c = new TestRouter(differential.router, "replkeysC", List.of());
        viaB = b.connect();
        viaC = c.connect();
    }

    @AfterAll
    void stop() throws Exception {
        for (Connection x : new Connection[] {viaB, viaC}) if (x != null) x.close();
        for (TestRouter r : new TestRouter[] {c, b}) if (r != null) r.server.close();
        if (differential != null) differential.close();
    }

    /**
     * The first replication of a group commits between a scan's question "any replicated keys?" (none yet)
     * and its read: the read must not see the new copies (it would count them twice). The scan is held at
     * {@link org.lutra.placement.FailPoints#SCAN_ASKED_ABOUT_COPIES} while another router replicates two keys.
     */
    @Test
    @Order(0)
    void aScanThatAskedBeforeTheFirstReplicationCommittedCountsEachRowOnce() throws Exception {
        for (int k = 5001; k <= 5004; k++) {
            differential.both("INSERT INTO users (id, name, karma) VALUES (" + k + ", 'r" + k + "', " + k + ")");
            differential.both("INSERT INTO followers (source, destination) VALUES (" + k + ", 1), (" + k + ", 2)");
        }
        var once = new AtomicBoolean();
        String[] scans = {"SELECT COUNT(*), SUM(karma) FROM users", "SELECT COUNT(*) FROM followers"};
        try {
            heldScansCountOnce(scans, once);
        } finally { // the next tests start with no replicated key and none of these rows
            try (var st = viaC.createStatement()) {
                st.executeUpdate("ALTER TABLE users SET PARTITION = p2 WHERE id IN (5001, 5002)");
            }
            differential.both("DELETE FROM followers WHERE source > 5000");
            differential.both("DELETE FROM users WHERE id > 5000");
        }
    }

    private void heldScansCountOnce(String[] scans, AtomicBoolean once) throws Exception {
        for (String scan : scans) {
            once.set(false);
            var held = new java.util.concurrent.CountDownLatch(1);
            var release = new java.util.concurrent.CountDownLatch(1);
            var answered = new java.util.concurrent.CompletableFuture<List<String>>();
            try (var hook = org.lutra.placement.FailPoints.install(point -> {
                if (!point.equals(org.lutra.placement.FailPoints.SCAN_ASKED_ABOUT_COPIES) || !once.compareAndSet(false, true)) return;
                held.countDown();
                try {
                    release.await(60, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            })) {
                Thread.ofPlatform().start(() -> answered.complete(outcome(viaB, scan)));
                assertTrue(held.await(30, java.util.concurrent.TimeUnit.SECONDS), "the scan reached the point after its question");
                try (var st = viaC.createStatement()) {
                    assertTrue(st.executeUpdate("ALTER TABLE users SET PARTITION = (p1, p3) WHERE id IN (5001, 5002)") > 0);
                }
                assertReplicas(5001, List.of(1, 3));
                release.countDown();
                assertEquals(PlacementDifferentialIT.outcome(differential.reference, scan), answered.get(60, java.util.concurrent.TimeUnit.SECONDS),
                        scan + " (held after asking about copies while 5001 and 5002 were replicated; the router's error, if any: " + lastError + ")");
            }
            same(viaB, scan); // and after: the copies left out
            try (var st = viaC.createStatement()) {
                st.executeUpdate("ALTER TABLE users SET PARTITION = p2 WHERE id IN (5001, 5002)"); // no replicated key left for the next round
            }
            assertReplicas(5001, List.of(2));
        }
    }

    @Test
    @Order(1)
    void replicatedKeysReadWriteAndScanAsOneDatabase() throws Exception {
        for (int k = 1; k <= 12; k++) {
            differential.both("INSERT INTO users (id, name, karma) VALUES (" + k + ", 'u" + k + "', " + k * 10 + ")");
            differential.both("INSERT INTO followers (source, destination) VALUES (" + k + ", " + (k % 5 + 1) + "), (" + k + ", " + (k % 7 + 20) + ")");
            differential.both("INSERT INTO tweets (id, author, likes) VALUES (" + (k * 100) + ", " + k + ", " + k + ")");
        }
        // B caches where keys 1..6 are now (their home), so it is stale once they are replicated
        same(viaB, "SELECT id, name FROM users WHERE id IN (1, 2, 3, 4, 5, 6) ORDER BY id");

        try (var st = differential.lutra.createStatement()) {
            // 3 keys x (1 user + 2 followers + 1 tweet) = 12 rows, copied where they are not yet
            long rows = st.executeUpdate("ALTER TABLE users SET PARTITION = (p1, p3) WHERE id IN (1, 2, 3)");
            assertTrue(rows > 0 && rows <= 12, rows + " rows");
        }
        for (int k = 1; k <= 3; k++) assertReplicas(k, List.of(1, 3));
        try (var st = viaC.createStatement(); var rs = st.executeQuery("SHOW LOOKUP users FOR 2")) {
            assertTrue(rs.next());
            assertEquals("p1, p3", rs.getString("Partition"));
            assertTrue(rs.getString("Source").contains("replicated"), rs.getString("Source"));
        }
        try (var st = viaB.createStatement(); var rs = st.executeQuery("SHOW LOOKUP followers FOR 1")) {
            assertTrue(rs.next());
            assertEquals("p1, p3", rs.getString("Partition"));
        }

        // reads through the stale router, one key, several keys, SAME AS rows, aggregates by key
        for (Connection r : List.of(viaB, viaC, differential.lutra)) {
            same(r, "SELECT id, name, karma FROM users WHERE id = 1");
            same(r, "SELECT id, name FROM users WHERE id IN (1, 2, 5, 9) ORDER BY id");
            same(r, "SELECT destination FROM followers WHERE source = 3 ORDER BY destination");
            same(r, "SELECT COUNT(*), SUM(likes) FROM tweets WHERE author IN (1, 2)");
        }

        // writes through every router: all copies change in one transaction, counted once
        write(viaC, "UPDATE users SET karma = karma + 5 WHERE id = 1");
        write(viaB, "UPDATE users SET name = 'renamed' WHERE id IN (2, 7)");
        write(viaB, "UPDATE tweets SET likes = likes + 1 WHERE author = 3");
        write(viaB, "INSERT INTO followers (source, destination) VALUES (1, 99), (8, 99)");
        write(viaC, "INSERT INTO tweets (id, author, likes) VALUES (101, 1, 7)");
        write(viaB, "DELETE FROM followers WHERE source = 2 AND destination = " + (2 % 5 + 1));
        write(viaC, "DELETE FROM users WHERE id = 3");
        write(differential.lutra, "INSERT INTO users (id, name) VALUES (3, 'again')");
        assertEquals(1062, error(viaB, "INSERT INTO users (id, name) VALUES (1, 'duplicate')"));
        for (int k = 1; k <= 3; k++) assertReplicas(k, List.of(1, 3));
        assertOnePartition(8);

        // the clock is one time on every copy; what no variable fixes is refused (found by hand: RAND() and UUID() split the copies)
        try (var st = viaC.createStatement(); var ref = differential.reference.createStatement()) {
            assertEquals(1, st.executeUpdate("UPDATE users SET karma = MICROSECOND(NOW(6)) + 1000000 * SECOND(CURRENT_TIMESTAMP(6)) WHERE id = 1"));
            assertEquals(1, st.executeUpdate("INSERT INTO followers (source, destination) VALUES (2, 1000000 + MICROSECOND(NOW(6)))"));
            assertCopiesIdentical(1);
            assertCopiesIdentical(2);
            try (var rs = st.executeQuery("SELECT karma FROM users WHERE id = 1")) { // the reference takes the values the copies have
                assertTrue(rs.next());
                ref.executeUpdate("UPDATE users SET karma = " + rs.getLong(1) + " WHERE id = 1");
            }
            try (var rs = st.executeQuery("SELECT destination FROM followers WHERE source = 2 AND destination >= 1000000")) {
                assertTrue(rs.next());
                ref.executeUpdate("INSERT INTO followers (source, destination) VALUES (2, " + rs.getLong(1) + ")");
            }
        }
        for (String sql : List.of("UPDATE users SET karma = FLOOR(RAND() * 1000) WHERE id = 1", "UPDATE users SET name = UUID() WHERE id IN (1, 9)",
                "INSERT INTO followers (source, destination) VALUES (2, CONNECTION_ID())", "UPDATE tweets SET likes = SECOND(SYSDATE()) WHERE author = 2")) {
            assertEquals(1235, error(viaB, sql), sql);
        }
        assertCopiesIdentical(1);
        same(viaB, "SELECT id, name, karma FROM users WHERE id IN (1, 9) ORDER BY id"); // the refused writes changed nothing

        // inside a transaction: the copies change with it, and roll back with it
        try (var st = viaB.createStatement(); var ref = differential.reference.createStatement()) {
            viaB.setAutoCommit(false);
            differential.reference.setAutoCommit(false);
            for (String sql : List.of("UPDATE users SET karma = 1000 WHERE id = 2", "INSERT INTO followers (source, destination) VALUES (2, 77)")) {
                assertEquals(ref.executeUpdate(sql), st.executeUpdate(sql), sql);
            }
            viaB.rollback();
            differential.reference.rollback();
            assertEquals(ref.executeUpdate("UPDATE users SET karma = 2000 WHERE id = 2"), st.executeUpdate("UPDATE users SET karma = 2000 WHERE id = 2"));
            viaB.commit();
            differential.reference.commit();
        } finally {
            viaB.setAutoCommit(true);
            differential.reference.setAutoCommit(true);
        }
        assertReplicas(2, List.of(1, 3));

        // scans: each replicated row once (the differential would see a double count)
        for (Connection r : List.of(viaB, viaC, differential.lutra)) {
            same(r, "SELECT COUNT(*), SUM(karma) FROM users");
            same(r, "SELECT COUNT(*) FROM followers");
            same(r, "SELECT author, SUM(likes) FROM tweets GROUP BY author ORDER BY author");
            same(r, "SELECT id, name, karma FROM users ORDER BY id");
            same(r, "SELECT * FROM followers f WHERE destination = 99 ORDER BY source");
            same(r, "SELECT name FROM users WHERE karma > 40 ORDER BY name LIMIT 3");
        }
        // co-located joins and subqueries: every table of the group without the copies (each key's rows meet once, at its primary)
        for (Connection r : List.of(viaB, viaC, differential.lutra)) {
            for (String scan : GROUP_SCANS) same(r, scan);
        }
        // writes that name no keys reach every copy, counted once (a partition's copies for another primary are changed, not counted)
        write(viaC, "UPDATE users SET karma = karma + 2 WHERE name = 'renamed'");
        write(viaB, "UPDATE followers SET destination = destination + 1000 WHERE destination = 99");
        write(differential.lutra, "UPDATE users SET karma = karma + 1");
        write(viaB, "DELETE FROM tweets WHERE likes = 2");
        write(viaC, "UPDATE tweets SET likes = likes * 2 WHERE likes < 5");
        for (int k = 1; k <= 3; k++) {
            assertReplicas(k, List.of(1, 3));
            assertCopiesIdentical(k);
        }
        for (Connection r : List.of(viaB, viaC, differential.lutra)) {
            same(r, "SELECT id, name, karma FROM users ORDER BY id");
            same(r, "SELECT source, destination FROM followers ORDER BY source, destination");
            same(r, "SELECT id, author, likes FROM tweets ORDER BY id");
        }
        // a refused write changes nothing
        assertEquals(1235, error(viaC, "UPDATE users SET karma = 0 WHERE id = 1 ORDER BY name LIMIT 1"));
        assertEquals(1235, error(viaC, "UPDATE users SET karma = 0 ORDER BY name LIMIT 1"));
        same(viaC, "SELECT id, karma FROM users WHERE id IN (1, 2, 7) ORDER BY id");

        // un-replicate: back to one partition, a move like any other
        try (var st = viaC.createStatement()) {
            st.executeUpdate("ALTER TABLE users SET PARTITION = p2 WHERE id IN (1, 2)");
            st.executeUpdate("ALTER TABLE users SET PARTITION = (p3, p0) WHERE id = 3"); // p3 stays, p1 leaves, p0 comes
        }
        assertOnePartition(1);
        assertOnePartition(2);
        assertReplicas(3, List.of(0, 3));
        for (Connection r : List.of(viaB, viaC, differential.lutra)) {
            same(r, "SELECT COUNT(*), SUM(karma) FROM users");
            same(r, "SELECT source, destination FROM followers ORDER BY source, destination");
            same(r, "SELECT id, name, karma FROM users WHERE id IN (1, 2, 3) ORDER BY id");
        }
        write(viaB, "UPDATE users SET karma = karma + 1 WHERE id IN (1, 2, 3)");
        assertReplicas(3, List.of(0, 3));
        try (var st = viaB.createStatement(); var rs = st.executeQuery("SHOW LOOKUP users FOR 1")) {
            assertTrue(rs.next());
            assertEquals("p2", rs.getString("Partition"));
        }
        try (var st = viaB.createStatement(); var rs = st.executeQuery("SHOW MOVES")) {
            boolean listed = false;
            while (rs.next()) listed |= rs.getString("Statement").contains("(p1, p3)") && rs.getString("State").equals("done");
            assertTrue(listed, "SHOW MOVES lists the replication");
        }
        try (var st = viaC.createStatement()) {
            st.executeUpdate("ALTER TABLE users SET PARTITION = p0 WHERE id = 3");
        }
        assertOnePartition(3);
    }

    @Test
    @Order(2)
    void badTargetsAreRefusedAndChangeNothing() throws Exception {
        try (var st = viaB.createStatement()) {
            for (String sql : List.of("ALTER TABLE users SET PARTITION = (p1, p9) WHERE id = 4", "ALTER TABLE users SET PARTITION = (p1, p1) WHERE id = 4",
                    "ALTER TABLE followers SET PARTITION = (p1, p2) WHERE source = 4")) {
                var e = assertThrows(SQLException.class, () -> st.executeUpdate(sql), sql);
                assertTrue(e.getMessage().contains("partition") || e.getMessage().contains("SAME AS"), e.getMessage());
            }
        }
        assertOnePartition(4);
    }

    /**
     * Random statements through three routers, each also run on the plain database, while a fourth client replicates
     * random keys on two or three partitions and moves them back to one; scans (every 20 statements) too, while the
     * mover runs: the move fence and the replicated-keys question asked in the scan's snapshots count each row once.
     */
    @Test
    @Order(3)
    void randomStatementsWhileKeysAreReplicatedAndUnreplicatedAnswerAsOneDatabase() throws Exception {
        differential.both("DELETE FROM followers");
        differential.both("DELETE FROM tweets");
        differential.both("DELETE FROM users");
        var random = new Random(SEED);
        var stop = new AtomicBoolean();
        var moves = new AtomicLong();
        var deadlocks = new AtomicLong();
        var mover = Executors.newSingleThreadExecutor();
        List<Connection> routers = List.of(differential.lutra, viaB, viaC);
        int statements = 0;
        int scans = 0;
        try {
            Future<?> moving = mover.submit(() -> {
                var r = new Random(SEED + 1);
                try (Connection admin = differential.router.connect(); var st = admin.createStatement()) {
                    while (!stop.get()) {
                        int key = 1 + r.nextInt(KEYS);
                        String where = r.nextInt(4) == 0 ? "id IN (" + key + ", " + (1 + r.nextInt(KEYS)) + ")" : "id = " + key;
                        var set = new TreeSet<Integer>();
                        int size = r.nextInt(3) + 1;
                        while (set.size() < size) set.add(r.nextInt(4));
                        var names = set.stream().map(p -> "p" + p).toList();
                        String to = names.size() == 1 ? names.getFirst() : "(" + String.join(", ", r.nextBoolean() ? names : names.reversed()) + ")";
                        try {
                            st.executeUpdate("ALTER TABLE users SET PARTITION = " + to + " WHERE " + where);
                            moves.incrementAndGet();
                        } catch (SQLException e) {
                            if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205 && !e.getMessage().contains("Deadlock")) throw e;
                            deadlocks.incrementAndGet();
                        }
                    }
                }
                return null;
            });
            long until = System.nanoTime() + 20_000_000_000L;
            while (System.nanoTime() < until || statements < 300) {
                String sql = random.nextInt(8) == 0 ? unkeyedWrite(random) : PlacementDifferentialIT.statement(random);
                Connection lutra = routers.get(random.nextInt(routers.size()));
                String context = "seed " + SEED + ", statement " + statements + " (" + moves.get() + " moves so far): " + sql;
                var expected = PlacementDifferentialIT.outcome(differential.reference, sql);
                var answered = PlacementDifferentialIT.retrying(lutra, sql, deadlocks, ReplicatedKeysIT::noteError);
                assertEquals(expected, answered, context + " (the router's error, if any: " + lastError + ")");
                statements++;
                if (statements % 20 == 0) {
                    // while the mover replicates and un-replicates (the scans ask about copies in the snapshots they read in)
                    var some = new ArrayList<>(List.of("SELECT COUNT(*), SUM(karma) FROM users", "SELECT COUNT(*) FROM followers",
                            "SELECT author, COUNT(*), SUM(likes) FROM tweets GROUP BY author ORDER BY author"));
                    some.add(GROUP_SCANS.get(random.nextInt(GROUP_SCANS.size())));
                    for (String scan : some) {
                        Connection r = routers.get(random.nextInt(routers.size()));
                        assertEquals(PlacementDifferentialIT.outcome(differential.reference, scan), PlacementDifferentialIT.outcome(r, scan), context + "; " + scan);
                        scans++;
                    }
                }
            }
            stop.set(true);
            moving.get();
        } finally {
            stop.set(true);
            mover.shutdownNow();
        }
        System.out.printf("ReplicatedKeysIT: seed %d, %d statements and %d scans through 3 routers, %d replications/moves meanwhile,"
                + " %d deadlocks retried, all as one database%n", SEED, statements, scans, moves.get(), deadlocks.get());
        assertTrue(moves.get() > 20, moves.get() + " moves");
        for (String table : List.of("users ORDER BY id", "followers ORDER BY source, destination", "tweets ORDER BY id")) {
            String sql = "SELECT * FROM " + table;
            assertEquals(PlacementDifferentialIT.outcome(differential.reference, sql), PlacementDifferentialIT.outcome(differential.lutra, sql), sql);
        }
        for (int key = 1; key <= KEYS; key++) assertCopiesIdentical(key);
    }

    /** A replication is a move job: paused after its first batch (the statement says how to go on), resumed, done; then un-replicated. */
    @Test
    @Order(4)
    void aReplicationIsAJobThatIsPausedAndResumed() throws Exception {
        String database = ("replpause_" + Long.toString(new Random().nextLong() >>> 24, 36)).toLowerCase();
        try (TestRouter a = new TestRouter(shards, database, MoveJobsIT.SCHEMA, null, shards.size(), null, 8, 0,
                new org.lutra.config.RouterConfig.CatalogSettings(0, null, null, 40))) {
            MoveJobsIT.users(a, 1, 600);
            var failure = new java.util.concurrent.CompletableFuture<SQLException>();
            var replicating = Thread.ofPlatform().start(() -> {
                try (Connection x = a.connect()) {
                    x.createStatement().executeUpdate("ALTER TABLE users SET PARTITION = (p1, p3) WHERE id <= 600");
                    failure.complete(null);
                } catch (SQLException e) {
                    failure.complete(e);
                }
            });
            long id = 0;
            try (Connection x = a.connect(); var st = x.createStatement()) {
                long until = System.currentTimeMillis() + 60_000;
                while (id == 0 && System.currentTimeMillis() < until) {
                    Thread.sleep(20);
                    try (var rs = st.executeQuery("SHOW MOVES")) {
                        if (rs.next() && rs.getString("Statement").contains("(p1, p3)")) id = rs.getLong("Id");
                    }
                }
                assertNotEquals(0, id, "SHOW MOVES lists the replication");
                MoveJobsIT.awaitDone(a, id, 100);
                st.execute("PAUSE MOVE " + id);
                SQLException e = failure.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertNotNull(e, "the statement reports the pause");
                assertTrue(e.getMessage().contains("RESUME MOVE " + id), e.getMessage());
                replicating.join();
                st.execute("RESUME MOVE " + id);
                MoveJobsIT.awaitState(a, id, "done", 120_000);
                var users = MoveJobsIT.onShards(a, "users", "id");
                var followers = MoveJobsIT.onShards(a, "followers", "source");
                for (int k = 1; k <= 600; k++) {
                    assertEquals(List.of(1, 3), users.get(k).stream().sorted().toList(), "user " + k);
                    assertEquals(List.of(1, 1, 3, 3), followers.get(k).stream().sorted().toList(), "followers of " + k);
                }
                try (var rs = st.executeQuery("SELECT COUNT(*), SUM(id) FROM users")) {
                    assertTrue(rs.next());
                    assertEquals(600, rs.getLong(1), "each replicated user counted once");
                    assertEquals(600 * 601 / 2, rs.getLong(2));
                }
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM followers WHERE destination = 2")) {
                    assertTrue(rs.next());
                    assertEquals(600, rs.getLong(1));
                }
                assertEquals(600, st.executeUpdate("UPDATE users SET name = CONCAT(name, '!') WHERE id IN (" + range(1, 600) + ")"));
                assertEquals(1800, st.executeUpdate("ALTER TABLE users SET PARTITION = p0 WHERE id <= 600"), "600 users and 1200 followers leave p1");
            }
            var all = new java.util.HashMap<Integer, Integer>();
            for (int k = 1; k <= 600; k++) all.put(k, 0);
            MoveJobsIT.assertPlaced(a, 1, 600, all);
            try (Connection p0 = a.partition(0); var rs = p0.createStatement().executeQuery("SELECT COUNT(*) FROM users WHERE name LIKE '%!'")) {
                assertTrue(rs.next());
                assertEquals(600, rs.getLong(1), "the update reached the copy that stayed");
            }
        }
    }

    static String range(int from, int to) {
        var sb = new StringBuilder();
        for (int k = from; k <= to; k++) sb.append(k == from ? "" : ", ").append(k);
        return sb.toString();
    }

    // ---- checks on the shards, past the routers -------------------------------------------------

    /** The key's rows of every group table are on exactly {@code partitions}, identical on each. */
    /** An UPDATE or DELETE that names no keys: it reaches every copy of the replicated keys it matches. */
    static String unkeyedWrite(Random r) {
        int n = r.nextInt(7);
        return switch (r.nextInt(4)) {
            case 0 -> "UPDATE users SET karma = karma + 1 WHERE karma % 7 = " + n;
            case 1 -> "UPDATE tweets SET likes = likes + 1 WHERE likes % 7 = " + n;
            case 2 -> "DELETE FROM followers WHERE destination = " + (1 + r.nextInt(KEYS));
            default -> "UPDATE users SET name = CONCAT(name, '!') WHERE name LIKE 'u" + n + "%' AND LENGTH(name) < 12";
        };
    }

    /** A REPLICATED table's partitions run each write too: the same values on each (found by hand: UUID() gave four). */
    @Test
    @Order(5)
    void aReplicatedTableGetsTheSameValuesOnEveryPartition() throws Exception {
        try (var st = differential.lutra.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS clocks (code INT PRIMARY KEY, v VARCHAR(64) NOT NULL,"
                    + " at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)) REPLICATED");
            st.executeUpdate("DELETE FROM clocks");
            assertEquals(2, st.executeUpdate("INSERT INTO clocks (code, v) VALUES (1, CONCAT('t', NOW(6))), (2, 'b')"));
            assertEquals(1, st.executeUpdate("UPDATE clocks SET v = UNIX_TIMESTAMP(NOW(6)) WHERE code = 2"));
            assertEquals(1, st.executeUpdate("REPLACE INTO clocks (code, v) VALUES (3, CURRENT_TIMESTAMP(6))"));
            st.execute("ALTER TABLE clocks DROP COLUMN IF EXISTS added");
            st.execute("ALTER TABLE clocks ADD COLUMN added DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"); // the rows there get one time
            for (String sql : List.of("UPDATE clocks SET v = UUID()", "INSERT INTO clocks (code, v) VALUES (4, RAND())",
                    "UPDATE clocks SET v = SYSDATE(6) WHERE code = 1")) {
                assertEquals(1235, error(differential.lutra, sql), sql);
            }
        }
        var first = rows(0, "SELECT * FROM clocks ORDER BY code");
        assertEquals(3, first.size(), first.toString());
        for (int p = 1; p < 4; p++) assertEquals(first, rows(p, "SELECT * FROM clocks ORDER BY code"), "p" + p + " against p0");
    }

    /**
     * A write of a replicated key's copies does not wait for other transactions' writes on the same partitions, nor
     * two writers of copies for each other. The triggers' read of the copy writers' marks is a locking read: when it
     * found no row (an unmarked write, or a mark deleted) it locked the gap, and a mark inserted there waited until
     * that transaction ended; two writers whose copy sets overlap in different orders deadlocked across shards.
     */
    @Test
    @Order(6)
    void writersOfCopiesWaitNeitherForOtherWritesOnTheirPartitionsNorForEachOther() throws Exception {
        differential.both("INSERT INTO users (id, name, karma) VALUES (5201, 'copied', 1), (5202, 'single', 2), (5203, 'copied too', 3)");
        try (var st = viaC.createStatement()) {
            st.executeUpdate("ALTER TABLE users SET PARTITION = (p1, p3) WHERE id = 5201");
            st.executeUpdate("ALTER TABLE users SET PARTITION = (p3, p1) WHERE id = 5203");
            st.executeUpdate("ALTER TABLE users SET PARTITION = p1 WHERE id = 5202");
        }
        try {
            viaB.setAutoCommit(false);
            try {
                write(viaB, "INSERT INTO tweets (id, author) VALUES (520201, 5202)"); // open on p1, unmarked
                write(viaB, "INSERT INTO tweets (id, author) VALUES (520301, 5203)"); // open on p3 and p1, marked and unmarked again
                var other = java.util.concurrent.CompletableFuture.supplyAsync(() -> outcome(viaC, "INSERT INTO tweets (id, author) VALUES (520101, 5201)"));
                assertEquals(List.of("count 1"), other.get(120, java.util.concurrent.TimeUnit.SECONDS),
                        "a replicated key's insert on p1 and p3 while another transaction writes there: " + lastError);
                viaB.commit();
            } finally {
                viaB.rollback();
                viaB.setAutoCommit(true);
            }
            differential.reference.createStatement().executeUpdate("INSERT INTO tweets (id, author) VALUES (520101, 5201)");
            same(viaB, "SELECT id, author FROM tweets WHERE author BETWEEN 5201 AND 5203 ORDER BY id");
            assertReplicas(5201, List.of(1, 3));
            assertReplicas(5203, List.of(1, 3));
        } finally {
            try (var st = viaC.createStatement()) {
                st.executeUpdate("ALTER TABLE users SET PARTITION = p2 WHERE id IN (5201, 5203)");
            }
            for (Connection x : new Connection[] {differential.reference, viaC}) { // counts differ where the test failed halfway
                try (var st = x.createStatement()) {
                    st.executeUpdate("DELETE FROM tweets WHERE author > 5200");
                    st.executeUpdate("DELETE FROM users WHERE id > 5200");
                }
            }
        }
    }

    void assertReplicas(int key, List<Integer> partitions) throws SQLException {
        var holding = holding(key);
        assertEquals(new TreeSet<>(partitions), holding, "key " + key + " is on " + holding);
        assertCopiesIdentical(key);
    }

    void assertOnePartition(int key) throws SQLException {
        var holding = holding(key);
        assertTrue(holding.size() <= 1, "key " + key + " is on " + holding);
    }

    /** Every partition holding any row of the key holds the same rows of every group table. */
    void assertCopiesIdentical(int key) throws SQLException {
        var holding = holding(key);
        for (String g : GROUP) {
            String[] tc = g.split(":");
            List<String> first = null;
            for (int p : holding) {
                var rows = rows(p, "SELECT * FROM " + tc[0] + " WHERE " + tc[1] + " = " + key + " ORDER BY 1, 2");
                if (first == null) first = rows;
                assertEquals(first, rows, "key " + key + ": " + tc[0] + " on p" + p + " differs from p" + holding.first());
            }
        }
    }

    TreeSet<Integer> holding(int key) throws SQLException {
        var out = new TreeSet<Integer>();
        for (int p = 0; p < 4; p++) {
            for (String g : GROUP) {
                String[] tc = g.split(":");
                if (!rows(p, "SELECT 1 FROM " + tc[0] + " WHERE " + tc[1] + " = " + key + " LIMIT 1").isEmpty()) out.add(p);
            }
        }
        return out;
    }

    List<String> rows(int partition, String sql) throws SQLException {
        try (Connection shard = differential.router.partition(partition); var st = shard.createStatement(); var rs = st.executeQuery(sql)) {
            var out = new ArrayList<String>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                var row = new StringBuilder();
                for (int i = 1; i <= n; i++) row.append(rs.getString(i)).append('|');
                out.add(row.toString());
            }
            return out;
        }
    }

    void same(Connection lutra, String sql) {
        assertEquals(PlacementDifferentialIT.outcome(differential.reference, sql), PlacementDifferentialIT.outcome(lutra, sql), sql);
    }

    void write(Connection lutra, String sql) {
        var expected = PlacementDifferentialIT.outcome(differential.reference, sql);
        assertEquals(expected, PlacementDifferentialIT.outcome(lutra, sql), sql);
        assertFalse(expected.getFirst().startsWith("error"), sql + ": " + expected);
    }

    /** The last error {@link #outcome} saw, for the failure message. */
    static volatile String lastError;

    /** {@link PlacementDifferentialIT#outcome}, keeping the error's message for the failure's. */
    static List<String> outcome(Connection connection, String sql) {
        return PlacementDifferentialIT.outcome(connection, sql, ReplicatedKeysIT::noteError);
    }

    private static void noteError(SQLException e) {
        lastError = e.getSQLState() + " " + e.getMessage();
    }

    static int error(Connection lutra, String sql) {
        try (var st = lutra.createStatement()) {
            st.execute(sql);
            return 0;
        } catch (SQLException e) {
            return e.getErrorCode();
        }
    }
}
