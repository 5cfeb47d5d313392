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
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@code ./lutra bench query}: what the router adds to each class of query — point, IN list,
 * scatter ORDER BY ... LIMIT, aggregate, GROUP BY — against the same query on one MariaDB holding
 * all rows, and the plan cache's hit rate on statements whose literals vary. One client, so
 * latency is what is compared; router and direct runs interleave round by round.
 */
public final class QueryBench implements Command {
    private static final String USAGE = """
            usage: ./lutra bench query [--rows 200000] [--seconds 3] [--rounds 3] [--out FILE]

              Starts 4 embedded MariaDB shards and a router; loads --rows rows into an items table
              placed by hash(id) over 4 partitions, and the same rows into one database on shard 0
              (the single-MariaDB baseline). Each query class then runs for --seconds through the
              router and directly, --rounds times, interleaved; one client. Prints a Markdown report.""";

    static final int PARTITIONS = 4;
    static final String SCHEMA = """
            CREATE TABLE items (id INT PRIMARY KEY, grp INT NOT NULL, name VARCHAR(32) NOT NULL, price DECIMAL(10,2) NOT NULL, KEY (grp), KEY (price))
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE stock (item_id INT PRIMARY KEY, qty INT NOT NULL) PARTITION BY hash(item_id) ON (p0, p1, p2, p3);
            CREATE TABLE grps (id INT PRIMARY KEY, label VARCHAR(32) NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;

    /** One class of query: its SQL and how to bind it. */
    record QueryClass(String key, String sql, Binder binder) {}

    interface Binder {
        void bind(PreparedStatement ps, SplittableRandom r, int rows) throws SQLException;
    }

    static List<QueryClass> classes() {
        return List.of(
                new QueryClass("point", "SELECT id, name, price FROM items WHERE id = ?", (ps, r, n) -> ps.setInt(1, r.nextInt(n))),
                new QueryClass("in-list", "SELECT id, name, price FROM items WHERE id IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (ps, r, n) -> {
                    for (int i = 1; i <= 10; i++) ps.setInt(i, r.nextInt(n));
                }),
                new QueryClass("scatter-order-limit", "SELECT id, name, price FROM items WHERE grp = ? ORDER BY price DESC, id LIMIT 10",
                        (ps, r, n) -> ps.setInt(1, r.nextInt(100))),
                new QueryClass("scatter-order-limit-all", "SELECT id, name, price FROM items ORDER BY name, id LIMIT 10", (ps, r, n) -> { }),
                new QueryClass("aggregate", "SELECT COUNT(*), SUM(price), AVG(price), MAX(name) FROM items WHERE grp = ?",
                        (ps, r, n) -> ps.setInt(1, r.nextInt(100))),
                new QueryClass("group-by", "SELECT grp, COUNT(*), MAX(price) FROM items WHERE id < ? GROUP BY grp ORDER BY 2 DESC, grp LIMIT 5",
                        (ps, r, n) -> ps.setInt(1, 2000 + r.nextInt(2000))),
                new QueryClass("co-located-join", "SELECT i.id, i.name, s.qty FROM items i JOIN stock s ON s.item_id = i.id WHERE i.id IN (?, ?, ?, ?, ?)",
                        (ps, r, n) -> {
                            for (int i = 1; i <= 5; i++) ps.setInt(i, r.nextInt(n));
                        }),
                new QueryClass("join-in-rounds", "SELECT i.id, i.name, g.label FROM items i JOIN grps g ON g.id = i.grp WHERE i.id IN (?, ?, ?, ?, ?)",
                        (ps, r, n) -> {
                            for (int i = 1; i <= 5; i++) ps.setInt(i, r.nextInt(n));
                        }));
    }

    record Measured(QueryClass query, List<Double> routerP50, List<Double> directP50, List<Double> routerP99, List<Double> directP99, long errors) {}

    private final PrintStream out;
    private final PrintStream err;

    public QueryBench() {
        this(System.out, System.err);
    }

    public QueryBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "query";
    }

    @Override
    public String summary() {
        return "router's added latency per query class (point, IN, scatter ORDER BY LIMIT, aggregate, GROUP BY, co-located join, join in rounds) vs one MariaDB, plan-cache hit rate";
    }

    @Override
    public int run(List<String> args) throws Exception {
        var parsed = Args.forCommand("lutra bench query", USAGE, args, Set.of("--rows", "--seconds", "--rounds", "--out"), Set.of(), out, err);
        if (parsed.done()) return parsed.exit();
        Args a = parsed.args();
        int rows = a.getInt("--rows", 200_000);
        double seconds = Double.parseDouble(a.get("--seconds", "3"));
        int rounds = a.getInt("--rounds", 3);
        String report;
        try (Shards shards = Shards.start(PARTITIONS)) {
            report = measure(shards, rows, seconds, rounds);
        }
        out.print(report);
        if (a.has("--out")) Files.writeString(Path.of(a.get("--out", null)), report);
        return 0;
    }

    String measure(Shards shards, int rows, double seconds, int rounds) throws Exception {
        String database = shards.createDatabase("lutra_bench_query");
        String reference = shards.createDatabase("lutra_bench_query_ref");
        Path dir = Files.createTempDirectory("lutra-bench-query");
        try {
            Path schema = Files.writeString(dir.resolve("items.sql"), SCHEMA);
            var config = config(shards, database, schema);
            try (var router = RouterServer.start(config)) {
                String routerUrl = "jdbc:lutra://127.0.0.1:" + router.port() + "/bench";
                String directUrl = shards.url(0, reference);
                try (Connection c = DriverManager.getConnection(directUrl, shards.user(), shards.password())) {
                    for (var t : router.catalog().tables()) c.createStatement().execute(t.ddl());
                }
                long t0 = System.nanoTime();
                load(DriverManager.getConnection(routerUrl, "bench", "bench"), rows);
                load(DriverManager.getConnection(directUrl, shards.user(), shards.password()), rows);
                err.printf("Loaded %,d rows through the router and directly in %.1f s%n", rows, (System.nanoTime() - t0) / 1e9);
                var results = new LinkedHashMap<String, Measured>();
                for (var q : classes()) {
                    results.put(q.key(), new Measured(q, new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), 0));
                }
                // warm-up: plans cached, pools and JIT warm
                for (var q : classes()) {
                    ClosedLoop.run(1, 0.5, 7, () -> client(routerUrl, "bench", "bench", q, rows));
                    ClosedLoop.run(1, 0.5, 7, () -> client(directUrl, shards.user(), shards.password(), q, rows));
                }
                long errors = 0;
                for (int round = 1; round <= rounds; round++) {
                    var line = new StringBuilder("Round " + round + ":");
                    for (var q : classes()) {
                        var m = results.get(q.key());
                        var viaRouter = ClosedLoop.run(1, seconds, round, () -> client(routerUrl, "bench", "bench", q, rows));
                        var direct = ClosedLoop.run(1, seconds, round, () -> client(directUrl, shards.user(), shards.password(), q, rows));
                        errors += viaRouter.errors() + direct.errors();
                        if (viaRouter.errors() + direct.errors() > 0) {
                            err.println("  errors in " + q.key() + ": " + viaRouter.errorSamples() + direct.errorSamples());
                        }
                        m.routerP50().add(viaRouter.latencies().percentileMillis(0.5));
                        m.directP50().add(direct.latencies().percentileMillis(0.5));
                        m.routerP99().add(viaRouter.latencies().percentileMillis(0.99));
                        m.directP99().add(direct.latencies().percentileMillis(0.99));
                        line.append(String.format(Locale.ROOT, "  %s %.3f/%.3f ms", q.key(), m.routerP50().getLast(), m.directP50().getLast()));
                    }
                    err.println(line);
                }
                double hitRate = planCacheHitRate(router, routerUrl, rows);
                return report(results, rows, seconds, rounds, hitRate, errors, serverVersion(directUrl, shards));
            }
        } finally {
            shards.dropDatabase(database);
            shards.dropDatabase(reference);
            Files.deleteIfExists(dir.resolve("items.sql"));
            Files.deleteIfExists(dir);
        }
    }

    /** Point selects with the key written into the text: 2,000 distinct texts, one plan if literals become parameters. */
    private static double planCacheHitRate(RouterServer router, String url, int rows) throws SQLException {
        var before = router.planner().cacheStats();
        var random = new SplittableRandom(42);
        try (Connection c = DriverManager.getConnection(url, "bench", "bench"); var st = c.createStatement()) {
            for (int i = 0; i < 2000; i++) {
                try (var rs = st.executeQuery("SELECT id, name FROM items WHERE id = " + random.nextInt(rows))) {
                    while (rs.next()) { /* read */ }
                }
            }
        }
        var delta = router.planner().cacheStats().minus(before);
        return delta.hitRate();
    }

    private static ClosedLoop.Client client(String url, String user, String password, QueryClass q, int rows) throws SQLException {
        Connection c = DriverManager.getConnection(url, user, password);
        PreparedStatement ps = c.prepareStatement(q.sql());
        return new ClosedLoop.Client() {
            @Override
            public void transaction(SplittableRandom random) throws Exception {
                q.binder().bind(ps, random, rows);
                try (var rs = ps.executeQuery()) {
                    while (rs.next()) { /* read every row */ }
                }
            }

            @Override
            public void close() throws SQLException {
                ps.close();
                c.close();
            }
        };
    }

    private static void load(Connection c, int rows) throws SQLException {
        try (c) {
            try (var st = c.createStatement()) {
                var groups = new StringBuilder("INSERT INTO grps (id, label) VALUES ");
                for (int g = 0; g < 100; g++) groups.append(g == 0 ? "" : ", ").append("(").append(g).append(", 'group ").append(g).append("')");
                st.executeUpdate(groups.toString());
            }
            final int batch = 500;
            for (int from = 0; from < rows; from += batch) {
                int n = Math.min(batch, rows - from);
                String sql = "INSERT INTO items (id, grp, name, price) VALUES " + String.join(", ", Collections.nCopies(n, "(?, ?, ?, ?)"));
                try (var ps = c.prepareStatement(sql)) {
                    for (int i = 0; i < n; i++) {
                        int id = from + i;
                        ps.setInt(4 * i + 1, id);
                        ps.setInt(4 * i + 2, id % 100);
                        ps.setString(4 * i + 3, "item " + Integer.toString(id * 7919 % 1_000_003, 36));
                        ps.setBigDecimal(4 * i + 4, java.math.BigDecimal.valueOf(id * 37L % 100_000, 2));
                    }
                    ps.executeUpdate();
                }
                String stock = "INSERT INTO stock (item_id, qty) VALUES " + String.join(", ", Collections.nCopies(n, "(?, ?)"));
                try (var ps = c.prepareStatement(stock)) {
                    for (int i = 0; i < n; i++) {
                        ps.setInt(2 * i + 1, from + i);
                        ps.setInt(2 * i + 2, (from + i) % 17);
                    }
                    ps.executeUpdate();
                }
            }
        }
    }

    private static RouterConfig config(Shards shards, String database, Path schema) {
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < PARTITIONS; i++) {
            backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), 8));
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, database));
        }
        var config = new RouterConfig("127.0.0.1:0", "bench", schema, List.of(new RouterConfig.User("bench", "bench", null)),
                backends, partitions, List.of(), 0, 0, new RouterConfig.Transactions("bench-query", 0, 0, 0));
        config.validate();
        return config;
    }

    private static String serverVersion(String url, Shards shards) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, shards.user(), shards.password());
             var rs = c.createStatement().executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String report(Map<String, Measured> results, int rows, double seconds, int rounds, double hitRate, long errors, String version) {
        var s = new StringBuilder();
        s.append("## Query classes through the router vs one MariaDB (`./lutra bench query`)\n\n");
        s.append(String.format(Locale.ROOT, "Machine: %d cores, Java %s; %d MariaDB %s shards and the router (in-process) on this one machine; %s.%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), PARTITIONS, version, LocalDate.now()));
        s.append(String.format(Locale.ROOT, "Data: %,d rows in `items`, hash(id) over 4 partitions; the baseline is the same rows in one "
                + "database on one of the shards. One client, prepared statements, %d rounds × %s s per class and path, interleaved; "
                + "medians over rounds.%n%n", rows, rounds, seconds));
        s.append("| class | SQL | router p50 ms | direct p50 ms | added p50 ms | router p99 ms | direct p99 ms |\n|---|---|--:|--:|--:|--:|--:|\n");
        for (var m : results.values()) {
            double r = median(m.routerP50());
            double d = median(m.directP50());
            s.append(String.format(Locale.ROOT, "| %s | `%s` | %.3f | %.3f | %+.3f | %.3f | %.3f |%n", m.query().key(), m.query().sql(), r, d, r - d,
                    median(m.routerP99()), median(m.directP99())));
        }
        s.append(String.format(Locale.ROOT, "%nPlan cache: %.1f%% hits over 2,000 point selects whose key is written into the SQL text "
                + "(2,000 distinct texts; literals in WHERE become parameters, so they share one plan). Errors: %d.%n", 100 * hitRate, errors));
        return s.toString();
    }

    private static double median(List<Double> values) {
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2);
    }
}
