package org.lutra.cli;

import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * {@code ./lutra demo}: four embedded shards, a router, a small social network placed by a
 * community-aware partition map, and a mixed workload through the JDBC driver. Cleans up after
 * itself.
 */
final class DemoCommand implements Command {
    private static final int SHARDS = 4;
    private static final int COMMUNITIES = 40;

    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String summary() {
        return "the whole path on 4 embedded shards: schema, data, workload, report (--users N --ops N --clients N)";
    }

    @Override
    public int run(List<String> args) throws Exception {
        if (args.contains("--help")) {
            System.out.println("usage: ./lutra demo [--users 2000] [--ops 20000] [--clients 4]");
            return 0;
        }
        int users = intOption(args, "--users", 2000);
        int ops = intOption(args, "--ops", 20000);
        int clients = intOption(args, "--clients", 4);
        Path work = Files.createTempDirectory("lutra-demo");
        long t0 = System.nanoTime();
        System.out.printf("Starting %d embedded MariaDB shards...%n", SHARDS);
        try (Shards shards = Shards.start(SHARDS, work.resolve("shards"))) {
            System.out.printf("  shards up in %.1f s: %s%n", seconds(t0), shards.urls());
            Path map = work.resolve("users.csv");
            writePartitionMap(map, users);
            var config = config(shards, map);
            try (var router = RouterServer.start(config)) {
                String url = "jdbc:lutra://127.0.0.1:" + router.port() + "/social";
                System.out.printf("Router listening: %s (lookup map %s loaded: %,d users placed by community)%n",
                        url, map.getFileName(), router.loaded().stream().mapToLong(l -> l.keys()).sum());
                long loadStart = System.nanoTime();
                long rows = load(url, users);
                System.out.printf("Loaded %,d rows through the driver in %.1f s%n", rows, seconds(loadStart));
                long before1 = router.stats().singlePartition();
                long beforeN = router.stats().multiPartition();
                long karma = totalKarma(shards);
                var txn = router.transactions().stats();
                long onePhase = txn.onePhaseCommits.sum(), twoPhase = txn.twoPhaseCommits.sum();
                var result = workload(url, users, ops, clients);
                report(router, shards, result, router.stats().singlePartition() - before1, router.stats().multiPartition() - beforeN);
                long karmaAfter = totalKarma(shards);
                System.out.printf("  like transactions: %,d on one partition (one COMMIT, no XA), %,d over two (XA two-phase commit); "
                        + "total karma %s (%,d before, %,d after)%n", txn.onePhaseCommits.sum() - onePhase, txn.twoPhaseCommits.sum() - twoPhase,
                        karma == karmaAfter ? "unchanged" : "CHANGED", karma, karmaAfter);
                if (karma != karmaAfter) return 1;
            }
        } finally {
            deleteTree(work);
        }
        System.out.printf("Done in %.1f s; shards stopped and their data removed.%n", seconds(t0));
        return 0;
    }

    /** A partitioner's output: user i belongs to community i % COMMUNITIES, and communities fill partitions. */
    private static void writePartitionMap(Path file, int users) throws IOException {
        var lines = new ArrayList<String>(users);
        for (int id = 1; id <= users; id++) {
            lines.add(id + ",p" + community(id) * SHARDS / COMMUNITIES);
        }
        Files.write(file, lines);
    }

    private static int community(int id) {
        return id % COMMUNITIES;
    }

    private static RouterConfig config(Shards shards, Path map) throws IOException {
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < SHARDS; i++) {
            backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), 16));
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, null));
        }
        Path schema = Path.of("config/social.sql").toAbsolutePath();
        if (!Files.exists(schema)) throw new IOException("missing " + schema + ": run ./lutra demo from the repository");
        var config = new RouterConfig("127.0.0.1:0", "social", schema, List.of(new RouterConfig.User("app", "secret", null)),
                backends, partitions, List.of(new RouterConfig.LookupSource("users", map, "csv")), 0, 0, null);
        config.validate();
        return config;
    }

    private static long load(String url, int users) throws SQLException {
        var random = new Random(42);
        long rows = 0;
        try (Connection c = DriverManager.getConnection(url, "app", "secret")) {
            rows += c.createStatement().executeUpdate(
                    "INSERT INTO country (code, name) VALUES ('CH', 'Switzerland'), ('DE', 'Germany'), ('FR', 'France'), ('US', 'United States')");
            try (var ps = c.prepareStatement("INSERT INTO users (id, name, karma) VALUES (?, ?, 0), (?, ?, 0), (?, ?, 0), (?, ?, 0)")) {
                for (int id = 1; id <= users; id += 4) {
                    for (int k = 0; k < 4; k++) {
                        ps.setInt(2 * k + 1, id + k);
                        ps.setString(2 * k + 2, "user" + (id + k));
                    }
                    rows += ps.executeUpdate();
                }
            }
            try (var ps = c.prepareStatement("INSERT IGNORE INTO followers (source, destination) VALUES (?, ?)")) {
                for (int id = 1; id <= users; id++) {
                    for (int k = 0; k < 4; k++) {
                        ps.setInt(1, id);
                        ps.setInt(2, friendOf(id, users, random));
                        rows += ps.executeUpdate();
                    }
                }
            }
            try (var ps = c.prepareStatement("INSERT INTO tweets (id, author, body, created) VALUES (?, ?, ?, ?)")) {
                for (int t = 1; t <= users * 2; t++) {
                    ps.setLong(1, t);
                    ps.setInt(2, 1 + random.nextInt(users));
                    ps.setString(3, "tweet number " + t);
                    ps.setTimestamp(4, new Timestamp(1_700_000_000_000L + t * 60_000L));
                    rows += ps.executeUpdate();
                }
            }
        }
        return rows;
    }

    /** Nine friends in ten are in the same community: what a graph partitioner exploits. */
    private static int friendOf(int id, int users, Random random) {
        if (random.nextInt(10) == 0) return 1 + random.nextInt(users);
        int friend = community(id) + COMMUNITIES * random.nextInt(Math.max(1, users / COMMUNITIES));
        return friend == 0 ? COMMUNITIES : Math.min(friend, users);
    }

    record WorkloadResult(long ops, long errors, double seconds, long[] latenciesMicros) {}

    private static WorkloadResult workload(String url, int users, int ops, int clients) throws Exception {
        System.out.printf("Running %,d mixed operations on %d clients...%n", ops, clients);
        var done = new AtomicLong();
        var errors = new AtomicLong();
        long[] latencies = new long[ops];
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        var futures = new ArrayList<Future<?>>();
        for (int cl = 0; cl < clients; cl++) {
            final int client = cl;
            futures.add(pool.submit(() -> {
                var random = new Random(client);
                try (Connection c = DriverManager.getConnection(url, "app", "secret");
                     var followees = c.prepareStatement("SELECT destination FROM followers WHERE source = ?");
                     var profiles = c.prepareStatement("SELECT id, name, karma FROM users WHERE id IN (?, ?, ?, ?)");
                     var timeline = c.prepareStatement("SELECT id, body, created FROM tweets WHERE author = ? LIMIT 10");
                     var tweet = c.prepareStatement("INSERT INTO tweets (id, author, body, created) VALUES (?, ?, ?, NOW())");
                     Connection tx = DriverManager.getConnection(url, "app", "secret");
                     var give = tx.prepareStatement("UPDATE users SET karma = karma + ? WHERE id = ?")) {
                    tx.setAutoCommit(false);
                    long op;
                    while ((op = done.getAndIncrement()) < ops) {
                        long t = System.nanoTime();
                        int user = 1 + random.nextInt(users);
                        try {
                            int kind = random.nextInt(100);
                            if (kind < 35) {
                                followees.setInt(1, user);
                                drain(followees);
                            } else if (kind < 55) {
                                for (int k = 0; k < 4; k++) profiles.setInt(k + 1, k == 0 ? user : friendOf(user, users, random));
                                drain(profiles);
                            } else if (kind < 80) {
                                timeline.setInt(1, user);
                                drain(timeline);
                            } else if (kind < 90) {
                                tweet.setLong(1, 1_000_000_000L + op);
                                tweet.setInt(2, user);
                                tweet.setString(3, "hello from client " + client);
                                tweet.executeUpdate();
                            } else {
                                like(tx, give, user, friendOf(user, users, random));
                            }
                        } catch (SQLException e) {
                            if (errors.incrementAndGet() <= 3) System.err.println("  workload error: " + e.getSQLState() + " " + e.getMessage());
                        }
                        latencies[(int) op] = (System.nanoTime() - t) / 1000;
                    }
                }
                return null;
            }));
        }
        for (var f : futures) f.get();
        pool.shutdown();
        return new WorkloadResult(ops, errors.get(), seconds(start), latencies);
    }

    /**
     * A like is a transaction: the liker gives a karma point to a friend. Friends mostly live on
     * the same partition (that is what the partitioner is for), so most likes commit on one
     * partition; the rest use XA. Rows are locked in id order, so likes never deadlock.
     */
    private static void like(Connection tx, java.sql.PreparedStatement give, int user, int friend) throws SQLException {
        if (user == friend) return;
        try {
            for (int id : new int[] {Math.min(user, friend), Math.max(user, friend)}) {
                give.setInt(1, id == user ? -1 : 1);
                give.setInt(2, id);
                give.executeUpdate();
            }
            tx.commit();
        } catch (SQLException e) {
            tx.rollback();
            throw e;
        }
    }

    private static long totalKarma(Shards shards) throws SQLException {
        long total = 0;
        for (int p = 0; p < SHARDS; p++) {
            try (var c = DriverManager.getConnection(shards.url(p, "social_p" + p), shards.user(), shards.password());
                 var rs = c.createStatement().executeQuery("SELECT COALESCE(SUM(karma), 0) FROM users")) {
                rs.next();
                total += rs.getLong(1);
            }
        }
        return total;
    }

    private static void drain(java.sql.PreparedStatement ps) throws SQLException {
        try (var rs = ps.executeQuery()) {
            while (rs.next()) {
                rs.getObject(1);
            }
        }
    }

    private static void report(RouterServer router, Shards shards, WorkloadResult r, long single, long multi) throws SQLException {
        System.out.println();
        System.out.println("Rows per partition:");
        System.out.printf("  %-10s %8s %10s %8s %8s%n", "partition", "users", "followers", "tweets", "country");
        for (int p = 0; p < SHARDS; p++) {
            try (var c = DriverManager.getConnection(shards.url(p, "social_p" + p), shards.user(), shards.password())) {
                System.out.printf("  %-10s %8d %10d %8d %8d%n", "p" + p, count(c, "users"), count(c, "followers"), count(c, "tweets"), count(c, "country"));
            }
        }
        long[] sorted = r.latenciesMicros().clone();
        java.util.Arrays.sort(sorted);
        System.out.println();
        System.out.printf("Workload: %,d operations (35%% followees, 20%% profiles IN-list, 25%% timelines, 10%% tweets, 10%% likes: transactions), %d errors%n",
                r.ops(), r.errors());
        System.out.printf("  statements on one partition: %,d   on several: %,d   (%.1f%% single-partition)%n",
                single, multi, 100.0 * single / Math.max(1, single + multi));
        System.out.printf("  lookup fallbacks: %,d   sub-queries per partition: %s%n", router.stats().fallbacks(),
                java.util.stream.IntStream.range(0, SHARDS).mapToObj(p -> "p" + p + "=" + router.stats().subQueries(p)).toList());
        System.out.printf("  throughput: %,.0f ops/s   latency median %.2f ms, p99 %.2f ms%n",
                r.ops() / r.seconds(), sorted[sorted.length / 2] / 1000.0, sorted[(int) (sorted.length * 0.99)] / 1000.0);
    }

    private static long count(Connection c, String table) throws SQLException {
        try (var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static int intOption(List<String> args, String name, int dflt) {
        int at = args.indexOf(name);
        return at >= 0 && at + 1 < args.size() ? Integer.parseInt(args.get(at + 1)) : dflt;
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
