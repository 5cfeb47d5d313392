package org.lutra.cli.bench;

import org.lutra.cli.Command;
import org.lutra.cli.sql.Args;
import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * {@code ./lutra bench move}: rows moved per second by {@code ALTER TABLE ... SET PARTITION} and by
 * {@code LOAD LOOKUP TABLE ... APPLY} while a read/write workload runs, and that workload's
 * throughput and p99 before and during each move. Four embedded shards, the router in this process.
 */
public final class MoveBench implements Command {
    private static final String USAGE = """
            usage: ./lutra bench move [--users 20000] [--move-keys 6000] [--clients 4] [--seconds 5] [--pause-ms 10] [--out FILE]

              Loads --users users (two followers rows each, SAME AS users) through a router over four embedded
              shards. Runs a closed-loop workload (--clients; 80% point selects of a user and its followers, 20%
              single-row updates) for --seconds alone, then for --seconds while SET PARTITION moves --move-keys keys to
              p3, then while LOAD LOOKUP TABLE ... APPLY moves --move-keys keys to random partitions. The router sleeps
              --pause-ms between move batches (catalog.move_pause_ms; -1: none). Prints a Markdown report.""";
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;

    private final PrintStream out;
    private final PrintStream err;

    public MoveBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "move";
    }

    @Override
    public String summary() {
        return "rows/s moved by SET PARTITION and LOAD ... APPLY under a read/write workload, and the workload's throughput and p99 before vs during";
    }

    /** One phase: the workload's run and, during a move, the move's keys, rows and seconds. */
    record Phase(String name, ClosedLoop.Result workload, long keys, long rows, double moveSeconds) {}

    @Override
    public int run(List<String> args) throws Exception {
        var parsed = Args.forCommand("lutra bench move", USAGE, args, Set.of("--users", "--move-keys", "--clients", "--seconds", "--pause-ms", "--out"), Set.of(), out, err);
        if (parsed.done()) return parsed.exit();
        Args a = parsed.args();
        int users = a.getInt("--users", 20_000);
        int moveKeys = Math.min(users, a.getInt("--move-keys", 6_000));
        int clients = a.getInt("--clients", 4);
        double seconds = Double.parseDouble(a.get("--seconds", "5"));
        int pause = a.getInt("--pause-ms", 10);
        String report;
        try (Shards shards = Shards.start(4)) {
            report = measure(shards, users, moveKeys, clients, seconds, pause);
        }
        out.print(report);
        if (a.has("--out")) Files.writeString(Path.of(a.get("--out", null)), report);
        return 0;
    }

    String measure(Shards shards, int users, int moveKeys, int clients, double seconds, int pause) throws Exception {
        String database = shards.createDatabase("lutra_bench_move");
        Path dir = Files.createTempDirectory("lutra-bench-move");
        try {
            Path schema = Files.writeString(dir.resolve("schema.sql"), SCHEMA);
            var backends = new ArrayList<RouterConfig.Backend>();
            var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
            for (int i = 0; i < 4; i++) {
                backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), Math.max(16, clients + 8)));
                partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, database));
            }
            var config = new RouterConfig("127.0.0.1:0", "bench", schema, List.of(new RouterConfig.User("bench", "bench", null)), backends, partitions,
                    List.of(), 0, 0, new RouterConfig.Transactions("bench-move", 0, 0, 0), null, null,
                    new RouterConfig.CatalogSettings(0, null, dir, pause));
            config.validate();
            try (var router = RouterServer.start(config)) {
                String url = "jdbc:lutra://127.0.0.1:" + router.port() + "/bench";
                long t0 = System.nanoTime();
                load(url, users);
                err.printf(Locale.ROOT, "Loaded %,d users and %,d followers rows in %.1f s%n", users, 2L * users, (System.nanoTime() - t0) / 1e9);
                ClosedLoop.run(clients, seconds, 1, () -> client(url, users)); // warm-up: JIT, pools, buffer pools
                var phases = new ArrayList<Phase>();
                phases.add(new Phase("no move", ClosedLoop.run(clients, seconds, 2, () -> client(url, users)), 0, 0, 0));
                err.println("  before: " + line(phases.getLast()));
                // SET PARTITION: keys 1..moveKeys to p3 (a quarter of them are there already)
                phases.add(during("SET PARTITION", url, clients, seconds, users, () -> {
                    try (Connection c = DriverManager.getConnection(url, "bench", "bench"); Statement st = c.createStatement()) {
                        return new long[] {moveKeys, st.executeUpdate("ALTER TABLE users SET PARTITION = p3 WHERE id BETWEEN 1 AND " + moveKeys)};
                    }
                }));
                err.println("  SET PARTITION: " + line(phases.getLast()));
                phases.add(new Phase("no move (after)", ClosedLoop.run(clients, seconds, 3, () -> client(url, users)), 0, 0, 0));
                // LOAD ... APPLY: keys moveKeys+1..2*moveKeys (or the last ones) to random partitions
                int first = Math.max(1, Math.min(moveKeys + 1, users - moveKeys + 1));
                var map = new StringBuilder();
                var rnd = new SplittableRandom(5);
                for (int id = first; id < first + moveKeys; id++) map.append(id).append(",p").append(rnd.nextInt(4)).append('\n');
                Files.writeString(dir.resolve("bench.csv"), map);
                phases.add(during("LOAD ... APPLY", url, clients, seconds, users, () -> loadApply(url)));
                err.println("  LOAD ... APPLY: " + line(phases.getLast()));
                return report(phases, users, moveKeys, clients, seconds, pause);
            }
        } finally {
            shards.dropDatabase(database);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        }
    }

    interface Move {
        /** Runs the move to its end; returns {keys, rows}. */
        long[] run() throws Exception;
    }

    /** The workload for {@code seconds} while {@code move} runs (started with it); the move's rate over its own whole run. */
    private Phase during(String name, String url, int clients, double seconds, int users, Move move) throws Exception {
        var done = new CompletableFuture<long[]>();
        long start = System.nanoTime();
        Thread.ofPlatform().name("bench-move").start(() -> {
            try {
                done.complete(move.run());
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
        });
        var workload = ClosedLoop.run(clients, seconds, 4, () -> client(url, users));
        long[] moved = done.get();
        double moveSeconds = (System.nanoTime() - start) / 1e9;
        if (moveSeconds < seconds) err.printf(Locale.ROOT, "  note: the move took %.1f s, less than the workload's %.1f s: raise --move-keys%n", moveSeconds, seconds);
        return new Phase(name, workload, moved[0], moved[1], moveSeconds);
    }

    /** LOAD ... APPLY, then SHOW MOVES until the move is done; returns {keys moved, rows moved}. */
    private static long[] loadApply(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "bench", "bench"); Statement st = c.createStatement()) {
            long id = 0;
            try (var rs = st.executeQuery("LOAD LOOKUP TABLE users FROM 'bench.csv' FORMAT csv APPLY")) {
                while (rs.next()) if (rs.getObject("Move") != null) id = rs.getLong("Move");
            }
            while (true) {
                try (var rs = st.executeQuery("SHOW MOVES")) {
                    while (rs.next()) {
                        if (rs.getLong("Id") != id) continue;
                        String state = rs.getString("State");
                        if (state.equals("done")) return new long[] {rs.getLong("Keys_total"), rs.getLong("Rows_moved")};
                        if (!state.equals("running")) throw new SQLException("move " + id + " is " + state + ": " + rs.getString("Message"));
                    }
                }
                Thread.sleep(20);
            }
        }
    }

    private static void load(String url, int users) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "bench", "bench"); Statement st = c.createStatement()) {
            for (int start = 1; start <= users; start += 500) {
                var u = new StringBuilder("INSERT INTO users (id, name) VALUES ");
                var f = new StringBuilder("INSERT INTO followers (source, destination) VALUES ");
                for (int id = start; id <= Math.min(users, start + 499); id++) {
                    u.append(id == start ? "" : ", ").append('(').append(id).append(", 'user").append(id).append("')");
                    f.append(id == start ? "" : ", ").append('(').append(id).append(", 1), (").append(id).append(", 2)");
                }
                st.executeUpdate(u.toString());
                st.executeUpdate(f.toString());
            }
        }
    }

    /** 80%: a user and its followers (two point selects); 20%: an auto-commit update of one user. */
    private static ClosedLoop.Client client(String url, int users) throws SQLException {
        Connection c = DriverManager.getConnection(url, "bench", "bench");
        PreparedStatement user = c.prepareStatement("SELECT name FROM users WHERE id = ?");
        PreparedStatement followers = c.prepareStatement("SELECT destination FROM followers WHERE source = ?");
        PreparedStatement update = c.prepareStatement("UPDATE users SET karma = karma + 1 WHERE id = ?");
        return new ClosedLoop.Client() {
            @Override
            public void transaction(SplittableRandom random) throws Exception {
                int id = 1 + random.nextInt(users);
                if (random.nextInt(5) == 0) {
                    update.setInt(1, id);
                    if (update.executeUpdate() != 1) throw new SQLException("user " + id + " not updated");
                    return;
                }
                user.setInt(1, id);
                try (var rs = user.executeQuery()) {
                    if (!rs.next()) throw new SQLException("user " + id + " not found");
                }
                followers.setInt(1, id);
                int n = 0;
                try (var rs = followers.executeQuery()) {
                    while (rs.next()) n++;
                }
                if (n != 2) throw new SQLException("user " + id + ": " + n + " followers rows, not 2");
            }

            @Override
            public void close() throws SQLException {
                c.close();
            }
        };
    }

    private static String line(Phase p) {
        return String.format(Locale.ROOT, "%,.0f ops/s, p99 %.2f ms, %d errors%s", p.workload().perSecond(), p.workload().latencies().percentileMillis(0.99),
                p.workload().errors(), p.rows() > 0 ? String.format(Locale.ROOT, "; moved %,d rows in %.1f s", p.rows(), p.moveSeconds()) : "");
    }

    private static String report(List<Phase> phases, int users, int moveKeys, int clients, double seconds, int pause) {
        var sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Machine: %d cores, Java %s; 4 embedded MariaDB shards and the router (in-process) on this machine.%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")));
        sb.append(String.format(Locale.ROOT, "Data: %,d users, 2 followers rows each (SAME AS users). Workload: %d clients, closed loop, 80%% a user"
                + " and its followers (2 point selects), 20%% an auto-commit single-row UPDATE; %.0f s per phase. Moves: %,d keys each, 100 keys a"
                + " batch, move_pause_ms %d.%n%n", users, clients, seconds, moveKeys, pause));
        sb.append("| phase | workload ops/s | p50 ms | p99 ms | errors | keys moved | rows moved | move s | rows/s moved |\n");
        sb.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Phase p : phases) {
            var w = p.workload();
            sb.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %d | %s | %s | %s | %s |%n", p.name(), w.perSecond(),
                    w.latencies().percentileMillis(0.5), w.latencies().percentileMillis(0.99), w.errors(),
                    p.keys() > 0 ? String.format(Locale.ROOT, "%,d", p.keys()) : "–", p.keys() > 0 ? String.format(Locale.ROOT, "%,d", p.rows()) : "–",
                    p.keys() > 0 ? String.format(Locale.ROOT, "%.1f", p.moveSeconds()) : "–",
                    p.keys() > 0 ? String.format(Locale.ROOT, "%,.0f", p.rows() / p.moveSeconds()) : "–"));
        }
        return sb.toString();
    }
}
