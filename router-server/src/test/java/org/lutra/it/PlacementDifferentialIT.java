package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A differential check of placement that does not share the router's assumptions: random inserts,
 * updates, deletes and reads, each through one of three routers (stale caches included), run on
 * one plain MariaDB database too, while a fourth client moves random keys between partitions all
 * the time. Moves change where rows are, never what they are, so every answer (rows, update counts,
 * error codes) must equal the plain database's; at the end every key's rows are on one partition.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlacementDifferentialIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE tweets (id BIGINT PRIMARY KEY, author INT NOT NULL, likes INT NOT NULL DEFAULT 0, KEY (author))
              PARTITION BY lookup(author) SAME AS users;
            CREATE TABLE hashed_users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final int KEYS = 30;
    static final long SEED = Long.getLong("lutra.placement.seed", System.nanoTime());

    Differential differential;
    TestRouter b;
    TestRouter c;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "placediff", SCHEMA);
        b = new TestRouter(differential.router, "placediffB", List.of());
        c = new TestRouter(differential.router, "placediffC", List.of());
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : new TestRouter[] {c, b}) if (r != null) r.server.close();
        if (differential != null) differential.close();
    }

    @Test
    void randomStatementsThroughThreeRoutersWhileKeysMoveAnswerAsOneDatabase() throws Exception {
        var random = new Random(SEED);
        var stop = new AtomicBoolean();
        var moves = new AtomicLong();
        var deadlocks = new AtomicLong();
        var mover = Executors.newSingleThreadExecutor();
        // a quarter of the statements through Connector/J at the first router's MySQL listener
        List<Connection> routers = List.of(differential.lutra, b.connect(), c.connect(), differential.router.connectMysql(""));
        Connection reference = differential.reference;
        int statements = 0;
        try {
            Future<?> moving = mover.submit(() -> {
                var r = new Random(SEED + 1);
                try (Connection admin = differential.router.connect(); var st = admin.createStatement()) {
                    while (!stop.get()) {
                        int key = 1 + r.nextInt(KEYS);
                        String where = r.nextInt(4) == 0 ? "id IN (" + key + ", " + (1 + r.nextInt(KEYS)) + ")" : "id = " + key;
                        try {
                            st.executeUpdate("ALTER TABLE users SET PARTITION = p" + r.nextInt(4) + " WHERE " + where);
                            moves.incrementAndGet();
                        } catch (SQLException e) {
                            if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205) throw e; // a batch lost a deadlock: rolled back whole
                            deadlocks.incrementAndGet();
                        }
                    }
                }
                return null;
            });
            long until = System.nanoTime() + 20_000_000_000L;
            while (System.nanoTime() < until || statements < 300) {
                String sql = statement(random);
                Connection lutra = routers.get(random.nextInt(routers.size()));
                String context = "seed " + SEED + ", statement " + statements + " (" + moves.get() + " moves so far): " + sql;
                var expected = outcome(reference, sql);
                var answered = retrying(lutra, sql, deadlocks, e -> {});
                assertEquals(expected, answered, context);
                statements++;
            }
            stop.set(true);
            moving.get();
        } finally {
            stop.set(true);
            mover.shutdownNow();
            routers.get(1).close();
            routers.get(3).close();
            routers.get(2).close();
        }
        System.out.printf("PlacementDifferentialIT: seed %d, %d statements through 3 routers, %d moves meanwhile, %d deadlocks retried,"
                + " all as one database%n", SEED, statements, moves.get(), deadlocks.get());
        assertTrue(moves.get() > 20, moves.get() + " moves");
        for (String table : List.of("users ORDER BY id", "followers ORDER BY source, destination", "tweets ORDER BY id")) {
            String sql = "SELECT * FROM " + table;
            assertEquals(outcome(reference, sql), outcome(differential.lutra, sql), sql);
        }
        for (int key = 1; key <= KEYS; key++) {
            var holding = new java.util.TreeSet<Integer>();
            holding.addAll(partitionsHolding("users", "id", key));
            holding.addAll(partitionsHolding("followers", "source", key));
            holding.addAll(partitionsHolding("tweets", "author", key));
            assertTrue(holding.size() <= 1, "key " + key + " has rows on " + holding);
        }
    }

    /** Scans that name no keys, over the owner table and its SAME AS tables: each reads every partition. */
    static final List<String> SCANS = List.of(
            "SELECT COUNT(*) FROM users",
            "SELECT COUNT(*), SUM(karma) FROM users",
            "SELECT COUNT(*), SUM(likes) FROM tweets",
            "SELECT COUNT(*) FROM followers",
            "SELECT * FROM users ORDER BY id",
            "SELECT author, COUNT(*), SUM(likes) FROM tweets GROUP BY author ORDER BY author",
            "SELECT destination, COUNT(*) FROM followers GROUP BY destination ORDER BY destination",
            "SELECT u.id, COUNT(*) FROM users u JOIN followers f ON f.source = u.id GROUP BY u.id ORDER BY u.id");

    /**
     * Scans through three routers, three readers at once, while two other routers move keys nonstop:
     * moves change where rows are, never what they are, and nothing else writes, so every scan must
     * answer exactly what the plain database answers (computed once before). A scan whose partitions'
     * snapshots straddle a move's commits counts the moved rows twice or not at all (the move fence
     * is what prevents it: placement.MoveFence).
     */
    @Test
    void scansThroughThreeRoutersWhileKeysMoveNonstopAnswerAsOneDatabase() throws Exception {
        var random = new Random(SEED + 2);
        for (int id = SCAN_KEYS_FROM; id < SCAN_KEYS_FROM + SCAN_KEYS; id++) {
            differential.both("INSERT INTO users (id, name, karma) VALUES (" + id + ", 's" + id + "', " + random.nextInt(100) + ")");
            for (int f = random.nextInt(4); f > 0; f--) {
                differential.both("INSERT IGNORE INTO followers (source, destination) VALUES (" + id + ", " + random.nextInt(50) + ")");
            }
            for (int t = random.nextInt(4); t > 0; t--) {
                differential.both("INSERT INTO tweets (id, author, likes) VALUES (" + (id * 10L + t) + ", " + id + ", " + random.nextInt(1000) + ")");
            }
        }
        var expected = new java.util.LinkedHashMap<String, List<String>>();
        for (String sql : SCANS) expected.put(sql, outcome(differential.reference, sql));

        var stop = new AtomicBoolean();
        var moves = new AtomicLong();
        var scans = new AtomicLong();
        var contention = new AtomicLong();
        var threads = Executors.newFixedThreadPool(5);
        var work = new ArrayList<Future<?>>();
        try {
            TestRouter[] movers = {differential.router, b};
            for (int m = 0; m < movers.length; m++) {
                int parity = m;
                TestRouter router = movers[m];
                work.add(threads.submit(() -> {
                    var r = new Random(SEED + 3 + parity);
                    try (Connection admin = router.connect(); var st = admin.createStatement()) {
                        while (!stop.get()) {
                            var keys = new java.util.StringJoiner(", ");
                            for (int n = 1 + r.nextInt(20); n > 0; n--) keys.add(String.valueOf(SCAN_KEYS_FROM + 2 * r.nextInt(SCAN_KEYS / 2) + parity));
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
            }
            for (TestRouter router : new TestRouter[] {differential.router, b, c}) {
                work.add(threads.submit(() -> {
                    var r = new Random(SEED + 7 + scans.get());
                    try (Connection lutra = router.connect()) {
                        while (!stop.get()) {
                            String sql = SCANS.get(r.nextInt(SCANS.size()));
                            var answered = outcome(lutra, sql);
                            assertEquals(expected.get(sql), answered, "seed " + SEED + ", scan " + scans.get() + " (" + moves.get() + " moves so far): " + sql);
                            scans.incrementAndGet();
                            Thread.sleep(2); // leaves the movers some of a small machine's CPU
                        }
                    }
                    return null;
                }));
            }
            // at least 15 s and 30 moves (a loaded machine moves slowly), at most 90 s
            long started = System.nanoTime();
            while (work.stream().noneMatch(Future::isDone) && System.nanoTime() - started < 90_000_000_000L
                    && (System.nanoTime() - started < 15_000_000_000L || moves.get() < 30)) {
                Thread.sleep(100);
            }
            stop.set(true);
            for (var f : work) f.get();
        } finally {
            stop.set(true);
            threads.shutdownNow();
        }
        System.out.printf("PlacementDifferentialIT: seed %d, %d scans through 3 routers while 2 routers made %d moves (%d retried after contention),"
                + " all as one database%n", SEED, scans.get(), moves.get(), contention.get());
        assertTrue(moves.get() > 20, moves.get() + " moves");
        assertTrue(scans.get() > 100, scans.get() + " scans");
        fenceCost();
    }

    /**
     * What the fence costs a scan, nothing else running: the same COUNT(*) over the same rows in a
     * lookup-placed table (fenced) and a hash-placed one (not), alternately; medians printed.
     */
    void fenceCost() throws SQLException {
        var values = new java.util.StringJoiner(", ");
        try (var st = differential.lutra.createStatement(); var rs = st.executeQuery("SELECT id, name, karma FROM users WHERE id >= " + SCAN_KEYS_FROM)) {
            while (rs.next()) values.add("(" + rs.getInt(1) + ", '" + rs.getString(2) + "', " + rs.getInt(3) + ")");
        }
        try (var st = differential.lutra.createStatement()) {
            assertEquals(SCAN_KEYS, st.executeUpdate("INSERT INTO hashed_users (id, name, karma) VALUES " + values));
        }
        var fenced = new long[400];
        var plain = new long[400];
        try (var st = differential.lutra.createStatement()) {
            for (int i = 0; i < fenced.length; i++) {
                long t0 = System.nanoTime();
                st.executeQuery("SELECT COUNT(*) FROM users WHERE id >= " + SCAN_KEYS_FROM).close();
                long t1 = System.nanoTime();
                st.executeQuery("SELECT COUNT(*) FROM hashed_users").close();
                long t2 = System.nanoTime();
                fenced[i] = t1 - t0;
                plain[i] = t2 - t1;
            }
        }
        java.util.Arrays.sort(fenced);
        java.util.Arrays.sort(plain);
        System.out.printf("PlacementDifferentialIT: COUNT(*) of %d rows on 4 partitions, median over %d: lookup-placed (fenced) %.2f ms,"
                + " hash-placed %.2f ms; p90 %.2f vs %.2f ms%n", SCAN_KEYS, fenced.length, fenced[fenced.length / 2] / 1e6, plain[plain.length / 2] / 1e6,
                fenced[fenced.length * 9 / 10] / 1e6, plain[plain.length * 9 / 10] / 1e6);
    }

    /**
     * Readers through two routers while a third applies a partitioner's map (LOAD LOOKUP TABLE ...
     * APPLY, moving most keys in the background, batch after batch): scans and reads by key, every
     * answer compared with the plain database's (computed before: nothing else writes meanwhile).
     */
    @Test
    void readsThroughTwoRoutersDuringLoadApplyAnswerAsOneDatabase() throws Exception {
        var random = new Random(SEED + 11);
        for (int from = LOAD_KEYS_FROM; from < LOAD_KEYS_FROM + LOAD_KEYS; from += 50) {
            var users = new java.util.StringJoiner(", ");
            var tweets = new java.util.StringJoiner(", ");
            for (int id = from; id < from + 50; id++) {
                users.add("(" + id + ", 'l" + id + "', " + random.nextInt(100) + ")");
                tweets.add("(" + (id * 10L) + ", " + id + ", " + random.nextInt(1000) + ")");
            }
            differential.both("INSERT INTO users (id, name, karma) VALUES " + users);
            differential.both("INSERT INTO tweets (id, author, likes) VALUES " + tweets);
        }
        var reads = new ArrayList<>(SCANS);
        for (int i = 0; i < 40; i++) {
            int k = LOAD_KEYS_FROM + random.nextInt(LOAD_KEYS);
            reads.add("SELECT id, name, karma FROM users WHERE id = " + k);
            reads.add("SELECT id, likes FROM tweets WHERE author IN (" + k + ", " + (LOAD_KEYS_FROM + random.nextInt(LOAD_KEYS)) + ") ORDER BY id");
        }
        var expected = new java.util.HashMap<String, List<String>>();
        for (String sql : reads) expected.put(sql, outcome(differential.reference, sql));

        Path maps = Files.createTempDirectory("lutra-maps");
        var map = new StringBuilder();
        for (int id = LOAD_KEYS_FROM; id < LOAD_KEYS_FROM + LOAD_KEYS; id++) map.append(id).append(",p").append(random.nextInt(4)).append('\n');
        Files.writeString(maps.resolve("diff.csv"), map);
        var stop = new AtomicBoolean();
        var checked = new AtomicLong();
        var threads = Executors.newFixedThreadPool(2);
        // stopped, not closed, at the end: closing a TestRouter drops the databases the others still use
        TestRouter d = new TestRouter(differential.router, "placediffD", new RouterConfig.CatalogSettings(0, null, maps, 20));
        try {
            var work = new ArrayList<Future<?>>();
            for (TestRouter router : new TestRouter[] {b, c}) {
                work.add(threads.submit(() -> {
                    var r = new Random(SEED + 13 + checked.get());
                    try (Connection lutra = router.connect()) {
                        while (!stop.get()) {
                            String sql = reads.get(r.nextInt(reads.size()));
                            // two keys whose home rows are on two partitions can deadlock with a batch across servers
                            var answered = retrying(lutra, sql, new AtomicLong(), e -> {});
                            assertEquals(expected.get(sql), answered, "seed " + SEED + ", read " + checked.get() + " during LOAD ... APPLY: " + sql);
                            checked.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            long id;
            try (Connection admin = d.connect()) {
                id = MoveJobsIT.load(admin, "LOAD LOOKUP TABLE users FROM 'diff.csv' FORMAT csv APPLY").move();
            }
            assertTrue(id > 0, "the map moves keys");
            MoveJobsIT.awaitState(d, id, "done", 180_000);
            stop.set(true);
            for (var f : work) f.get();
            System.out.printf("PlacementDifferentialIT: seed %d, %d reads through 2 routers during LOAD ... APPLY of %d keys (move %d), all as one database%n",
                    SEED, checked.get(), LOAD_KEYS, id);
            assertTrue(checked.get() > 50, checked.get() + " reads");
        } finally {
            stop.set(true);
            threads.shutdownNow();
            d.stopRouter();
        }
    }

    static final int LOAD_KEYS_FROM = 5001;
    static final int LOAD_KEYS = 1000;

    static final int SCAN_KEYS_FROM = 1001;
    static final int SCAN_KEYS = 200;

    /** A random statement over a few keys, so that inserts collide and reads find, miss and race moves. */
    static String statement(Random r) {
        int k = 1 + r.nextInt(KEYS);
        int k2 = 1 + r.nextInt(KEYS);
        int n = r.nextInt(1000);
        return switch (r.nextInt(14)) {
            case 0, 1 -> "INSERT INTO users (id, name) VALUES (" + k + ", 'u" + n + "')";
            case 2 -> "INSERT INTO followers (source, destination) VALUES (" + k + ", " + k2 + ")";
            case 3 -> "INSERT INTO tweets (id, author, likes) VALUES (" + (k * 100 + r.nextInt(5)) + ", " + k + ", " + n + ")";
            case 4 -> "UPDATE users SET karma = karma + 1 WHERE id = " + k;
            case 5 -> "UPDATE users SET name = 'v" + n + "' WHERE id IN (" + k + ", " + k2 + ")";
            case 6 -> "DELETE FROM followers WHERE source = " + k + (r.nextBoolean() ? "" : " AND destination = " + k2);
            case 7 -> "DELETE FROM users WHERE id = " + k;
            case 8 -> "UPDATE tweets SET likes = likes + 1 WHERE author = " + k;
            case 9 -> "SELECT id, name, karma FROM users WHERE id = " + k;
            case 10 -> "SELECT id, name FROM users WHERE id IN (" + k + ", " + k2 + ", " + (1 + r.nextInt(KEYS)) + ") ORDER BY id";
            case 11 -> "SELECT destination FROM followers WHERE source = " + k + " ORDER BY destination";
            case 12 -> "SELECT COUNT(*), SUM(likes) FROM tweets WHERE author = " + k;
            default -> "SELECT source, destination FROM followers WHERE source IN (" + k + ", " + k2 + ")";
        };
    }

    /**
     * {@link #outcome} through a router, tried again (up to 5 times, each counted in {@code retries}) when a deadlock
     * with a move rolled it back whole (InnoDB's 1213, or a lock wait past its timeout, 1205): what MySQL under
     * concurrency answers too, and the application retries.
     */
    static List<String> retrying(Connection lutra, String sql, AtomicLong retries, java.util.function.Consumer<SQLException> errors) {
        var answered = outcome(lutra, sql, errors);
        for (int retry = 0; retry < 5 && (answered.equals(List.of("error 1213")) || answered.equals(List.of("error 1205"))); retry++) {
            retries.incrementAndGet();
            answered = outcome(lutra, sql, errors);
        }
        return answered;
    }

    /** What a statement answered: its rows (sorted when the statement does not order them), its update count, or its error code. */
    static List<String> outcome(Connection connection, String sql) {
        return outcome(connection, sql, e -> {});
    }

    /** {@link #outcome(Connection, String)}, handing each error to {@code errors} too. */
    static List<String> outcome(Connection connection, String sql, java.util.function.Consumer<SQLException> errors) {
        var out = new ArrayList<String>();
        try (var st = connection.createStatement()) {
            if (st.execute(sql)) {
                try (ResultSet rs = st.getResultSet()) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        var row = new StringBuilder();
                        for (int i = 1; i <= n; i++) row.append(rs.getString(i)).append('|');
                        out.add(row.toString());
                    }
                }
                if (!sql.contains("ORDER BY")) out.sort(null);
            } else {
                out.add("count " + st.getUpdateCount());
            }
        } catch (SQLException e) {
            errors.accept(e);
            out.add("error " + e.getErrorCode());
        }
        return out;
    }

    List<Integer> partitionsHolding(String table, String column, int key) throws SQLException {
        var out = new ArrayList<Integer>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = differential.router.partition(p); var rs = shard.createStatement().executeQuery(
                    "SELECT COUNT(*) FROM " + table + " WHERE " + column + " = " + key)) {
                rs.next();
                if (rs.getLong(1) > 0) out.add(p);
            }
        }
        return out;
    }
}
