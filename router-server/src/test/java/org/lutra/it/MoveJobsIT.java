package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lutra.config.RouterConfig;
import org.lutra.placement.FailPoints;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * LOAD LOOKUP TABLE ... [APPLY] and moves as durable jobs (SHOW MOVES, PAUSE / RESUME MOVE, a
 * router killed mid-move and started again). Every check reads the shards themselves, past the
 * routers: each key's rows exactly once, on the partition the map names, SAME AS rows with their owner.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MoveJobsIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;

    Shards shards;
    Path maps;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        maps = Files.createTempDirectory("lutra-maps");
    }

    @AfterAll
    void stop() {}

    TestRouter router(String prefix, int pauseMillis) throws Exception {
        String database = (prefix + "_" + Long.toString(new Random().nextLong() >>> 24, 36)).toLowerCase();
        return new TestRouter(shards, database, SCHEMA, null, shards.size(), null, 8, 0, new RouterConfig.CatalogSettings(0, null, maps, pauseMillis));
    }

    /** Users from..to (each with two followers rows) inserted through the router, where DEFAULT NEW puts them. */
    static void users(TestRouter r, int from, int to) throws SQLException {
        try (Connection c = r.connect()) {
            users(c, from, to);
        }
    }

    /** The same rows through {@code c} (a router, or a plain database to compare with). */
    static void users(Connection c, int from, int to) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (int start = from; start <= to; start += 250) {
                var u = new StringBuilder("INSERT INTO users (id, name) VALUES ");
                var f = new StringBuilder("INSERT INTO followers (source, destination) VALUES ");
                for (int id = start; id <= Math.min(to, start + 249); id++) {
                    u.append(id == start ? "" : ", ").append("(").append(id).append(", 'user").append(id).append("')");
                    f.append(id == start ? "" : ", ").append("(").append(id).append(", 1), (").append(id).append(", 2)");
                }
                st.executeUpdate(u.toString());
                st.executeUpdate(f.toString());
            }
        }
    }

    /** key -> partitions holding a row of {@code table} with that key, read on the shards (a list: a duplicate shows twice). */
    static Map<Integer, List<Integer>> onShards(TestRouter r, String table, String column) throws SQLException {
        var out = new HashMap<Integer, List<Integer>>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = r.partition(p); var rs = shard.createStatement().executeQuery("SELECT " + column + " FROM " + table)) {
                while (rs.next()) out.computeIfAbsent(rs.getInt(1), k -> new ArrayList<>()).add(p);
            }
        }
        return out;
    }

    /** Every user from..to exactly once, on {@code expected}'s partition; its two followers rows with it. */
    static void assertPlaced(TestRouter r, int from, int to, Map<Integer, Integer> expected) throws SQLException {
        var users = onShards(r, "users", "id");
        var followers = onShards(r, "followers", "source");
        for (int id = from; id <= to; id++) {
            int want = expected.getOrDefault(id, id % 4);
            assertEquals(List.of(want), users.get(id), "user " + id + ": exactly once, on p" + want);
            assertEquals(List.of(want, want), followers.get(id), "followers of " + id + ": both with their user");
        }
        assertEquals(to - from + 1, users.keySet().stream().filter(k -> k >= from && k <= to).count());
    }

    Path csv(String name, Map<Integer, Integer> map) throws Exception {
        var sb = new StringBuilder("# key,partition\n");
        map.forEach((k, p) -> sb.append(k).append(",p").append(p).append('\n'));
        return Files.writeString(maps.resolve(name), sb);
    }

    static Map<Integer, Integer> randomMap(int from, int to, long seed) {
        var rnd = new Random(seed);
        var map = new java.util.LinkedHashMap<Integer, Integer>();
        for (int id = from; id <= to; id++) map.put(id, rnd.nextInt(4));
        return map;
    }

    /** SHOW MOVES' row for {@code id}: state, keys done, keys total, router. */
    static Object[] move(TestRouter r, long id) throws SQLException {
        try (Connection c = r.connect(); var rs = c.createStatement().executeQuery("SHOW MOVES")) {
            while (rs.next()) {
                if (rs.getLong("Id") == id) {
                    return new Object[] {rs.getString("State"), rs.getLong("Keys_done"), rs.getLong("Keys_total"), rs.getString("Router"),
                            rs.getString("Message")};
                }
            }
        }
        return null;
    }

    /** Waits until move {@code id} has done at least {@code keys} keys (and is not done with all of them yet: the test needs the middle). */
    static void awaitDone(TestRouter r, long id, long keys) throws Exception {
        long until = System.currentTimeMillis() + 60_000;
        Object[] m = move(r, id);
        while ((m == null || (long) m[1] < keys) && System.currentTimeMillis() < until) {
            Thread.sleep(20);
            m = move(r, id);
        }
        assertNotNull(m, "move " + id);
        assertTrue((long) m[1] >= keys && (long) m[1] < (long) m[2] && m[0].equals("running"), "in the middle of the move: " + java.util.Arrays.toString(m));
    }

    static void awaitState(TestRouter r, long id, String state, long timeoutMillis) throws Exception {
        long until = System.currentTimeMillis() + timeoutMillis;
        Object[] m = null;
        while (System.currentTimeMillis() < until) {
            m = move(r, id);
            if (m != null && state.equals(m[0])) return;
            Thread.sleep(100);
        }
        fail("move " + id + " did not become " + state + ": " + java.util.Arrays.toString(m));
    }

    /** The plan LOAD returned: action -> [keys, rows], and the move id (or 0). */
    record Plan(Map<String, long[]> actions, long move) {}

    static Plan load(Connection c, String sql) throws SQLException {
        var actions = new HashMap<String, long[]>();
        long move = 0;
        try (var rs = c.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                var sum = actions.computeIfAbsent(rs.getString("Action"), k -> new long[2]);
                sum[0] += rs.getLong("Keys");
                sum[1] += rs.getLong("Rows");
                if (rs.getObject("Move") != null) move = rs.getLong("Move");
            }
        }
        return new Plan(actions, move);
    }

    @Test
    void loadThenApplyPlacesEveryRowWhereTheMapSays() throws Exception {
        try (TestRouter a = router("loadapply", 1); TestRouter b = new TestRouter(a, "routerB", RouterConfig.CatalogSettings.defaults())) {
            users(a, 1, 3000);
            var map = randomMap(1, 3200, 11); // 3001..3200 have no rows yet
            csv("load.csv", map);
            long misplaced = map.entrySet().stream().filter(e -> e.getKey() <= 3000 && e.getKey() % 4 != e.getValue()).count();
            long unplaced = map.entrySet().stream().filter(e -> e.getKey() > 3000 && e.getKey() % 4 != e.getValue()).count();
            try (Connection c = a.connect()) {
                // without APPLY: the rowless keys are placed, nothing moves
                var plan = load(c, "LOAD LOOKUP TABLE users FROM 'load.csv' FORMAT csv");
                assertEquals(misplaced, plan.actions().get("would move")[0]);
                assertEquals(misplaced * 3, plan.actions().get("would move")[1], "a user and two followers rows each");
                assertEquals(unplaced, plan.actions().get("place")[0]);
                assertPlaced(a, 1, 3000, Map.of());
                // a router that never saw the map inserts a placed key: it lands where the map put it
                try (Connection cb = b.connect(); Statement st = cb.createStatement()) {
                    for (int id = 3001; id <= 3040; id++) {
                        st.executeUpdate("INSERT INTO users (id, name) VALUES (" + id + ", 'late')");
                        st.executeUpdate("INSERT INTO followers (source, destination) VALUES (" + id + ", 1), (" + id + ", 2)");
                    }
                }
                var placed = new HashMap<Integer, Integer>();
                for (int id = 3001; id <= 3040; id++) placed.put(id, map.get(id));
                assertPlaced(a, 3001, 3040, placed);

                plan = load(c, "LOAD LOOKUP TABLE users FROM 'load.csv' FORMAT csv APPLY");
                assertEquals(misplaced, plan.actions().get("move")[0]);
                assertEquals(misplaced * 3, plan.actions().get("move")[1]);
                assertNull(plan.actions().get("place"), "placed by the first LOAD");
                assertTrue(plan.move() > 0);
                awaitState(b, plan.move(), "done", 120_000); // followed from the other router
                Object[] m = move(b, plan.move());
                assertEquals(misplaced, (long) m[1]);
                assertEquals(misplaced, (long) m[2]);
            }
            var expected = new HashMap<>(map);
            assertPlaced(a, 1, 3040, expected);
            // reads through both routers see every user once (b's cache is stale for every moved key)
            for (TestRouter r : List.of(a, b)) {
                try (Connection c = r.connect(); var rs = c.createStatement().executeQuery(
                        "SELECT COUNT(*), COUNT(DISTINCT id) FROM users WHERE id BETWEEN 1 AND 3040")) {
                    rs.next();
                    assertEquals(3040, rs.getLong(1));
                    assertEquals(3040, rs.getLong(2));
                }
            }
        }
    }

    /**
     * The router stops abruptly in the middle of a LOAD ... APPLY: between two batches, or inside a
     * batch's two-phase commit (every branch prepared, no decision: recovery rolls the batch back;
     * the decision logged, no branch committed: recovery commits it). Started again under the same
     * name, it settles the cut batch, resumes the move, and every row is there exactly once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"between-batches", FailPoints.AFTER_PREPARE, FailPoints.AFTER_DECISION})
    void aMoveInterruptedByARouterCrashIsResumedWhenItStartsAgain(String cut) throws Exception {
        TestRouter a = router("movecrash", 40); // slow batches: the crash comes in the middle
        TestRouter again = null;
        var frozen = new java.util.concurrent.CountDownLatch(1);
        try {
            users(a, 1, 2000);
            var map = randomMap(1, 2000, cut.hashCode());
            csv("crash.csv", map);
            var commits = new java.util.concurrent.atomic.AtomicInteger();
            var hookCrash = new java.util.concurrent.CompletableFuture<Void>();
            try (var hook = FailPoints.install(point -> {
                // the move's thread freezes here while the router is closed under it, as if the process died
                if (point.equals(cut) && Thread.currentThread().getName().startsWith("lutra-move-") && commits.incrementAndGet() == 4) {
                    Thread.ofPlatform().start(() -> {
                        a.stopRouter();
                        hookCrash.complete(null);
                        frozen.countDown();
                    });
                    try {
                        frozen.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IllegalStateException("the router died here");
                }
            })) {
                long id;
                try (Connection c = a.connect()) {
                    id = load(c, "LOAD LOOKUP TABLE users FROM 'crash.csv' FORMAT csv APPLY").move();
                }
                if (cut.equals("between-batches")) {
                    awaitDone(a, id, 300);
                    a.stopRouter();
                } else {
                    hookCrash.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
                try (Connection p0 = a.partition(0); var rs = p0.createStatement().executeQuery(
                        "SELECT state, keys_done, keys_total FROM lutra_moves WHERE id = " + id)) {
                    rs.next();
                    assertEquals("running", rs.getString(1), "a crashed router's move stays running in the log");
                    assertTrue(rs.getLong(2) < rs.getLong(3), "interrupted in the middle: " + rs.getLong(2) + " of " + rs.getLong(3));
                }
                if (!cut.equals("between-batches")) assertTrue(preparedBranches(a) > 0, "the cut batch left prepared branches");
                again = new TestRouter(a, "router", new RouterConfig.CatalogSettings(0, null, maps, -1)); // same name: resumes at start
                awaitState(again, id, "done", 120_000);
            }
            assertPlaced(again, 1, 2000, map);
            assertEquals(0, preparedBranches(again), "recovery settled the cut batch");
        } finally {
            frozen.countDown();
            if (again != null) {
                again.close(); // and the databases
            } else {
                a.close();
            }
        }
    }

    /**
     * A replication (a LOAD ... APPLY whose lines name two partitions) cut inside a batch's two-phase commit — every branch
     * prepared and no decision (recovery rolls the batch back), or the decision logged and no branch committed (recovery commits
     * it) — by the router stopping under it; started again under the same name, the router settles the batch, resumes, and every
     * key is on both partitions of its line, once on each, with placement rows naming the set.
     */
    @ParameterizedTest
    @ValueSource(strings = {FailPoints.AFTER_PREPARE, FailPoints.AFTER_DECISION})
    void aReplicationCutInsideItsTwoPhaseCommitIsSettledAndResumed(String cut) throws Exception {
        TestRouter a = router("replcrash", 40);
        TestRouter again = null;
        var frozen = new java.util.concurrent.CountDownLatch(1);
        try {
            users(a, 1, 1000);
            var rnd = new Random(cut.hashCode());
            var sets = new HashMap<Integer, List<Integer>>();
            var csv = new StringBuilder();
            for (int k = 1; k <= 1000; k++) {
                int p = rnd.nextInt(4);
                int q = (p + 1 + rnd.nextInt(3)) % 4;
                sets.put(k, List.of(Math.min(p, q), Math.max(p, q)));
                csv.append(k).append(",p").append(p).append(",p").append(q).append('\n');
            }
            Files.writeString(maps.resolve("replcrash.csv"), csv);
            var commits = new java.util.concurrent.atomic.AtomicInteger();
            var hookCrash = new java.util.concurrent.CompletableFuture<Void>();
            try (var hook = FailPoints.install(point -> {
                if (point.equals(cut) && Thread.currentThread().getName().startsWith("lutra-move-") && commits.incrementAndGet() == 3) {
                    Thread.ofPlatform().start(() -> {
                        a.stopRouter();
                        hookCrash.complete(null);
                        frozen.countDown();
                    });
                    try {
                        frozen.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IllegalStateException("the router died here");
                }
            })) {
                long id;
                try (Connection c = a.connect()) {
                    id = load(c, "LOAD LOOKUP TABLE users FROM 'replcrash.csv' FORMAT csv APPLY").move();
                }
                hookCrash.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(preparedBranches(a) > 0, "the cut batch left prepared branches");
                again = new TestRouter(a, "router", new RouterConfig.CatalogSettings(0, null, maps, -1)); // same name: resumes at start
                awaitState(again, id, "done", 120_000);
            }
            RouterProcessKillIT.assertPlacement(again, sets);
            assertEquals(0, preparedBranches(again), "recovery settled the cut batch");
            try (Connection c = again.connect(); var rs = c.createStatement().executeQuery("SELECT COUNT(*), SUM(id) FROM users")) {
                assertTrue(rs.next());
                assertEquals(1000, rs.getLong(1), "each replicated user counted once");
                assertEquals(1000 * 1001 / 2, rs.getLong(2));
            }
        } finally {
            frozen.countDown();
            if (again != null) {
                again.close(); // and the databases
            } else {
                a.close();
            }
        }
    }

    /** XA branches prepared and not yet decided on the shards of this test's partitions. */
    static long preparedBranches(TestRouter r) throws SQLException {
        long n = 0;
        for (int s = 0; s < r.servers; s++) {
            try (Connection c = r.shards.connect(s); var rs = c.createStatement().executeQuery("XA RECOVER")) {
                while (rs.next()) n++;
            }
        }
        return n;
    }

    @Test
    void pauseAndResumeFromAnotherRouter() throws Exception {
        try (TestRouter a = router("movepause", 40); TestRouter b = new TestRouter(a, "routerB", RouterConfig.CatalogSettings.defaults())) {
            users(a, 1, 1500);
            var map = randomMap(1, 1500, 3);
            csv("pause.csv", map);
            long id;
            try (Connection c = a.connect()) {
                id = load(c, "LOAD LOOKUP TABLE users FROM 'pause.csv' FORMAT csv APPLY").move();
            }
            try (Connection cb = b.connect(); Statement st = cb.createStatement()) {
                awaitDone(b, id, 200);
                st.execute("PAUSE MOVE " + id);
                Thread.sleep(500); // the runner stops before its next batch
                long done = (long) move(b, id)[1];
                Thread.sleep(500);
                Object[] paused = move(b, id);
                assertEquals("paused", paused[0]);
                assertEquals(done, (long) paused[1], "no batch after the pause");
                assertTrue(done < (long) paused[2]);
                var e = assertThrows(SQLException.class, () -> st.execute("PAUSE MOVE " + id));
                assertTrue(e.getMessage().contains("paused, not running"), e.getMessage());
                st.execute("RESUME MOVE " + id); // b takes it over
                awaitState(a, id, "done", 120_000);
                assertEquals("routerB", move(a, id)[3]);
                assertThrows(SQLException.class, () -> st.execute("RESUME MOVE " + id), "a done move is not resumed");
                assertThrows(SQLException.class, () -> st.execute("PAUSE MOVE 999999"));
            }
            assertPlaced(a, 1, 1500, map);
        }
    }

    @Test
    void aPausedSetPartitionEndsItsStatementAndIsResumed() throws Exception {
        try (TestRouter a = router("setpause", 40)) {
            users(a, 1, 1200);
            var failure = new java.util.concurrent.CompletableFuture<SQLException>();
            var mover = Thread.ofPlatform().start(() -> {
                try (Connection c = a.connect()) {
                    c.createStatement().executeUpdate("ALTER TABLE users SET PARTITION = p2 WHERE id <= 1200");
                    failure.complete(null);
                } catch (SQLException e) {
                    failure.complete(e);
                }
            });
            long id = 0;
            try (Connection c = a.connect(); Statement st = c.createStatement()) {
                long until = System.currentTimeMillis() + 60_000;
                while (id == 0 && System.currentTimeMillis() < until) {
                    Thread.sleep(20);
                    try (var rs = st.executeQuery("SHOW MOVES")) {
                        if (rs.next() && rs.getString("Statement").startsWith("ALTER TABLE users")) id = rs.getLong("Id");
                    }
                }
                assertNotEquals(0, id, "SHOW MOVES lists the SET PARTITION");
                awaitDone(a, id, 100);
                st.execute("PAUSE MOVE " + id);
                SQLException e = failure.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertNotNull(e, "the statement reports the pause");
                assertTrue(e.getMessage().contains("RESUME MOVE " + id), e.getMessage());
                mover.join();
                st.execute("RESUME MOVE " + id);
                awaitState(a, id, "done", 120_000);
            }
            var all = new HashMap<Integer, Integer>();
            for (int i = 1; i <= 1200; i++) all.put(i, 2);
            assertPlaced(a, 1, 1200, all);
        }
    }

    /**
     * A batch that fails (a trigger on the target refuses one row) rolls back whole: the move is
     * failed with the reason, the SET PARTITION says so, and RESUME MOVE finishes it once the cause is gone.
     */
    @Test
    void aFailedBatchLeavesTheMoveFailedAndResumable() throws Exception {
        try (TestRouter a = router("movefail", 1); Connection c = a.connect(); Statement st = c.createStatement()) {
            users(a, 1, 600);
            try (Connection p1 = a.partition(1); Statement shard = p1.createStatement()) {
                shard.execute("CREATE TRIGGER refuse_450 BEFORE INSERT ON users FOR EACH ROW BEGIN IF NEW.id = 450 THEN"
                        + " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no 450 here'; END IF; END");
            }
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("ALTER TABLE users SET PARTITION = p1 WHERE id <= 600"));
            assertTrue(e.getMessage().contains("no 450 here") && e.getMessage().contains("RESUME MOVE"), e.getMessage());
            long id;
            long done;
            try (var rs = st.executeQuery("SHOW MOVES")) {
                assertTrue(rs.next());
                id = rs.getLong("Id");
                assertEquals("failed", rs.getString("State"));
                done = rs.getLong("Keys_done");
                assertTrue(rs.getString("Message").contains("no 450 here"), rs.getString("Message"));
            }
            // the times as the log holds them: a fraction with a leading zero came back as .12000 for .012
            try (Connection p0 = a.partition(0); Statement shard = p0.createStatement()) {
                shard.executeUpdate("UPDATE lutra_moves SET started = '2026-01-02 03:04:05.012', updated = '2026-01-02 03:04:06.000' WHERE id = " + id);
            }
            try (var rs = st.executeQuery("SHOW MOVES")) {
                assertTrue(rs.next());
                assertEquals("2026-01-02 03:04:05.012", rs.getString("Started"));
                assertEquals("2026-01-02 03:04:06.000", rs.getString("Updated"));
            }
            // the plan's keys before Keys_done are on p1; the failed batch (the next 100, holding 450) and the rest are not moved at all
            var partly = new HashMap<Integer, Integer>();
            try (Connection p0 = a.partition(0); var rs = p0.createStatement().executeQuery("SELECT seq, k FROM lutra_move_keys WHERE move_id = " + id)) {
                while (rs.next()) {
                    int key = Integer.parseInt(rs.getString(2));
                    if (rs.getLong(1) < done) partly.put(key, 1);
                    if (key == 450) assertTrue(rs.getLong(1) >= done && rs.getLong(1) < done + 100, "450 is in the failed batch");
                }
            }
            assertEquals(done, partly.size());
            assertPlaced(a, 1, 600, partly);
            try (Connection p1 = a.partition(1); Statement shard = p1.createStatement()) {
                shard.execute("DROP TRIGGER refuse_450");
            }
            st.execute("RESUME MOVE " + id);
            awaitState(a, id, "done", 60_000);
            var all = new HashMap<Integer, Integer>();
            for (int i = 1; i <= 600; i++) all.put(i, 1);
            assertPlaced(a, 1, 600, all);
        }
    }

    /** METIS (partition file + vertex file) and Schism (rows of several tables) maps, applied; a done move's plan is deleted. */
    @Test
    void metisAndSchismMapsAreApplied() throws Exception {
        try (TestRouter a = router("loadformats", 1); Connection c = a.connect()) {
            users(a, 1, 400);
            var metis = randomMap(1, 200, 21);
            var part = new StringBuilder();
            var vertices = new StringBuilder();
            metis.forEach((k, p) -> {
                part.append(p).append('\n');
                vertices.append(k).append('\n');
            });
            Files.writeString(maps.resolve("users.graph.part.4"), part);
            Files.writeString(maps.resolve("users.graph.vertices"), vertices);
            var schism = randomMap(201, 400, 22);
            var rows = new StringBuilder();
            schism.forEach((k, p) -> rows.append("users,").append(k).append(",p").append(p).append("\nfollowers,").append(k).append(",p").append(p)
                    .append("\ntweets,").append(k).append(",p0\n")); // rows of other tables are skipped
            Files.writeString(maps.resolve("users.schism"), rows);
            long first = load(c, "LOAD LOOKUP TABLE users FROM 'users.graph.part.4' FORMAT metis APPLY").move();
            awaitState(a, first, "done", 60_000);
            long second = load(c, "LOAD LOOKUP TABLE followers FROM 'users.schism' FORMAT schism APPLY").move(); // a SAME AS table's map fills its owner's
            awaitState(a, second, "done", 60_000);
            var schismPlan = load(c, "LOAD LOOKUP TABLE users FROM 'users.schism' FORMAT schism");
            assertNull(schismPlan.actions().get("would move"), "nothing left to move once the first APPLY is done: " + schismPlan.actions());
            var expected = new HashMap<Integer, Integer>(metis);
            expected.putAll(schism);
            assertPlaced(a, 1, 400, expected);
            try (Connection p0 = a.partition(0); var rs = p0.createStatement().executeQuery("SELECT COUNT(*) FROM lutra_move_keys")) {
                rs.next();
                assertEquals(0, rs.getLong(1), "a done move's plan is deleted");
            }
        }
    }

    /**
     * A map line naming several partitions replicates its key (as SET PARTITION = (p1, p3)): LOAD plans it, APPLY copies the
     * key's user and followers rows to each partition of the line, a key without rows gets its placement, so that a new row of
     * it lands on every copy; a second LOAD finds everything in place.
     */
    @Test
    void aMapLineWithSeveralPartitionsReplicatesTheKey() throws Exception {
        try (TestRouter a = router("loadrepl", 1); Connection c = a.connect(); Statement st = c.createStatement()) {
            users(a, 1, 300);
            var csv = new StringBuilder("# key,partition[,partition...]\n");
            for (int k = 1; k <= 100; k++) csv.append(k).append(",p3,p1\n"); // any order: the set's lowest partition is the primary
            for (int k = 101; k <= 200; k++) csv.append(k).append(",p2\n");
            for (int k = 401; k <= 420; k++) csv.append(k).append(",p0,2\n"); // no rows yet; a partition by name or id
            Files.writeString(maps.resolve("replicas.csv"), csv);
            var plan = load(c, "LOAD LOOKUP TABLE users FROM 'replicas.csv' FORMAT csv");
            assertEquals(100 + 75, plan.actions().get("would move")[0], "every replicated key, and the moved ones not at home on p2: " + plan.actions());
            assertEquals(20, plan.actions().get("place")[0]);
            assertEquals(25, plan.actions().get("in place")[0]);
            try (var rs = st.executeQuery("LOAD LOOKUP TABLE users FROM 'replicas.csv' FORMAT csv")) {
                var targets = new java.util.HashSet<String>();
                while (rs.next()) targets.add(rs.getString("To_partition"));
                assertTrue(targets.containsAll(List.of("p1, p3", "p2")), "the plan names the set: " + targets);
            }
            long id = load(c, "LOAD LOOKUP TABLE users FROM 'replicas.csv' FORMAT csv APPLY").move();
            awaitState(a, id, "done", 120_000);
            var users = onShards(a, "users", "id");
            var followers = onShards(a, "followers", "source");
            for (int k = 1; k <= 300; k++) {
                List<Integer> want = k <= 100 ? List.of(1, 3) : k <= 200 ? List.of(2) : List.of(k % 4);
                assertEquals(want, users.get(k).stream().sorted().toList(), "user " + k);
                var twice = new ArrayList<Integer>();
                for (int p : want) twice.addAll(List.of(p, p));
                assertEquals(twice, followers.get(k).stream().sorted().toList(), "followers of " + k);
            }
            try (var rs = st.executeQuery("SHOW LOOKUP users FOR 7")) {
                assertTrue(rs.next());
                assertEquals("p1, p3", rs.getString("Partition"));
            }
            // the placed keys: their first rows land on both partitions of their line
            for (int k = 401; k <= 420; k++) {
                assertEquals(1, st.executeUpdate("INSERT INTO users (id, name) VALUES (" + k + ", 'late')"));
                assertEquals(2, st.executeUpdate("INSERT INTO followers (source, destination) VALUES (" + k + ", 1), (" + k + ", 2)"));
            }
            users = onShards(a, "users", "id");
            for (int k = 401; k <= 420; k++) assertEquals(List.of(0, 2), users.get(k).stream().sorted().toList(), "user " + k);
            try (var rs = st.executeQuery("SELECT COUNT(*), SUM(id) FROM users")) {
                assertTrue(rs.next());
                assertEquals(320, rs.getLong(1), "each replicated user counted once");
                assertEquals(300 * 301 / 2 + (401 + 420) * 10, rs.getLong(2));
            }
            try (var rs = st.executeQuery("SELECT COUNT(*) FROM followers WHERE destination = 2")) {
                assertTrue(rs.next());
                assertEquals(320, rs.getLong(1));
            }
            plan = load(c, "LOAD LOOKUP TABLE users FROM 'replicas.csv' FORMAT csv APPLY");
            assertEquals(Map.of("in place", 220L), Map.of("in place", plan.actions().get("in place")[0]), "nothing left to do: " + plan.actions());
            assertEquals(1, plan.actions().size(), "nothing left to do: " + plan.actions().keySet());
        }
    }

    /**
     * Random malformed map files (bad numbers, unknown partitions, a key placed twice, truncated lines, huge values, keys beyond
     * the column's range, too many fields, binary junk), each with one bad line among good ones: every LOAD fails with 22000 naming the file and that line,
     * and nothing changes — no row moves, no placement row or move is written, the router's lookup table is as it was.
     */
    @Test
    void randomMalformedMapFilesChangeNothing() throws Exception {
        long seed = Long.getLong("lutra.mapfuzz.seed", System.nanoTime());
        System.out.println("MoveJobsIT map fuzz: seed " + seed + " (-Dlutra.mapfuzz.seed= repeats it)");
        var rnd = new Random(seed);
        try (TestRouter a = router("loadfuzz", 1); Connection c = a.connect(); Statement st = c.createStatement()) {
            users(a, 1, 100);
            var owner = a.server.catalog().table("users");
            var lookup = (org.lutra.catalog.Partitioning.LookedUp) owner.partitioning();
            var before = new HashMap<Integer, Integer>();
            for (int k = 1; k <= 120; k++) before.put(k, lookup.table().get(owner.key(k)));
            for (int file = 0; file < 40; file++) {
                boolean schism = rnd.nextInt(4) == 0;
                String prefix = schism ? "users," : "";
                var keys = new ArrayList<Integer>();
                for (int k = 1; k <= 120; k++) keys.add(k);
                java.util.Collections.shuffle(keys, rnd);
                var lines = new ArrayList<byte[]>();
                var placed = new HashMap<Integer, String>();
                if (rnd.nextBoolean()) lines.add("# a partitioner's output".getBytes());
                int good = 1 + rnd.nextInt(30);
                for (int i = 0; i < good; i++) {
                    int k = keys.get(i);
                    String parts = rnd.nextInt(5) == 0 ? "p" + rnd.nextInt(2) + ",p" + (2 + rnd.nextInt(2)) : (rnd.nextBoolean() ? "p" : "") + rnd.nextInt(4);
                    placed.put(k, parts);
                    lines.add((prefix + k + "," + parts).getBytes());
                }
                int badAt = rnd.nextInt(lines.size() + 1); // 0-based index of the bad line
                byte[] bad = switch (rnd.nextInt(12)) {
                    case 0 -> (prefix + keys.get(good) + ",p" + (4 + rnd.nextInt(100))).getBytes(); // no such partition
                    case 1 -> (prefix + keys.get(good) + "," + (4 + rnd.nextInt(1000))).getBytes(); // a partition id the table is not on
                    case 2 -> (prefix + "x" + rnd.nextInt(1000) + ",p1").getBytes(); // not a number
                    case 3 -> (prefix + "1" + "0".repeat(30 + rnd.nextInt(1000)) + ",p1").getBytes(); // a huge number
                    case 4 -> (prefix + keys.get(good) + ",99999999999999999999").getBytes(); // a huge partition id
                    case 5 -> (prefix + keys.get(good)).getBytes(); // truncated: no partition
                    case 6 -> (prefix + keys.get(good) + ",").getBytes(); // truncated: an empty partition
                    case 7 -> (prefix + keys.get(good) + ",p1,p9").getBytes(); // replicated, on an unknown partition
                    case 8 -> (prefix + keys.get(good) + ",p0".repeat(70)).getBytes(); // more fields than a line may have
                    case 10 -> (prefix + (rnd.nextBoolean() ? 2147483648L + rnd.nextInt(1000) : -2147483649L - rnd.nextInt(1000)) + ",p1").getBytes(); // beyond INT
                    case 9 -> { // binary junk where the key is: never a comment or blank, never UTF-8 (a Schism line names its table first)
                        byte[] junk = new byte[1 + rnd.nextInt(5000)];
                        rnd.nextBytes(junk);
                        for (int i = 0; i < junk.length; i++) if (junk[i] == '\n' || junk[i] == '\r') junk[i] = 0;
                        junk[0] = (byte) 0xFF;
                        var line = new java.io.ByteArrayOutputStream();
                        line.writeBytes(prefix.getBytes());
                        line.writeBytes(junk);
                        yield line.toByteArray();
                    }
                    default -> { // the same key on other partitions than an earlier line's (needs an earlier line)
                        if (badAt <= lines.size() - good) badAt = lines.size();
                        int k = keys.get(0);
                        String other = placed.get(k).equals("p3") || placed.get(k).equals("3") ? "p1" : "p3";
                        yield (prefix + k + "," + other).getBytes();
                    }
                };
                lines.add(badAt, bad);
                var out = new java.io.ByteArrayOutputStream();
                for (byte[] line : lines) {
                    out.write(line);
                    out.write('\n');
                }
                if (rnd.nextBoolean()) out.write((prefix + keys.get(119) + ",p1").getBytes()); // a last line without its newline
                String name = "fuzz" + file + (schism ? ".schism" : ".csv");
                Files.write(maps.resolve(name), out.toByteArray());
                String sql = "LOAD LOOKUP TABLE users FROM '" + name + "' FORMAT " + (schism ? "schism" : "csv") + (rnd.nextBoolean() ? " APPLY" : "");
                var e = assertThrows(SQLException.class, () -> st.executeQuery(sql).close(), sql + " (seed " + seed + ")");
                String where = name + ":" + (badAt + 1) + ": ";
                assertEquals("22000", e.getSQLState(), sql + " (seed " + seed + "): " + e.getMessage());
                assertTrue(e.getMessage().contains("nothing loaded") && e.getMessage().contains(where),
                        sql + " (seed " + seed + "): expected " + where + " in: " + e.getMessage());
                assertTrue(e.getMessage().length() < 1000, "a readable message: " + e.getMessage().length() + " characters");
                System.out.println("MoveJobsIT map fuzz: " + sql + " -> " + e.getMessage().substring(0, Math.min(200, e.getMessage().length())));
            }
            assertPlaced(a, 1, 100, Map.of());
            for (int p = 0; p < 4; p++) {
                try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT COUNT(*) FROM lutra_place_users")) {
                    rs.next();
                    assertEquals(0, rs.getLong(1), "no placement row written on p" + p);
                }
            }
            try (var rs = st.executeQuery("SHOW MOVES")) {
                assertFalse(rs.next(), "no move recorded");
            }
            for (int k = 1; k <= 120; k++) assertEquals(before.get(k), lookup.table().get(owner.key(k)), "lookup entry of " + k);
        }
    }

    @Test
    void malformedMapFilesAndPathsChangeNothing() throws Exception {
        try (TestRouter a = router("loadbad", 1); Connection c = a.connect(); Statement st = c.createStatement()) {
            users(a, 1, 100);
            Files.writeString(maps.resolve("badpartition.csv"), "1,p1\n2,p2\n3,p9\n");
            Files.writeString(maps.resolve("badkey.csv"), "1,p1\nseven,p2\n");
            Files.writeString(maps.resolve("short.csv"), "1,p1\n2\n");
            Files.writeString(maps.resolve("twice.csv"), "5,p1\n6,p2\n5,p3\n");
            Files.writeString(maps.resolve("range.csv"), "1,p1\n2147483647,p2\n3000000000,p2\n"); // INT's largest, then beyond it
            Files.writeString(maps.resolve("negative.csv"), "-2147483648,p1\n-2147483649,p2\n");
            Files.writeString(maps.resolve("short.graph.part.4"), "1\n2\n3\n");
            Files.writeString(maps.resolve("short.graph.vertices"), "1\n2\n");
            Path outside = Files.createTempFile("outside", ".csv");
            Files.writeString(outside, "1,p1\n");
            var cases = Map.of(
                    "LOAD LOOKUP TABLE users FROM 'badpartition.csv' FORMAT csv APPLY", "badpartition.csv:3: not a partition id: 'p9'",
                    "LOAD LOOKUP TABLE users FROM 'badkey.csv' FORMAT csv APPLY", "badkey.csv:2: key 'seven' is not an integer",
                    "LOAD LOOKUP TABLE users FROM 'short.csv' FORMAT csv APPLY", "short.csv:2: expected key,partition",
                    "LOAD LOOKUP TABLE users FROM 'twice.csv' FORMAT csv APPLY", "twice.csv:3: key 5 is placed on p3 here but on p1 by an earlier line",
                    "LOAD LOOKUP TABLE users FROM 'short.graph.part.4' FORMAT metis APPLY", "ends before the partition file",
                    "LOAD LOOKUP TABLE users FROM '../" + outside.getFileName() + "' FORMAT csv APPLY", "only inside catalog.map_dir",
                    "LOAD LOOKUP TABLE users FROM '" + outside + "' FORMAT csv APPLY", "only inside catalog.map_dir",
                    "LOAD LOOKUP TABLE users FROM 'missing.csv' FORMAT csv APPLY", "not found",
                    "LOAD LOOKUP TABLE users FROM 'badkey.csv' FORMAT parquet APPLY", "unknown map FORMAT 'parquet'",
                    "LOAD LOOKUP TABLE nosuch FROM 'badkey.csv' FORMAT csv", "doesn't exist");
            var outOfRange = Map.of( // keys the column cannot hold: no row can have them, and the placement table's column could not either
                    "LOAD LOOKUP TABLE users FROM 'range.csv' FORMAT csv APPLY", "range.csv:3: key 3000000000 is out of the range of users.id (INT)",
                    "LOAD LOOKUP TABLE users FROM 'negative.csv' FORMAT csv APPLY", "negative.csv:2: key -2147483649 is out of the range of users.id (INT)");
            for (var e : outOfRange.entrySet()) {
                var thrown = assertThrows(SQLException.class, () -> st.executeQuery(e.getKey()), e.getKey());
                assertTrue(thrown.getMessage().contains(e.getValue()), e.getKey() + " -> " + thrown.getMessage());
            }
            for (var e : cases.entrySet()) {
                var thrown = assertThrows(SQLException.class, () -> st.executeQuery(e.getKey()), e.getKey());
                assertTrue(thrown.getMessage().contains(e.getValue()), e.getKey() + " -> " + thrown.getMessage());
            }
            var syntax = assertThrows(SQLException.class, () -> st.executeQuery("LOAD LOOKUP TABLE users 'x.csv'"));
            assertEquals("42000", syntax.getSQLState());
            // a line of two partitions where the group has a secondary lookup (its entries name one partition a row)
            st.execute("CREATE INDEX by_destination ON followers (destination)");
            st.execute("CREATE SECONDARY LOOKUP follower_dest ON followers (destination)");
            Files.writeString(maps.resolve("secondary.csv"), "1,p1\n2,p1,p3\n");
            var secondary = assertThrows(SQLException.class, () -> st.executeQuery("LOAD LOOKUP TABLE users FROM 'secondary.csv' FORMAT csv APPLY"));
            assertTrue(secondary.getMessage().contains("secondary.csv:2: key 2 is placed on p1, p3, but Lutra does not support replicated keys in a"
                    + " lookup group with secondary lookups ('followers' has follower_dest)"), secondary.getMessage());
            st.execute("DROP SECONDARY LOOKUP follower_dest");
            assertPlaced(a, 1, 100, Map.of());
            for (int p = 0; p < 4; p++) {
                try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT COUNT(*) FROM lutra_place_users")) {
                    rs.next();
                    assertEquals(0, rs.getLong(1), "no placement row written on p" + p);
                }
            }
            try (var rs = st.executeQuery("SHOW MOVES")) {
                assertFalse(rs.next(), "no move recorded");
            }
        }
    }
}
