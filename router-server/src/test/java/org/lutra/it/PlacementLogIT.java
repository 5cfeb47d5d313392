package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.placement.FailPoints;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Routers hearing each other's placement changes through lutra_placement_log, and a router's
 * start from a peer, its snapshot file or a backend scan. Every placement is checked against the
 * shards themselves (each partition's database, past the routers).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlacementLogIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;
    static final int USERS = 400;

    TestRouter a;
    final List<TestRouter> others = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "placelog", SCHEMA);
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            var users = new StringBuilder();
            var followers = new StringBuilder();
            for (int id = 1; id <= USERS; id++) {
                users.append(users.isEmpty() ? "" : ", ").append("(").append(id).append(", 'user").append(id).append("')");
                followers.append(followers.isEmpty() ? "" : ", ").append("(").append(id).append(", ").append(id % USERS + 1).append(")");
            }
            st.executeUpdate("INSERT INTO users (id, name) VALUES " + users);
            st.executeUpdate("INSERT INTO followers (source, destination) VALUES " + followers);
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : others) r.stopRouter();
        a.close();
    }

    TestRouter router(String name, List<RouterConfig.LookupSource> lookups, RouterConfig.Placement placement) throws Exception {
        var r = new TestRouter(a, TestRouter.configLike(a, name, "127.0.0.1:0", lookups, placement));
        others.add(r);
        return r;
    }

    static RouterConfig.Placement placement(int pollMillis, Path snapshot, List<String> peers) {
        // every router of the test names the same peer login, as routers sharing a config do: a peer answers only it
        return new RouterConfig.Placement(pollMillis, 0, snapshot, -1, peers, TestRouter.USER, TestRouter.PASSWORD);
    }

    /** Where {@code id}'s user row is, read on the shards. */
    int partitionOf(int id) throws SQLException {
        int found = -1;
        for (int p = 0; p < 4; p++) {
            try (Connection c = a.partition(p); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM users WHERE id = " + id)) {
                rs.next();
                if (rs.getInt(1) == 1) {
                    assertEquals(-1, found, "user " + id + " on two partitions");
                    found = p;
                }
            }
        }
        return found;
    }

    /** What {@code r}'s lookup table holds for user {@code id} (no shard is asked): "p2", or null without an entry. */
    static String cached(TestRouter r, int id) throws SQLException {
        try (Connection c = r.connect(); var rs = c.createStatement().executeQuery("SHOW LOOKUP users FOR " + id)) {
            assertTrue(rs.next());
            return rs.getString("Source").equals("lookup entry") ? rs.getString("Partition") : null;
        }
    }

    static Map<String, Long> lookupCounters(TestRouter r) throws SQLException {
        try (Connection c = r.connect(); var rs = c.createStatement().executeQuery("SHOW LOOKUP TABLES")) {
            assertTrue(rs.next());
            var out = new HashMap<String, Long>();
            for (String col : List.of("Keys", "Hits", "Misses", "Broadcasts", "Fallbacks", "Learned", "Log_applied")) out.put(col, rs.getLong(col));
            return out;
        }
    }

    void move(int id, int to) throws SQLException {
        try (Connection c = a.connect(); var st = c.createStatement()) {
            st.executeUpdate("ALTER TABLE users SET PARTITION = p" + to + " WHERE id = " + id);
        }
        assertEquals(to, partitionOf(id), "the move put user " + id + " on p" + to);
    }

    static void awaitCached(TestRouter r, int id, String partition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!partition.equals(cached(r, id))) {
            assertTrue(System.nanoTime() < deadline, "router never learned user " + id + " on " + partition + " from the log (has " + cached(r, id) + ")");
            Thread.sleep(20);
        }
    }

    @Test
    void anotherRoutersMovesReachTheCacheWithoutAMiss() throws Exception {
        TestRouter b = router("logB", List.of(), placement(100, null, List.of()));
        int id = 17;
        int from = partitionOf(id);
        assertEquals("p" + from, cached(b, id), "B's scan found the user where the shards have it");
        var before = lookupCounters(b);
        long start = System.nanoTime();
        int to = (from + 1) % 4;
        move(id, to);
        awaitCached(b, id, "p" + to);
        System.out.printf("placement log: B learned the move in %d ms (poll 100 ms)%n", (System.nanoTime() - start) / 1_000_000);
        var after = lookupCounters(b);
        assertTrue(after.get("Log_applied") > before.get("Log_applied"), "counted in SHOW LOOKUP TABLES: " + after);
        assertEquals(before.get("Fallbacks"), after.get("Fallbacks"), "no statement of B missed: " + after);

        // several moves of one key in a row: the last one wins, whatever the poll saw in between
        for (int step = 1; step <= 5; step++) move(id, (to + step) % 4);
        awaitCached(b, id, "p" + ((to + 5) % 4));
        Thread.sleep(300); // a few more polls: nothing older comes back over it
        assertEquals("p" + partitionOf(id), cached(b, id));
    }

    /**
     * Sequence numbers are handed out at insert, not at commit: an entry whose transaction commits after a later
     * entry was read leaves a gap, which a later poll fills (fault injection: log rows written by hand, one
     * transaction held open). Corrected at the end with the true placements, which other routers apply too.
     */
    @Test
    void anEntryCommittedLateIsAppliedWhenItCommits() throws Exception {
        TestRouter d = router("logGap", List.of(), placement(50, null, List.of()));
        var users = a.server.catalog().table("users");
        var lookup = (org.lutra.catalog.Partitioning.LookedUp) users.partitioning();
        int k1 = 301;
        int home = lookup.placeNew(users.key(k1));
        int k2 = k1 + 1;
        while (lookup.placeNew(users.key(k2)) != home) k2++;
        String wrong1 = "p" + ((partitionOf(k1) + 1) % 4);
        String wrong2 = "p" + ((partitionOf(k2) + 1) % 4);
        String insert = "INSERT INTO lutra_placement_log (owner, k, partitions) VALUES ('users', ?, ?)";
        try (Connection late = a.partition(home); Connection early = a.partition(home)) {
            late.setAutoCommit(false);
            try (var ps = late.prepareStatement(insert)) {
                ps.setString(1, String.valueOf(k1));
                ps.setString(2, wrong1);
                ps.executeUpdate();
            }
            try (var ps = early.prepareStatement(insert)) {
                ps.setString(1, String.valueOf(k2));
                ps.setString(2, wrong2);
                ps.executeUpdate();
            }
            awaitCached(d, k2, wrong2);
            assertEquals("p" + partitionOf(k1), cached(d, k1), "the uncommitted entry is not seen");
            late.commit();
            awaitCached(d, k1, wrong1);
            try (var ps = early.prepareStatement(insert)) {
                for (int k : new int[] {k1, k2}) {
                    ps.setString(1, String.valueOf(k));
                    ps.setString(2, "p" + partitionOf(k));
                    ps.executeUpdate();
                }
            }
            awaitCached(d, k1, "p" + partitionOf(k1));
            awaitCached(d, k2, "p" + partitionOf(k2));
        }
    }

    @Test
    void aRouterThatDoesNotTailIsStillRight() throws Exception {
        TestRouter c = router("logC", List.of(), placement(-1, null, List.of()));
        int id = 23;
        int from = partitionOf(id);
        assertEquals("p" + from, cached(c, id));
        int to = (from + 2) % 4;
        move(id, to);
        Thread.sleep(400);
        assertEquals("p" + from, cached(c, id), "no tailer: C's entry is stale");
        var before = lookupCounters(c);
        try (Connection lutra = c.connect(); var st = lutra.createStatement()) {
            try (var rs = st.executeQuery("SELECT name FROM users WHERE id = " + id)) {
                assertTrue(rs.next());
                assertEquals("user" + id, rs.getString(1));
                assertFalse(rs.next());
            }
            try (var rs = st.executeQuery("SELECT COUNT(*) FROM followers WHERE source = " + id)) {
                rs.next();
                assertEquals(1, rs.getInt(1));
            }
            st.executeUpdate("INSERT INTO followers (source, destination) VALUES (" + id + ", 999)");
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO users (id, name) VALUES (" + id + ", 'again')"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
        }
        try (Connection shard = a.partition(to); var rs = shard.createStatement().executeQuery(
                "SELECT COUNT(*) FROM followers WHERE source = " + id + " AND destination = 999")) {
            rs.next();
            assertEquals(1, rs.getInt(1), "the stale router's insert landed with its user");
        }
        var after = lookupCounters(c);
        assertTrue(after.get("Fallbacks") > before.get("Fallbacks"), "the stale entry cost a validation miss: " + after);
        assertEquals(0, after.get("Log_applied"));
        assertEquals("p" + to, cached(c, id), "and was learned from the home row");
    }

    /**
     * SHOW LOOKUP SNAPSHOT and SHOW LOOKUP LOG POSITION hand out the whole placement map: a router answers them only to its
     * {@code placement.peer_user}; any other user (an application's) gets MySQL's 1227, and so does everyone where no peer
     * user is configured. A router starting with another login is refused by the peer and scans the backends instead.
     */
    @Test
    void theLookupSnapshotIsForThePeerLoginOnly() throws Exception {
        for (String sql : List.of("SHOW LOOKUP SNAPSHOT", "SHOW LOOKUP LOG POSITION")) assertAccessDenied(a.connect(), sql); // no peer_user
        var users = List.of(new RouterConfig.User(TestRouter.USER, TestRouter.PASSWORD), new RouterConfig.User("lutra_peer", "peer-secret"));
        var peerLogin = new RouterConfig.Placement(100, 0, null, -1, List.of(), "lutra_peer", "peer-secret");
        TestRouter peer = router(withUsers(TestRouter.configLike(a, "logPeerOnly", "127.0.0.1:0", List.of(), peerLogin), users));
        String url = "jdbc:lutra://127.0.0.1:" + peer.server.port() + "/" + a.database;
        for (String sql : List.of("SHOW LOOKUP SNAPSHOT", "SHOW LOOKUP LOG POSITION")) {
            assertAccessDenied(java.sql.DriverManager.getConnection(url, TestRouter.USER, TestRouter.PASSWORD), sql);
            try (Connection c = java.sql.DriverManager.getConnection(url, "lutra_peer", "peer-secret"); var rs = c.createStatement().executeQuery(sql)) {
                assertTrue(rs.next(), sql + " answers the peer login");
            }
        }
        // the ordinary statements stay open to the application's user
        try (Connection c = java.sql.DriverManager.getConnection(url, TestRouter.USER, TestRouter.PASSWORD);
             var rs = c.createStatement().executeQuery("SHOW LOOKUP users FOR 17")) {
            assertTrue(rs.next());
        }
        String peerAddress = "127.0.0.1:" + peer.server.port();
        TestRouter wrongLogin = router(withUsers(TestRouter.configLike(a, "logWrongLogin", "127.0.0.1:0", List.of(),
                placement(100, null, List.of(peerAddress))), users)); // logs in to the peer as the application's user
        assertEquals("backend scan", wrongLogin.server.started().source(), "the peer refused it");
        TestRouter rightLogin = router(withUsers(TestRouter.configLike(a, "logRightLogin", "127.0.0.1:0", List.of(),
                new RouterConfig.Placement(100, 0, null, -1, List.of(peerAddress), "lutra_peer", "peer-secret")), users));
        assertEquals("peer " + peerAddress, rightLogin.server.started().source());
    }

    static void assertAccessDenied(Connection c, String sql) throws SQLException {
        try (c) {
            var e = assertThrows(SQLException.class, () -> c.createStatement().executeQuery(sql).close(), sql);
            assertEquals(1227, e.getErrorCode(), sql + ": " + e.getMessage());
            assertEquals("42000", e.getSQLState(), sql + ": " + e.getMessage());
            assertTrue(e.getMessage().startsWith("Access denied; you need") && e.getMessage().contains("placement.peer_user"), e.getMessage());
        }
    }

    TestRouter router(RouterConfig config) throws Exception {
        var r = new TestRouter(a, config);
        others.add(r);
        return r;
    }

    static RouterConfig withUsers(RouterConfig c, List<RouterConfig.User> users) {
        return new RouterConfig(c.listen(), c.database(), c.schema(), users, c.backends(), c.partitions(), c.lookups(), c.maxFrameBytes(),
                c.planCacheSize(), c.transactions(), c.limits(), c.tls(), c.catalog(), c.placement());
    }

    @Test
    void startsFromAPeerThenItsSnapshotFileThenAScan() throws Exception {
        TestRouter peer = router("logPeer", List.of(), placement(100, null, List.of()));
        String peerAddress = "127.0.0.1:" + peer.server.port();
        Path snapshot = Files.createTempDirectory("lutra-snap").resolve("lookups.snap");

        // 1. a peer answers
        TestRouter fromPeer = router("logFromPeer", List.of(), placement(100, snapshot, List.of(peerAddress)));
        assertEquals("peer " + peerAddress, fromPeer.server.started().source());
        long peerMillis = fromPeer.server.started().millis();
        assertEquals(lookupCounters(peer).get("Keys"), lookupCounters(fromPeer).get("Keys"));
        for (int id : new int[] {1, 17, 23, 200, 400}) assertEquals("p" + partitionOf(id), cached(fromPeer, id));
        fromPeer.stopRouter(); // writes its snapshot file
        assertTrue(Files.exists(snapshot));

        // 2. no peer answers (a port nobody listens on): the snapshot file, brought up to date by the log
        int id = 31;
        int to = (partitionOf(id) + 1) % 4;
        move(id, to); // while no router with that file runs
        String nobody = "127.0.0.1:" + freePort();
        TestRouter fromFile = router("logFromPeer", List.of(), placement(100, snapshot, List.of(nobody)));
        assertEquals("snapshot file " + snapshot, fromFile.server.started().source());
        long fileMillis = fromFile.server.started().millis();
        assertEquals("p" + to, cached(fromFile, id), "the log's entries after the file's position are applied at start");
        for (int k : new int[] {1, 17, 200, 400}) assertEquals("p" + partitionOf(k), cached(fromFile, k));
        fromFile.stopRouter();

        // 3. neither: a backend scan
        TestRouter scanned = router("logScanned", List.of(), placement(100, null, List.of(nobody)));
        assertEquals("backend scan", scanned.server.started().source());
        long scanMillis = scanned.server.started().millis();
        for (int k : new int[] {1, 17, 31, 200, 400}) assertEquals("p" + partitionOf(k), cached(scanned, k));
        System.out.printf("start-up of %d keys: peer %d ms, snapshot file %d ms, backend scan %d ms%n", USERS, peerMillis, fileMillis, scanMillis);

        // a snapshot file the log cannot bring up to date (trimmed past its position) is not used
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var st = shard.createStatement()) {
                st.executeUpdate("DELETE FROM lutra_placement_log");
            }
        }
        move(33, (partitionOf(33) + 1) % 4); // a new entry after a trimmed stretch on its home partition
        TestRouter trimmed = router("logFromPeer", List.of(), placement(100, snapshot, List.of()));
        assertEquals("backend scan", trimmed.server.started().source(), "the log was trimmed past the file's position");
    }

    @Test
    void answersWhileItsLookupTablesAreLoading() throws Exception {
        int id = 57;
        int to = (partitionOf(id) + 3) % 4;
        move(id, to);
        int port = freePort();
        var loading = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var started = new AtomicReference<Object>();
        try (var hook = FailPoints.install(point -> {
            if (point.equals(FailPoints.BEFORE_LOOKUP_LOAD) && Thread.currentThread().getName().equals("warm-router")) {
                loading.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        })) {
            var config = TestRouter.configLike(a, "logWarming", "127.0.0.1:" + port, List.of(), placement(100, null, List.of()));
            var thread = Thread.ofPlatform().name("warm-router").start(() -> {
                try {
                    started.set(new TestRouter(a, config));
                } catch (Exception e) {
                    started.set(e);
                }
            });
            assertTrue(loading.await(30, TimeUnit.SECONDS));
            String url = "jdbc:lutra://127.0.0.1:" + port + "/" + a.database;
            try (Connection c = DriverManager.getConnection(url, TestRouter.USER, TestRouter.PASSWORD); var st = c.createStatement()) {
                try (var rs = st.executeQuery("SHOW LOOKUP TABLES")) {
                    rs.next();
                    assertEquals(0, rs.getLong("Keys"), "still warming up: nothing loaded");
                }
                try (var rs = st.executeQuery("SHOW LUTRA STATUS")) {
                    boolean seen = false;
                    while (rs.next()) {
                        if (rs.getString(1).equals("lookup_start_source")) {
                            assertEquals("warming up", rs.getString(2));
                            seen = true;
                        }
                    }
                    assertTrue(seen);
                }
                try (var rs = st.executeQuery("SELECT name FROM users WHERE id = " + id)) {
                    assertTrue(rs.next(), "a moved user is found through its home row");
                    assertEquals("user" + id, rs.getString(1));
                }
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM followers WHERE source IN (" + id + ", 58, 59)")) {
                    rs.next();
                    assertEquals(3, rs.getInt(1));
                }
                var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO users (id, name) VALUES (" + id + ", 'x')"));
                assertEquals(1062, dup.getErrorCode());
                st.executeUpdate("INSERT INTO followers (source, destination) VALUES (" + id + ", 777)");
            }
            release.countDown();
            thread.join(60_000);
        }
        assertInstanceOf(TestRouter.class, started.get(), String.valueOf(started.get()));
        var warmed = (TestRouter) started.get();
        others.add(warmed);
        assertEquals("backend scan", warmed.server.started().source());
        try (Connection shard = a.partition(to); var rs = shard.createStatement().executeQuery(
                "SELECT COUNT(*) FROM followers WHERE source = " + id + " AND destination = 777")) {
            rs.next();
            assertEquals(1, rs.getInt(1), "the insert during warm-up landed with its user");
        }
    }

    static int freePort() throws Exception {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
