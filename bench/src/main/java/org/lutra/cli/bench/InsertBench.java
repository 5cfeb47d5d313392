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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code ./lutra bench insert}: what placement's guarantees cost, side by side in one run, one client:
 * a single-row auto-commit INSERT into a lookup-placed table (its placement trigger reads the key's
 * placement row under a shared lock) against the same INSERT into a hash-placed table (no trigger),
 * and a COUNT(*) over the two tables' same rows (the lookup table's scan takes the move fence and a
 * snapshot per partition; the hash table's does not). Alternating, so both see the same machine.
 */
public final class InsertBench implements Command {
    private static final String USAGE = """
            usage: ./lutra bench insert [--rows 5000] [--scans 500] [--out FILE]

              Through a router over four embedded shards, inserts --rows rows one auto-commit INSERT at a time into a
              lookup-placed table and as many into a hash-placed one, alternately; then --scans COUNT(*) of each table,
              alternately. Prints medians and p99 side by side as a Markdown table.""";
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE hashed_users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL)
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;

    private final PrintStream out;
    private final PrintStream err;

    public InsertBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "insert";
    }

    @Override
    public String summary() {
        return "placement's costs: INSERT into a lookup-placed table (placement trigger) vs a hash-placed one, and their COUNT(*) (move fence)";
    }

    @Override
    public int run(List<String> args) throws Exception {
        var parsed = Args.forCommand("lutra bench insert", USAGE, args, Set.of("--rows", "--scans", "--out"), Set.of(), out, err);
        if (parsed.done()) return parsed.exit();
        Args a = parsed.args();
        int rows = a.getInt("--rows", 5_000);
        int scans = a.getInt("--scans", 500);
        String report;
        try (Shards shards = Shards.start(4)) {
            report = measure(shards, rows, scans);
        }
        out.print(report);
        if (a.has("--out")) Files.writeString(Path.of(a.get("--out", null)), report);
        return 0;
    }

    String measure(Shards shards, int rows, int scans) throws Exception {
        String database = shards.createDatabase("lutra_bench_insert");
        Path dir = Files.createTempDirectory("lutra-bench-insert");
        try {
            Path schema = Files.writeString(dir.resolve("schema.sql"), SCHEMA);
            var backends = new ArrayList<RouterConfig.Backend>();
            var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
            for (int i = 0; i < 4; i++) {
                backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), 16));
                partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, database));
            }
            var config = new RouterConfig("127.0.0.1:0", "bench", schema, List.of(new RouterConfig.User("bench", "bench", null)), backends, partitions,
                    List.of(), 0, 0, new RouterConfig.Transactions("bench-insert", 0, 0, 0), null, null, RouterConfig.CatalogSettings.defaults());
            config.validate();
            try (var router = RouterServer.start(config);
                 Connection c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + router.port() + "/bench", "bench", "bench");
                 PreparedStatement lookup = c.prepareStatement("INSERT INTO users (id, name) VALUES (?, ?)");
                 PreparedStatement hash = c.prepareStatement("INSERT INTO hashed_users (id, name) VALUES (?, ?)");
                 PreparedStatement countLookup = c.prepareStatement("SELECT COUNT(*) FROM users");
                 PreparedStatement countHash = c.prepareStatement("SELECT COUNT(*) FROM hashed_users")) {
                int warm = Math.min(500, rows / 5); // JIT, pools, prepared statements: not measured
                var inserts = new long[2][rows];
                for (int i = 1; i <= warm + rows; i++) {
                    long l = inserted(lookup, i);
                    long h = inserted(hash, i);
                    if (i > warm) {
                        inserts[0][i - warm - 1] = l;
                        inserts[1][i - warm - 1] = h;
                    }
                }
                var counts = new long[2][scans];
                for (int i = 0; i < warm + scans; i++) {
                    long l = counted(countLookup, warm + rows);
                    long h = counted(countHash, warm + rows);
                    if (i >= warm) {
                        counts[0][i - warm] = l;
                        counts[1][i - warm] = h;
                    }
                }
                return report(rows, scans, inserts, counts);
            }
        } finally {
            shards.dropDatabase(database);
            Files.deleteIfExists(dir.resolve("schema.sql"));
            Files.deleteIfExists(dir);
        }
    }

    /** Nanoseconds of one INSERT of row {@code id}, which must insert one row. */
    private static long inserted(PreparedStatement insert, int id) throws SQLException {
        insert.setInt(1, id);
        insert.setString(2, "user" + id);
        long t0 = System.nanoTime();
        int n = insert.executeUpdate();
        long t = System.nanoTime() - t0;
        if (n != 1) throw new SQLException("insert of " + id + " inserted " + n + " rows");
        return t;
    }

    /** Nanoseconds of one COUNT(*), which must count {@code expected} rows. */
    private static long counted(PreparedStatement count, long expected) throws SQLException {
        long t0 = System.nanoTime();
        long n;
        try (var rs = count.executeQuery()) {
            rs.next();
            n = rs.getLong(1);
        }
        long t = System.nanoTime() - t0;
        if (n != expected) throw new SQLException("COUNT(*) answered " + n + ", not " + expected);
        return t;
    }

    private static String report(int rows, int scans, long[][] inserts, long[][] counts) {
        var sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Machine: %d cores, Java %s; 4 embedded MariaDB shards and the router (in-process); one client.%n%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")));
        sb.append("| statement | lookup-placed median ms | hash-placed median ms | lookup p99 ms | hash p99 ms | n each |\n");
        sb.append("|---|--:|--:|--:|--:|--:|\n");
        sb.append(line("single-row auto-commit INSERT", inserts, rows));
        sb.append(line("COUNT(*) over 4 partitions", counts, scans));
        return sb.toString();
    }

    private static String line(String name, long[][] t, int n) {
        for (long[] a : t) Arrays.sort(a);
        return String.format(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.3f | %,d |%n", name, t[0][n / 2] / 1e6, t[1][n / 2] / 1e6,
                t[0][(int) (n * 0.99)] / 1e6, t[1][(int) (n * 0.99)] / 1e6, n);
    }
}
