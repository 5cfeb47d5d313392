package org.lutra.cli.bench;

import org.lutra.cli.Command;
import org.lutra.cli.sql.Args;
import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./lutra bench load}: batched loading (JDBC addBatch/executeBatch of single-row INSERTs,
 * as benchmark loaders and ETL jobs do it) through the Lutra driver and router into a table
 * hash-partitioned over four embedded shards, next to Connector/J with
 * {@code rewriteBatchedStatements=true} straight to one MariaDB, and to the same four shards with
 * the rows sharded by the application. The paths run interleaved, round by round, each into empty
 * tables; the report gives rows/s (median over rounds) and the ratios.
 */
public final class LoadBench implements Command {
    private static final String USAGE = """
            usage: ./lutra bench load [--rows 1000000] [--batch 1000] [--rounds 3] [--per-row-rows 20000] [--warmup-rows 200000] [--out FILE]

              Starts four embedded MariaDB shards and a router over them (partitions p0..p3, one per shard).
              Loads --rows rows in batches of --batch entries, auto-commit on, through each path:
                lutra        the Lutra driver and router (one ExecuteBatch request per batch; the router runs
                             multi-row INSERTs per partition)
                cj-one       Connector/J, rewriteBatchedStatements=true, one MariaDB holding the whole table
                cj-sharded   Connector/J, rewriteBatchedStatements=true, the application splitting each batch by
                             id mod 4 over the four shards
                lutra-rows   the Lutra driver with one executeUpdate per row (--per-row-rows rows): what batches save
              --rounds times, interleaved, after one untimed pass of --warmup-rows rows through each path (the
              router runs in this JVM: its JIT warms up with the clients'). Prints a Markdown report.""";

    static final String TABLE = "stock";
    static final String DDL = "CREATE TABLE stock (id BIGINT PRIMARY KEY, w_id INT NOT NULL, quantity INT NOT NULL, "
            + "data VARCHAR(50) NOT NULL, price DECIMAL(8,2) NOT NULL)";
    static final String INSERT = "INSERT INTO stock (id, w_id, quantity, data, price) VALUES (?, ?, ?, ?, ?)";
    static final int SHARDS = 4;

    private final PrintStream out;
    private final PrintStream err;

    public LoadBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "load";
    }

    @Override
    public String summary() {
        return "batched loading (executeBatch) through the router vs Connector/J with rewriteBatchedStatements, rows/s";
    }

    @Override
    public int run(List<String> args) throws Exception {
        var parsed = Args.forCommand("lutra bench load", USAGE, args, Set.of("--rows", "--batch", "--rounds", "--per-row-rows", "--warmup-rows", "--out"), Set.of(), out, err);
        if (parsed.done()) return parsed.exit();
        Args a = parsed.args();
        String report;
        try (Shards shards = Shards.start(SHARDS)) {
            report = measure(shards, a.getInt("--rows", 1_000_000), a.getInt("--batch", 1000), a.getInt("--rounds", 3),
                    a.getInt("--per-row-rows", 20_000), a.getInt("--warmup-rows", 200_000));
        }
        out.print(report);
        if (a.has("--out")) Files.writeString(Path.of(a.get("--out", null)), report);
        return 0;
    }

    String measure(Shards shards, int rows, int batch, int rounds, int perRowRows, int warmupRows) throws Exception {
        Path schema = Files.createTempFile("lutra-load", ".sql");
        Files.writeString(schema, DDL + " PARTITION BY hash(id) ON (p0, p1, p2, p3);\n");
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < SHARDS; i++) {
            backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), 8));
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, null));
        }
        var config = new RouterConfig("127.0.0.1:0", "load", schema, List.of(new RouterConfig.User("bench", "bench", null)),
                backends, partitions, List.of(), 0, 0, null);
        config.validate();
        for (int i = 0; i < SHARDS; i++) {
            try (var c = shards.connect(i); var st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS load_direct");
                st.execute("USE load_direct");
                st.execute(DDL.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"));
            }
        }
        var results = new LinkedHashMap<String, List<Double>>();
        try (var router = RouterServer.start(config)) {
            String lutraUrl = "jdbc:lutra://127.0.0.1:" + router.port() + "/load";
            if (warmupRows > 0) {
                truncate(shards);
                lutra(lutraUrl, warmupRows, batch);
                truncate(shards);
                direct(shards, 1, warmupRows, batch);
                truncate(shards);
                direct(shards, SHARDS, warmupRows, batch);
                truncate(shards);
                perRow(lutraUrl, Math.min(warmupRows, 2000));
            }
            for (int round = 0; round < rounds; round++) {
                truncate(shards);
                results.computeIfAbsent("lutra", k -> new ArrayList<>()).add(lutra(lutraUrl, rows, batch));
                truncate(shards);
                results.computeIfAbsent("cj-one", k -> new ArrayList<>()).add(direct(shards, 1, rows, batch));
                truncate(shards);
                results.computeIfAbsent("cj-sharded", k -> new ArrayList<>()).add(direct(shards, SHARDS, rows, batch));
                truncate(shards);
                results.computeIfAbsent("lutra-rows", k -> new ArrayList<>()).add(perRow(lutraUrl, perRowRows));
                err.printf(Locale.ROOT, "round %d: %s%n", round + 1, lastOf(results));
            }
            check(shards, router, perRowRows);
        }
        return report(results, rows, batch, rounds, perRowRows);
    }

    private static String lastOf(Map<String, List<Double>> results) {
        var sb = new StringBuilder();
        results.forEach((k, v) -> sb.append(k).append(' ').append(String.format(Locale.ROOT, "%,.0f", v.getLast())).append(" rows/s  "));
        return sb.toString();
    }

    private static void set(PreparedStatement ps, long id) throws SQLException {
        ps.setLong(1, id);
        ps.setInt(2, (int) (id % 10) + 1);
        ps.setInt(3, (int) (id * 7 % 100));
        ps.setString(4, "data-" + id + "-abcdefghijklmnopqrstuvwxyz");
        ps.setBigDecimal(5, BigDecimal.valueOf(id % 10000, 2));
    }

    /** Rows/s through the Lutra driver and router. */
    private static double lutra(String url, int rows, int batch) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "bench", "bench"); var ps = c.prepareStatement(INSERT)) {
            long start = System.nanoTime();
            for (long id = 1; id <= rows; id++) {
                set(ps, id);
                ps.addBatch();
                if (id % batch == 0 || id == rows) ps.executeBatch();
            }
            return rows / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** Rows/s with Connector/J (rewriteBatchedStatements) over {@code servers} shards, rows split by id mod servers. */
    private static double direct(Shards shards, int servers, int rows, int batch) throws SQLException {
        var connections = new ArrayList<Connection>();
        var statements = new ArrayList<PreparedStatement>();
        try {
            for (int i = 0; i < servers; i++) {
                String url = shards.url(i, "load_direct");
                var c = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + "rewriteBatchedStatements=true", shards.user(), shards.password());
                connections.add(c);
                statements.add(c.prepareStatement(INSERT));
            }
            long start = System.nanoTime();
            for (long id = 1; id <= rows; id++) {
                var ps = statements.get((int) (id % servers));
                set(ps, id);
                ps.addBatch();
                if (id % batch == 0 || id == rows) {
                    for (var s : statements) s.executeBatch();
                }
            }
            return rows / ((System.nanoTime() - start) / 1e9);
        } finally {
            for (var c : connections) c.close();
        }
    }

    /** Rows/s through Lutra with one executeUpdate per row. */
    private static double perRow(String url, int rows) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "bench", "bench"); var ps = c.prepareStatement(INSERT)) {
            long start = System.nanoTime();
            for (long id = 1; id <= rows; id++) {
                set(ps, id);
                ps.executeUpdate();
            }
            return rows / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static void truncate(Shards shards) throws SQLException {
        for (int i = 0; i < SHARDS; i++) {
            try (var c = shards.connect(i); var st = c.createStatement()) {
                st.execute("TRUNCATE TABLE load_direct.stock");
                st.execute("TRUNCATE TABLE load_p" + i + ".stock");
            }
        }
    }

    /** The last per-row load must have put every row where hash placement says (id mod 4). */
    private static void check(Shards shards, RouterServer router, int rows) throws SQLException {
        long total = 0;
        for (int i = 0; i < SHARDS; i++) {
            try (var c = shards.connect(i); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT COUNT(*), SUM(id % 4 <> " + i + ") FROM load_p" + i + ".stock")) {
                rs.next();
                total += rs.getLong(1);
                if (rs.getLong(2) != 0) throw new IllegalStateException("rows on the wrong partition p" + i);
            }
        }
        if (total != rows) throw new IllegalStateException("loaded " + total + " rows, expected " + rows);
    }

    private static double median(List<Double> xs) {
        var s = xs.stream().sorted().toList();
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }

    static String report(Map<String, List<Double>> results, int rows, int batch, int rounds, int perRowRows) {
        var sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Batched loading: %,d rows in batches of %,d, auto-commit, one client; %d rounds, interleaved%n%n",
                rows, batch, rounds));
        sb.append("| path | rows | rows/s (median) | range | × cj-one | × cj-sharded |\n|---|---:|---:|---|---:|---:|\n");
        double one = median(results.get("cj-one")), sharded = median(results.get("cj-sharded"));
        var names = Map.of("lutra", "Lutra driver + router, 4 partitions (ExecuteBatch)",
                "cj-one", "Connector/J rewriteBatchedStatements, one MariaDB",
                "cj-sharded", "Connector/J rewriteBatchedStatements, 4 shards, split by the application",
                "lutra-rows", "Lutra, one executeUpdate per row");
        results.forEach((k, v) -> {
            double m = median(v);
            sb.append(String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f–%,.0f | %.2f | %.2f |%n", names.get(k),
                    k.equals("lutra-rows") ? perRowRows : rows, m, v.stream().mapToDouble(d -> d).min().orElse(0),
                    v.stream().mapToDouble(d -> d).max().orElse(0), m / one, m / sharded));
        });
        return sb.toString();
    }
}
