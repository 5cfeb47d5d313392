package org.lutra.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A router process killed with SIGKILL in the middle of a LOAD ... APPLY, wherever its move happens
 * to be (between batches, inside a batch, inside a two-phase commit), and started again as a new
 * process under the same name: it settles the cut batch (XA recovery), resumes the move, and every
 * user and follower row is on the shards exactly once, on the map's partition. Unlike MoveJobsIT's
 * crashes, nothing of the dead router runs on: its JVM is gone, its sockets closed by the kernel.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterProcessKillIT {
    Shards shards;
    Path maps;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        maps = Files.createTempDirectory("lutra-maps");
    }

    @Test
    void aRouterProcessKilledMidMoveFinishesItWhenStartedAgain() throws Exception {
        String database = ("kill9_" + Long.toString(new Random().nextLong() >>> 24, 36)).toLowerCase();
        var setup = new TestRouter(shards, database, MoveJobsIT.SCHEMA, null, shards.size(), null, 8, 0,
                new RouterConfig.CatalogSettings(0, null, maps, 20));
        Process first = null;
        Process second = null;
        try {
            for (int from = 1; from <= 2000; from += 50) MoveJobsIT.users(setup, from, from + 49); // short statements: a cold, loaded router parses slowly
            var map = MoveJobsIT.randomMap(1, 2000, 9);
            var csv = new StringBuilder();
            map.forEach((k, p) -> csv.append(k).append(",p").append(p).append('\n'));
            Files.writeString(maps.resolve("kill.csv"), csv);
            setup.stopRouter(); // its name ("router") is the processes' now

            Path log1 = Files.createTempFile("lutra-router-1", ".log");
            first = RouterProcess.start(setup, maps, -1, log1); // no pause between batches: the kill most likely cuts one
            long id;
            try (Connection c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + RouterProcess.port(first, log1) + "/" + database,
                    TestRouter.USER, TestRouter.PASSWORD)) {
                id = MoveJobsIT.load(c, "LOAD LOOKUP TABLE users FROM 'kill.csv' FORMAT csv APPLY").move();
            }
            assertTrue(id > 0);
            // somewhere past the third batch, at no chosen point: the kill lands wherever the move is
            long[] progress = progress(setup, id);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (progress[0] < 300 && System.nanoTime() < until) {
                Thread.sleep(5);
                progress = progress(setup, id);
            }
            Thread.sleep(new Random().nextInt(40));
            first.destroyForcibly(); // SIGKILL, to this pid only
            assertTrue(first.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, first.exitValue(), "killed by SIGKILL");
            progress = progress(setup, id);
            assertTrue(progress[0] >= 300 && progress[0] < progress[1], "killed in the middle of the move: " + progress[0] + " of " + progress[1]);
            System.out.printf("RouterProcessKillIT: router process killed at %d of %d keys, %d XA branches left prepared%n", progress[0], progress[1],
                    MoveJobsIT.preparedBranches(setup));

            Path log2 = Files.createTempFile("lutra-router-2", ".log");
            second = RouterProcess.start(setup, maps, 20, log2); // the same name: it resumes the move at start
            RouterProcess.port(second, log2);
            until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!"done".equals(state(setup, id)) && System.nanoTime() < until) Thread.sleep(100);
            assertEquals("done", state(setup, id), "the restarted router finished the move; its log: " + Files.readString(log2));
            MoveJobsIT.assertPlaced(setup, 1, 2000, map);
            assertEquals(0, MoveJobsIT.preparedBranches(setup), "recovery settled the batch the kill cut");
        } finally {
            for (Process p : new Process[] {first, second}) {
                if (p != null) {
                    p.destroyForcibly();
                    p.waitFor(30, TimeUnit.SECONDS);
                }
            }
            setup.close(); // and the databases
        }
    }

    /**
     * A replication ({@code SET PARTITION = (p1, p3)}) of 1,200 of 1,500 keys, its router process killed
     * mid-job, and then its un-replication ({@code = p2}), killed mid-job too: each time a new process under
     * the same name finishes the move, and then every row is on exactly the partitions its placement names
     * (each once), the placement rows name the same set at the key's home, on every copy and as tombstones,
     * a fresh router's lookup table holds each key's primary, and answers through the router equal those of
     * one plain MariaDB holding the same rows.
     */
    @Test
    void aRouterProcessKilledMidReplicationAndMidUnreplicationFinishesBoth() throws Exception {
        String database = ("kill9r_" + Long.toString(new Random().nextLong() >>> 24, 36)).toLowerCase();
        var setup = new TestRouter(shards, database, MoveJobsIT.SCHEMA, null, shards.size(), null, 8, 0,
                new RouterConfig.CatalogSettings(0, null, maps, 20));
        String refDatabase = database + "_ref";
        var processes = new ArrayList<Process>();
        try (Connection admin = shards.connect(0); var st = admin.createStatement()) {
            st.execute("CREATE DATABASE `" + refDatabase + "`");
        }
        try (Connection reference = DriverManager.getConnection(shards.url(0, refDatabase), shards.user(), shards.password())) {
            for (var t : setup.server.catalog().tablesInSchemaOrder()) reference.createStatement().execute(t.ddl());
            for (int from = 1; from <= KEYS; from += 50) {
                MoveJobsIT.users(setup, from, from + 49);
                MoveJobsIT.users(reference, from, from + 49);
            }
            setup.stopRouter();

            var replicated = new HashMap<Integer, List<Integer>>();
            for (int k = 1; k <= KEYS; k++) replicated.put(k, k <= MOVED ? List.of(1, 3) : List.of(k % 4));
            Path log = Files.createTempFile("lutra-router-r1", ".log");
            processes.add(RouterProcess.start(setup, maps, -1, log)); // no pause between batches: the kill most likely cuts one
            long id = killMidStatement(setup, processes.getLast(), RouterProcess.port(processes.getLast(), log), "ALTER TABLE users SET PARTITION = (p1, p3) WHERE id <= " + MOVED);
            log = Files.createTempFile("lutra-router-r2", ".log");
            processes.add(RouterProcess.start(setup, maps, 20, log));
            int port = RouterProcess.port(processes.getLast(), log);
            awaitDone(setup, id, log);
            assertPlacement(setup, replicated);
            assertSameAnswers(database, port, reference);

            // back to one partition, on a process without pauses between batches again, killed again in the middle
            processes.getLast().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            log = Files.createTempFile("lutra-router-r3", ".log");
            processes.add(RouterProcess.start(setup, maps, -1, log));
            port = RouterProcess.port(processes.getLast(), log);
            var single = new HashMap<Integer, List<Integer>>();
            for (int k = 1; k <= KEYS; k++) single.put(k, k <= MOVED ? List.of(2) : List.of(k % 4));
            long back = killMidStatement(setup, processes.getLast(), port, "ALTER TABLE users SET PARTITION = p2 WHERE id <= " + MOVED);
            log = Files.createTempFile("lutra-router-r4", ".log");
            processes.add(RouterProcess.start(setup, maps, 20, log));
            port = RouterProcess.port(processes.getLast(), log);
            awaitDone(setup, back, log);
            assertPlacement(setup, single);
            assertSameAnswers(database, port, reference);
            // a write after both: each key's rows change once, where they are
            try (Connection c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + port + "/" + database, TestRouter.USER, TestRouter.PASSWORD);
                 var lutra = c.createStatement(); var ref = reference.createStatement()) {
                String update = "UPDATE users SET name = CONCAT(name, '!') WHERE id IN (" + ReplicatedKeysIT.range(MOVED - 20, MOVED + 20) + ")";
                assertEquals(ref.executeUpdate(update), lutra.executeUpdate(update));
            }
            assertSameAnswers(database, port, reference);
            assertEquals(0, MoveJobsIT.preparedBranches(setup), "recovery settled the batches the kills cut");
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
            try (Connection admin = shards.connect(0); var st = admin.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS `" + refDatabase + "`");
            }
            setup.close();
        }
    }

    static final int KEYS = 1500;
    static final int MOVED = 1200;

    /** Starts {@code sql} (a SET PARTITION) on the process and kills it with SIGKILL somewhere past its move's third batch; returns the move's id. */
    private long killMidStatement(TestRouter r, Process p, int port, String sql) throws Exception {
        long before = lastMove(r);
        var statement = Thread.ofPlatform().start(() -> {
            try (Connection c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + port + "/" + r.database, TestRouter.USER, TestRouter.PASSWORD)) {
                c.createStatement().executeUpdate(sql);
            } catch (SQLException e) {
                // the kill ends it
            }
        });
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        long id = lastMove(r);
        while (id == before && System.nanoTime() < until) {
            Thread.sleep(5);
            id = lastMove(r);
        }
        assertNotEquals(before, id, "the statement recorded its move");
        long[] progress = progress(r, id);
        long at = 300 + 100 * new Random().nextInt(6); // past the third batch and before the last, at no chosen point inside a batch
        while (progress[0] < at && System.nanoTime() < until) {
            Thread.sleep(5);
            progress = progress(r, id);
        }
        Thread.sleep(new Random().nextInt(40));
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(137, p.exitValue(), "killed by SIGKILL");
        statement.join(30_000);
        progress = progress(r, id);
        assertTrue(progress[0] >= 300 && progress[0] < progress[1], "killed in the middle of the move: " + progress[0] + " of " + progress[1]);
        System.out.printf("RouterProcessKillIT: %s killed at %d of %d keys, %d XA branches left prepared%n", sql, progress[0], progress[1],
                MoveJobsIT.preparedBranches(r));
        return id;
    }

    static long lastMove(TestRouter r) throws SQLException {
        try (Connection p0 = r.partition(0); var rs = p0.createStatement().executeQuery("SELECT COALESCE(MAX(id), 0) FROM lutra_moves")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void awaitDone(TestRouter r, long id, Path log) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!"done".equals(state(r, id)) && System.nanoTime() < until) Thread.sleep(100);
        assertEquals("done", state(r, id), "the restarted router finished the move; its log: " + Files.readString(log));
    }

    /**
     * On the shards: each key's user row once on each partition of {@code placed} and nowhere else, its two followers rows with
     * it; the placement rows: where the key is not only at its home, a row naming the set at its home, at every copy (when
     * replicated) and at every partition it left other than its home (a tombstone); and a fresh router's lookup table holds the
     * primary.
     */
    static void assertPlacement(TestRouter r, Map<Integer, List<Integer>> placed) throws Exception {
        var rowsOf = MoveJobsIT.onShards(r, "users", "id");
        var followers = MoveJobsIT.onShards(r, "followers", "source");
        var place = new HashMap<Integer, Map<Integer, String>>(); // key -> partition -> its placement row there
        for (int p = 0; p < 4; p++) {
            try (Connection shard = r.partition(p); var rs = shard.createStatement().executeQuery("SELECT k, partitions FROM lutra_place_users")) {
                while (rs.next()) place.computeIfAbsent(rs.getInt(1), k -> new HashMap<>()).put(p, rs.getString(2));
            }
        }
        for (var e : placed.entrySet()) {
            int k = e.getKey();
            var want = e.getValue();
            assertEquals(want, rowsOf.get(k).stream().sorted().toList(), "user " + k);
            var twice = new ArrayList<Integer>();
            for (int p : want) twice.addAll(List.of(p, p));
            assertEquals(twice, followers.get(k).stream().sorted().toList(), "followers of " + k);
            String names = String.join(",", want.stream().map(p -> "p" + p).toList());
            var rows = place.getOrDefault(k, Map.of());
            int home = k % 4;
            if (want.size() > 1) {
                for (int p : want) assertEquals(names, rows.get(p), "key " + k + ": placement row on copy p" + p + " " + rows);
            } else {
                assertNull(rows.get(want.getFirst()), "key " + k + ": no placement row where it lives alone " + rows);
            }
            if (!want.equals(List.of(home))) assertEquals(names, rows.get(home), "key " + k + ": home row at p" + home + " " + rows);
            for (var row : rows.entrySet()) assertEquals(names, row.getValue(), "key " + k + ": every placement row names the set " + rows);
        }
        // a router starting now (a backend scan) routes each key to its primary
        var fresh = new TestRouter(r, "fresh" + Long.toString(System.nanoTime(), 36), RouterConfig.CatalogSettings.defaults());
        try {
            var users = fresh.server.catalog().table("users");
            var lookup = (org.lutra.catalog.Partitioning.LookedUp) users.partitioning();
            for (var e : placed.entrySet()) {
                assertEquals(e.getValue().getFirst().intValue(), lookup.table().get(users.key(e.getKey())), "a fresh router's lookup entry of " + e.getKey());
            }
        } finally {
            fresh.stopRouter(); // the databases stay
        }
    }

    /** Reads by key (replicated, moved and untouched keys, owner and SAME AS rows) and scans, through the router and on the plain database. */
    static void assertSameAnswers(String database, int port, Connection reference) throws SQLException {
        try (Connection lutra = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + port + "/" + database, TestRouter.USER, TestRouter.PASSWORD)) {
            var rnd = new Random();
            var sqls = new ArrayList<>(List.of("SELECT COUNT(*), SUM(id), COUNT(DISTINCT name) FROM users", "SELECT COUNT(*), SUM(destination) FROM followers",
                    "SELECT destination, COUNT(*) FROM followers GROUP BY destination ORDER BY destination",
                    "SELECT id, name FROM users WHERE name LIKE '%!' ORDER BY id", "SELECT id FROM users ORDER BY id DESC LIMIT 5",
                    "SELECT id, name FROM users WHERE id IN (1, 2, 300, 1199, 1200, 1201, 1500) ORDER BY id"));
            for (int i = 0; i < 30; i++) {
                int k = 1 + rnd.nextInt(KEYS);
                sqls.add("SELECT id, name FROM users WHERE id = " + k);
                sqls.add("SELECT source, destination FROM followers WHERE source = " + k + " ORDER BY destination");
                sqls.add("SELECT COUNT(*) FROM followers WHERE source IN (" + k + ", " + (1 + rnd.nextInt(KEYS)) + ")");
            }
            for (String sql : sqls) assertEquals(PlacementDifferentialIT.outcome(reference, sql), PlacementDifferentialIT.outcome(lutra, sql), sql);
        }
    }

    /** keys_done, keys_total of move {@code id}, read on partition 0. */
    static long[] progress(TestRouter r, long id) throws SQLException {
        try (Connection p0 = r.partition(0); var rs = p0.createStatement().executeQuery("SELECT keys_done, keys_total FROM lutra_moves WHERE id = " + id)) {
            assertTrue(rs.next(), "move " + id);
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    static String state(TestRouter r, long id) throws SQLException {
        try (Connection p0 = r.partition(0); var rs = p0.createStatement().executeQuery("SELECT state FROM lutra_moves WHERE id = " + id)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
