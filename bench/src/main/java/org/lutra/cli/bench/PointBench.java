package org.lutra.cli.bench;

import org.lutra.cli.Command;
import org.lutra.cli.sql.Args;
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
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@code ./lutra bench point}: what the router costs on its hottest path. One embedded MariaDB
 * shard holds the same table twice: once as the only partition of a router, once as a plain
 * database read with Connector/J. Prepared point selects (and auto-commit single-row updates)
 * run closed-loop at 1 and 16 clients, router and direct interleaved round by round.
 *
 * <p>The router runs in a process of its own so that its CPU time is its own: router CPU per
 * statement is that process's CPU time over the statements it served. Backend round trips per
 * statement come from the shard's own status counters over the router runs (nothing else talks
 * to the shard then), less the router's own background statements at the rate they ran while
 * no client did.
 */
public final class PointBench implements Command {
    private static final String USAGE = """
            usage: ./lutra bench point [--rows 100000] [--seconds 3] [--rounds 3] [--clients 1,16] [--workloads 'point select,single-row update'] [--warmup 4] [--warmup-max 240] [--metrics] [--jfr FILE] [--verbose] [--out FILE]

              Starts one embedded MariaDB shard and a router process whose only partition is that shard;
              loads --rows rows into `users` (routed) and into a second database (direct). Runs prepared
              point selects and auto-commit single-row updates for --seconds per client count and path,
              --rounds times, interleaved, after passes of --warmup seconds per cell until the router's and the clients' JIT compilers are idle (under 2 % of the CPU; at most --warmup-max seconds, 240 by default). --jfr records the router process with Java Flight Recorder;
              --verbose prints the router's CPU ticks per thread for each run. Env LUTRA_BENCH_ROUTER_OPTS adds
              JVM options to the router process (e.g. -agentpath:.../libasyncProfiler.so=start,event=cpu,...).
              --metrics also runs a second router process over the same partition with monitoring on (an http: listener,
              its /metrics scraped every second, and a slow_log), measured in the same rounds right beside the first
              (which runs without), and reports the two side by side: what metrics cost on the hot path.
              Prints a Markdown report.""";

    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL, karma INT NOT NULL) PARTITION BY hash(id) ON (p0);
            """;
    /** Router warm-up per cell and pass; passes repeat until the JIT is done ({@link #warmUp}). */
    private double warmUpSeconds = 4;
    /** Warm-up passes stop after this long even if the JIT still compiles (--warmup-max). */
    private double maxWarmUpSeconds = 240;
    static final String SELECT = "SELECT id, name FROM users WHERE id = ?";
    static final String UPDATE = "UPDATE users SET karma = karma + 1 WHERE id = ?";
    /**
     * The shard's counters. Round trips are Questions (every statement a client sent, prepared
     * executions included) plus the commands Questions leaves out that wait for a reply (prepare,
     * reset, ping); the Com_* counters say what the statements were.
     */
    static final List<String> ROUND_TRIPS = List.of("Questions", "Com_stmt_prepare", "Com_stmt_reset", "Com_admin_commands");
    static final List<String> COUNTERS = List.of("Questions", "Com_stmt_execute", "Com_stmt_prepare", "Com_stmt_close", "Com_stmt_reset",
            "Com_set_option", "Com_select", "Com_update", "Com_commit", "Com_rollback", "Com_admin_commands", "Com_xa_start", "Com_xa_end",
            "Com_xa_prepare", "Com_xa_commit", "Com_xa_rollback");

    /** One workload at one client count: router, direct and forwarded results per round. */
    record Cell(String workload, int clients, List<ClosedLoop.Result> router, List<ClosedLoop.Result> direct, Forwarded threads, Forwarded loop,
                List<Double> cpuMicros, List<Double> userCpuMicros, List<Double> lutraClientMicros, List<Double> directClientMicros,
                List<java.util.Map<String, Long>> counters, List<ClosedLoop.Result> metered, List<Double> meteredCpuMicros, Forwarded mysql) {
        Cell(String workload, int clients) {
            this(workload, clients, new ArrayList<>(), new ArrayList<>(), new Forwarded(), new Forwarded(), new ArrayList<>(), new ArrayList<>(),
                    new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new Forwarded());
        }
    }

    /** One forwarder's results and CPU µs per statement, per round. */
    record Forwarded(List<ClosedLoop.Result> results, List<Double> cpuMicros) {
        Forwarded() {
            this(new ArrayList<>(), new ArrayList<>());
        }

        ClosedLoop.Result run(Forwarder forwarder, Cell cell, double seconds, int round, ClosedLoop.Opener client) throws Exception {
            long before = forwarder.cpuNanos();
            var result = ClosedLoop.run(cell.clients(), seconds, round, client);
            results.add(result);
            cpuMicros.add((forwarder.cpuNanos() - before) / 1e3 / Math.max(1, result.transactions()));
            return result;
        }

        double perSecond() {
            return median(results.stream().map(ClosedLoop.Result::perSecond).toList());
        }
    }

    private final PrintStream out;
    private final PrintStream err;

    public PointBench() {
        this(System.out, System.err);
    }

    public PointBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "point";
    }

    @Override
    public String summary() {
        return "the hot path: point select / single-row update through the router vs Connector/J direct, 1 and 16 clients, "
                + "round trips, router CPU µs per statement, added latency";
    }

    @Override
    public int run(List<String> args) throws Exception {
        if (args.contains("--help") || args.contains("-h")) {
            out.println(USAGE);
            return 0;
        }
        Args a;
        try {
            a = parse(args);
        } catch (Args.UsageException e) {
            err.println("lutra bench point: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        String report;
        try (Shards shards = Shards.start(1)) {
            report = measure(shards, a);
        }
        out.print(report);
        if (a.has("--out")) Files.writeString(Path.of(a.get("--out", null)), report);
        return 0;
    }

    /** Runs the bench with the options in {@code a} on shard 0 of {@code shards}; returns the report. */
    String measure(Shards shards, Args a) throws Exception {
        List<Integer> clients = new ArrayList<>();
        for (String c : a.get("--clients", "1,16").split(",")) clients.add(Integer.parseInt(c.trim()));
        verbose = a.has("--verbose");
        if (a.has("--warmup")) warmUpSeconds = Double.parseDouble(a.get("--warmup", "4"));
        if (a.has("--warmup-max")) maxWarmUpSeconds = Double.parseDouble(a.get("--warmup-max", "240"));
        if (a.has("--workloads")) workloads = List.of(a.get("--workloads", null).split(","));
        metrics = a.has("--metrics");
        return measure(shards, a.getInt("--rows", 100_000), Double.parseDouble(a.get("--seconds", "3")), a.getInt("--rounds", 3), clients,
                a.has("--jfr") ? Path.of(a.get("--jfr", null)) : null);
    }

    static Args parse(List<String> args) throws Args.UsageException {
        return Args.parse(args, Set.of("--rows", "--seconds", "--rounds", "--clients", "--workloads", "--warmup", "--warmup-max", "--jfr", "--out"), Set.of("--verbose", "--metrics"));
    }

    private boolean verbose;
    /** Whether a second router with monitoring on runs beside the first (--metrics). */
    private boolean metrics;
    /** The config that turns monitoring on in the second router: metrics on its HTTP listener, and the slow log. */
    static final String MONITORING = """
            http: { listen: "127.0.0.1:0" }
            slow_log: { threshold_ms: 1000 }
            """;

    private List<String> workloads = List.of("point select", "single-row update");

    String measure(Shards shards, int rows, double seconds, int rounds, List<Integer> clientCounts, Path jfr) throws Exception {
        String routed = shards.createDatabase("lutra_bench_point");
        String reference = shards.createDatabase("lutra_bench_point_ref");
        Path dir = Files.createTempDirectory("lutra-bench-point");
        var shardAddress = java.util.regex.Pattern.compile("//([^:/]+):(\\d+)/").matcher(shards.url(0));
        if (!shardAddress.find()) throw new IllegalStateException("no host:port in " + shards.url(0));
        Path meteredDir = Files.createTempDirectory("lutra-bench-point-metrics");
        try (var router = RouterProcess.start(dir, shards, routed, SCHEMA, jfr);
             var metered = metrics ? RouterProcess.start(meteredDir, shards, routed, SCHEMA, null, "bench-point-on", MONITORING) : null;
             var scraper = metrics ? new Scraper(metered.http() + "metrics") : null;
             var threads = new TcpForwarder(shardAddress.group(1), Integer.parseInt(shardAddress.group(2)));
             var loop = new SelectorForwarder(shardAddress.group(1), Integer.parseInt(shardAddress.group(2)))) {
            String routerUrl = router.url();
            String directUrl = shards.url(0, reference);
            String threadsUrl = directUrl.replace(":" + shardAddress.group(2) + "/", ":" + threads.port() + "/");
            String loopUrl = directUrl.replace(":" + shardAddress.group(2) + "/", ":" + loop.port() + "/");
            // Connector/J with the direct path's options, at the router's MySQL listener
            String mysqlUrl = router.mysqlUrl(directUrl.contains("?") ? directUrl.substring(directUrl.indexOf('?')) : "");
            try (Connection c = DriverManager.getConnection(directUrl, shards.user(), shards.password()); var st = c.createStatement()) {
                st.execute("CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL, karma INT NOT NULL)");
            }
            load(DriverManager.getConnection(routerUrl, "bench", "bench"), rows);
            load(DriverManager.getConnection(directUrl, shards.user(), shards.password()), rows);
            var cells = new ArrayList<Cell>();
            for (String workload : workloads) {
                for (int n : clientCounts) cells.add(new Cell(workload, n));
            }
            warmUp(router, cells, routerUrl, directUrl, List.of(threadsUrl, loopUrl), shards, rows);
            if (metered != null) warmUp(metered, cells, metered.url(), directUrl, List.of(), shards, rows);
            var idle = idleRates(shards, seconds);
            err.println("Per round and cell: statements/s through the router (Lutra driver), direct, the threads forwarder, the event-loop "
                    + "forwarder and the router's MySQL listener (Connector/J); CPU µs per statement of the router, the two forwarders and the router "
                    + "serving the MySQL listener");
            for (int round = 1; round <= rounds; round++) {
                var line = new StringBuilder("Round " + round + ":");
                for (var cell : cells) {
                    // with --metrics the monitored router runs right before the plain one in odd rounds, right after in even ones
                    if (metered != null && round % 2 == 1) measureMetered(metered, cell, seconds, round, rows);
                    var before = counters(shards);
                    long cpuBefore = router.cpuNanos();
                    long[] processTicksBefore = router.processTicks();
                    var ticksBefore = router.threadTicks();
                    long clientBefore = ownCpuNanos();
                    long wallBefore = System.nanoTime();
                    var viaRouter = ClosedLoop.run(cell.clients(), seconds, round, () -> client(routerUrl, "bench", "bench", cell.workload(), rows));
                    long cpu = router.cpuNanos() - cpuBefore;
                    long[] processTicks = router.processTicks();
                    long userTicks = processTicks[0] - processTicksBefore[0];
                    double userShare = (double) userTicks / Math.max(1, userTicks + processTicks[1] - processTicksBefore[1]);
                    long lutraClient = ownCpuNanos() - clientBefore;
                    if (verbose) printTicks(cell, ticksBefore, router.threadTicks(), viaRouter.transactions());
                    var after = counters(shards);
                    after.merge("Questions", -1L, Long::sum); // the SHOW STATUS that read "before" counts itself
                    double wallSeconds = (System.nanoTime() - wallBefore) / 1e9;
                    // the router's own background statements (its catalog lease) are no statement's round trips: the idle rate over the run's time
                    idle.forEach((k, perSecond) -> after.merge(k, -Math.round(perSecond * wallSeconds), Long::sum));
                    if (metered != null && round % 2 == 0) measureMetered(metered, cell, seconds, round, rows);
                    long directBefore = ownCpuNanos();
                    var direct = ClosedLoop.run(cell.clients(), seconds, round, () -> client(directUrl, shards.user(), shards.password(), cell.workload(), rows));
                    long directClient = ownCpuNanos() - directBefore;
                    var viaThreads = cell.threads().run(threads, cell, seconds, round, () -> client(threadsUrl, shards.user(), shards.password(), cell.workload(), rows));
                    var viaLoop = cell.loop().run(loop, cell, seconds, round, () -> client(loopUrl, shards.user(), shards.password(), cell.workload(), rows));
                    long mysqlCpuBefore = router.cpuNanos();
                    var viaMysql = ClosedLoop.run(cell.clients(), seconds, round, () -> client(mysqlUrl, "bench", "bench", cell.workload(), rows));
                    cell.mysql().results().add(viaMysql);
                    cell.mysql().cpuMicros().add((router.cpuNanos() - mysqlCpuBefore) / 1e3 / Math.max(1, viaMysql.transactions()));
                    for (var r : List.of(viaRouter, direct, viaThreads, viaLoop, viaMysql)) {
                        if (r.errors() > 0) err.println("  errors in " + cell.workload() + ": " + r.errorSamples());
                    }
                    cell.router().add(viaRouter);
                    cell.direct().add(direct);
                    cell.cpuMicros().add(cpu / 1e3 / Math.max(1, viaRouter.transactions()));
                    cell.userCpuMicros().add(userShare * cpu / 1e3 / Math.max(1, viaRouter.transactions()));
                    cell.lutraClientMicros().add(lutraClient / 1e3 / Math.max(1, viaRouter.transactions()));
                    cell.directClientMicros().add(directClient / 1e3 / Math.max(1, direct.transactions()));
                    var delta = new java.util.LinkedHashMap<String, Long>();
                    for (String k : COUNTERS) delta.put(k, after.get(k) - before.get(k));
                    delta.put("statements", viaRouter.transactions());
                    cell.counters().add(delta);
                    line.append(String.format(Locale.ROOT, "  %s×%d %.0f/%.0f/%.0f/%.0f/%.0f /s, CPU %.1f/%.1f/%.1f/%.1f µs", cell.workload(), cell.clients(),
                            viaRouter.perSecond(), direct.perSecond(), viaThreads.perSecond(), viaLoop.perSecond(), viaMysql.perSecond(),
                            last(cell.cpuMicros()), last(cell.threads().cpuMicros()), last(cell.loop().cpuMicros()), last(cell.mysql().cpuMicros())));
                }
                err.println(line);
            }
            String report = report(cells, rows, seconds, rounds, serverVersion(directUrl, shards), jfr);
            return metered == null ? report : report + meteredReport(cells, scraper.scrapes());
        } finally {
            Files.deleteIfExists(meteredDir.resolve("router.yaml"));
            Files.deleteIfExists(meteredDir.resolve("schema.sql"));
            Files.deleteIfExists(meteredDir);
            shards.dropDatabase(routed);
            shards.dropDatabase(reference);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        }
    }

    /**
     * Runs every cell until the router's JIT has compiled the hot path: passes of --warmup seconds
     * per cell until the router's compiler threads used under 2 % of its CPU in a pass (and the
     * clients' JVM compiled for under 2 % of the pass), at most {@link #maxWarmUpSeconds}. On two
     * cores shared with 16 busy clients and the shard, C2 gets little CPU and compiles the hot path
     * for a minute or more; measured before it is done, the router runs partly in C1's profiling
     * code and costs up to twice the CPU per statement of its steady state.
     */
    private void warmUp(RouterProcess router, List<Cell> cells, String routerUrl, String directUrl, List<String> forwardedUrls, Shards shards, int rows)
            throws Exception {
        var clientJit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        for (int pass = 1; ; pass++) {
            long compilerBefore = router.compilerTicks();
            long cpuBefore = router.cpuNanos();
            long clientJitBefore = clientJit.getTotalCompilationTime();
            long passStart = System.nanoTime();
            for (var cell : cells) {
                ClosedLoop.run(cell.clients(), warmUpSeconds, 7, () -> client(routerUrl, "bench", "bench", cell.workload(), rows));
                ClosedLoop.run(cell.clients(), 1, 7, () -> client(directUrl, shards.user(), shards.password(), cell.workload(), rows));
                for (String url : forwardedUrls) ClosedLoop.run(cell.clients(), 1, 7, () -> client(url, shards.user(), shards.password(), cell.workload(), rows));
                ClosedLoop.run(cell.clients(), warmUpSeconds, 7, () -> client(mysqlUrl(routerUrl, router, directUrl), "bench", "bench", cell.workload(), rows));
            }
            double routerJit = (router.compilerTicks() - compilerBefore) * 1e7 / Math.max(1, router.cpuNanos() - cpuBefore);
            double clientsJit = (clientJit.getTotalCompilationTime() - clientJitBefore) * 1e6 / Math.max(1, System.nanoTime() - passStart);
            double elapsed = (System.nanoTime() - start) / 1e9;
            err.printf(Locale.ROOT, "warm-up pass %d (%.0f s): JIT compiling took %.1f %% of the router's CPU, %.1f %% of the clients' time%n",
                    pass, elapsed, 100 * routerJit, 100 * clientsJit);
            if (pass >= 2 && routerJit < 0.02 && clientsJit < 0.02) return;
            if (elapsed >= maxWarmUpSeconds) {
                err.printf(Locale.ROOT, "warm-up: still compiling after %.0f s; measuring anyway%n", elapsed);
                return;
            }
        }
    }

    private static String mysqlUrl(String routerUrl, RouterProcess router, String directUrl) {
        return router.mysqlUrl(directUrl.contains("?") ? directUrl.substring(directUrl.indexOf('?')) : "");
    }

    /** Where the router's CPU went during one run, thread by thread (ticks of 10 ms, user/system). */
    private void printTicks(Cell cell, java.util.Map<String, long[]> before, java.util.Map<String, long[]> after, long statements) {
        var lines = new ArrayList<String>();
        long user = 0, system = 0;
        for (var e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[2]);
            long u = e.getValue()[0] - b[0], sy = e.getValue()[1] - b[1];
            user += u;
            system += sy;
            if (u + sy > 0) lines.add(String.format(Locale.ROOT, "%s %d/%d", e.getKey(), u, sy));
        }
        err.printf(Locale.ROOT, "  router CPU in %s × %d: user %d, system %d ticks over %,d statements: %s%n", cell.workload(), cell.clients(),
                user, system, statements, String.join(", ", lines));
    }

    /** CPU time of this process (the clients), all threads. */
    private static long ownCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
    }

    /**
     * The shard's counters per second while the router runs and no client does (its catalog lease's statements): taken off
     * each cell's counts, which otherwise weigh them more the slower a busy machine runs the loop.
     */
    private static java.util.Map<String, Double> idleRates(Shards shards, double seconds) throws SQLException, InterruptedException {
        double window = Math.max(2, seconds);
        var before = counters(shards);
        long t0 = System.nanoTime();
        Thread.sleep((long) (window * 1000));
        var after = counters(shards);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        after.merge("Questions", -1L, Long::sum); // the SHOW STATUS that read "before" counts itself
        var rates = new java.util.HashMap<String, Double>();
        for (String k : COUNTERS) rates.put(k, Math.max(0, after.get(k) - before.get(k)) / elapsed);
        return rates;
    }

    private static java.util.Map<String, Long> counters(Shards shards) throws SQLException {
        var values = new java.util.HashMap<String, Long>();
        try (Connection c = shards.connect(0); var rs = c.createStatement().executeQuery("SHOW GLOBAL STATUS WHERE Variable_name = 'Questions' OR Variable_name LIKE 'Com\\_%'")) {
            while (rs.next()) values.put(rs.getString(1), rs.getLong(2));
        }
        for (String k : COUNTERS) values.putIfAbsent(k, 0L);
        return values;
    }

    private static ClosedLoop.Client client(String url, String user, String password, String workload, int rows) throws SQLException {
        Connection c = DriverManager.getConnection(url, user, password);
        boolean select = workload.equals("point select");
        PreparedStatement ps = c.prepareStatement(select ? SELECT : UPDATE);
        return new ClosedLoop.Client() {
            @Override
            public void transaction(SplittableRandom random) throws Exception {
                ps.setInt(1, random.nextInt(rows));
                if (select) {
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) { /* read every row */ }
                    }
                } else if (ps.executeUpdate() != 1) {
                    throw new SQLException("the update changed no row");
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
            final int batch = 1000;
            for (int from = 0; from < rows; from += batch) {
                int n = Math.min(batch, rows - from);
                String sql = "INSERT INTO users (id, name, karma) VALUES " + String.join(", ", Collections.nCopies(n, "(?, ?, 0)"));
                try (var ps = c.prepareStatement(sql)) {
                    for (int i = 0; i < n; i++) {
                        ps.setInt(2 * i + 1, from + i);
                        ps.setString(2 * i + 2, "user " + Integer.toString((from + i) * 7919 % 1_000_003, 36));
                    }
                    ps.executeUpdate();
                }
            }
        }
    }

    private static String serverVersion(String url, Shards shards) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, shards.user(), shards.password());
             var rs = c.createStatement().executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String report(List<Cell> cells, int rows, double seconds, int rounds, String version, Path jfr) {
        var s = new StringBuilder();
        s.append("## The hot path: one shard, through the router vs direct (`./lutra bench point`)\n\n");
        s.append(String.format(Locale.ROOT, "Machine: %d cores, Java %s; one MariaDB %s shard, the router in its own JVM, and the clients, "
                        + "all on this one machine; %s.%s%n", Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), version,
                LocalDate.now(), jfr == null ? "" : " Router recorded with JFR (" + jfr + "): numbers include its overhead."));
        s.append(String.format(Locale.ROOT, "Data: %,d rows in `users`, the router's only partition; the direct baseline is the same rows in "
                + "another database of the same shard, read with Connector/J (server-side prepared statements). Closed loop, "
                + "%d rounds × %s s per cell and path, interleaved; medians over rounds. The router's CPU in user space is its share of the "
                + "process's user time (the rest is the kernel's: system calls, the loopback network stack, waking threads). The two "
                + "forwarders are the same Connector/J client through a proxy in the bench's JVM that only copies bytes: what the extra "
                + "hop alone costs on this machine. One copies with two platform threads per connection (the router's own design: "
                + "a thread woken per segment), the other with one thread and a selector for all connections (an event loop: one "
                + "thread woken for all the sockets ready together). Their CPU µs per statement are their copying threads' CPU time; "
                + "the lower of the two is the floor of any proxy's CPU per statement here.%n%n", rows, rounds, seconds));
        s.append("| workload | clients | router /s | direct /s | ratio | added p50 µs | added p99 µs | router CPU µs/stmt | of it in user space "
                + "| forwarder, threads: /s | ratio | CPU µs/stmt | forwarder, event loop: /s | ratio | CPU µs/stmt "
                + "| client CPU µs/stmt: Lutra driver / Connector/J | backend round trips/stmt |\n");
        s.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            double r = median(c.router().stream().map(ClosedLoop.Result::perSecond).toList());
            double d = median(c.direct().stream().map(ClosedLoop.Result::perSecond).toList());
            double t = c.threads().perSecond();
            double l = c.loop().perSecond();
            double trips = median(c.counters().stream().map(PointBench::roundTrips).toList());
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.2f× | %+.0f | %+.0f | %.1f | %.1f | %,.0f | %.2f× | %.1f | %,.0f | %.2f× | %.1f | %.1f / %.1f | %.2f |%n",
                    c.workload(), c.clients(), r, d, r / d, median(pairs(c, 0.5)), median(pairs(c, 0.99)), median(c.cpuMicros()), median(c.userCpuMicros()),
                    t, t / d, median(c.threads().cpuMicros()), l, l / d, median(c.loop().cpuMicros()), median(c.lutraClientMicros()),
                    median(c.directClientMicros()), trips));
        }
        s.append("\nBackend statements per routed statement, by the shard's counters (median round; only counters that moved):\n\n");
        for (var c : cells) {
            var median = c.counters().get(c.counters().size() / 2);
            var parts = new ArrayList<String>();
            long n = Math.max(1, median.get("statements"));
            for (var e : median.entrySet()) {
                if (!e.getKey().equals("statements") && e.getValue() > 0) {
                    parts.add(String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue() / (double) n));
                }
            }
            s.append(String.format(Locale.ROOT, "- %s × %d: %s%n", c.workload(), c.clients(), String.join(", ", parts)));
        }
        s.append("\nThe router's MySQL listener: the same Connector/J client (the direct path's options) at the router's MySQL-protocol port, "
                + "so the router parses MySQL packets instead of the Lutra driver's frames:\n\n");
        s.append("| workload | clients | MySQL listener /s | vs Lutra driver | vs forwarder, threads | vs forwarder, event loop | vs direct | router CPU µs/stmt |\n");
        s.append("|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            double mysql = c.mysql().perSecond();
            double lutra = median(c.router().stream().map(ClosedLoop.Result::perSecond).toList());
            double direct = median(c.direct().stream().map(ClosedLoop.Result::perSecond).toList());
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.2f× | %.2f× | %.2f× | %.2f× | %.1f |%n", c.workload(), c.clients(), mysql, mysql / lutra,
                    mysql / c.threads().perSecond(), mysql / c.loop().perSecond(), mysql / direct, median(c.mysql().cpuMicros())));
        }
        return s.toString();
    }

    /** One run of {@code cell} through the router with monitoring on: its throughput and CPU per statement. */
    private void measureMetered(RouterProcess metered, Cell cell, double seconds, int round, int rows) throws Exception {
        long cpuBefore = metered.cpuNanos();
        var result = ClosedLoop.run(cell.clients(), seconds, round, () -> client(metered.url(), "bench", "bench", cell.workload(), rows));
        if (result.errors() > 0) err.println("  errors in " + cell.workload() + " (metrics on): " + result.errorSamples());
        cell.metered().add(result);
        cell.meteredCpuMicros().add((metered.cpuNanos() - cpuBefore) / 1e3 / Math.max(1, result.transactions()));
    }

    /** The --metrics section: the same router with monitoring off and on, measured side by side in every round. */
    private static String meteredReport(List<Cell> cells, long scrapes) {
        var s = new StringBuilder("\n### Metrics on vs off (`--metrics`)\n\n");
        s.append(String.format(Locale.ROOT, "Two router processes over the same partition, one without monitoring (RouterMetrics.NONE) and one with "
                + "`http:` (the Prometheus registry, pool gauges, hot keys; its /metrics scraped every second: %,d scrapes) "
                + "and `slow_log:` (threshold 1 s), run one right after the other in every round (the order alternating). The ratio is the median "
                + "over rounds of each round's on / off.%n%n", scrapes));
        s.append("| workload | clients | off /s | on /s | on / off | router CPU µs/stmt off | on | on / off |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            var ratios = new ArrayList<Double>();
            var cpuRatios = new ArrayList<Double>();
            for (int i = 0; i < c.metered().size(); i++) {
                ratios.add(c.metered().get(i).perSecond() / c.router().get(i).perSecond());
                cpuRatios.add(c.meteredCpuMicros().get(i) / c.cpuMicros().get(i));
            }
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.3f | %.1f | %.1f | %.3f |%n", c.workload(), c.clients(),
                    median(c.router().stream().map(ClosedLoop.Result::perSecond).toList()), median(c.metered().stream().map(ClosedLoop.Result::perSecond).toList()),
                    median(ratios), median(c.cpuMicros()), median(c.meteredCpuMicros()), median(cpuRatios)));
        }
        return s.toString();
    }

    /** Scrapes a router's /metrics every second, as Prometheus would (more often than its default 15 s), until closed. */
    static final class Scraper implements AutoCloseable {
        private final java.util.concurrent.atomic.AtomicLong scrapes = new java.util.concurrent.atomic.AtomicLong();
        private final Thread thread;
        private volatile boolean stop;

        Scraper(String url) {
            var client = java.net.http.HttpClient.newHttpClient();
            var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build();
            thread = Thread.ofPlatform().daemon().name("metrics-scraper").start(() -> {
                while (!stop) {
                    try {
                        if (client.send(request, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode() == 200) scrapes.incrementAndGet();
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    } catch (java.io.IOException e) {
                        // the router is stopping
                    }
                }
            });
        }

        long scrapes() {
            return scrapes.get();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.interrupt();
            thread.join(5_000);
        }
    }

    /** Router minus direct latency at quantile q, per round. */
    private static List<Double> pairs(Cell c, double q) {
        var out = new ArrayList<Double>();
        for (int i = 0; i < c.router().size(); i++) {
            out.add(1000 * (c.router().get(i).latencies().percentileMillis(q) - c.direct().get(i).latencies().percentileMillis(q)));
        }
        return out;
    }

    private static double roundTrips(java.util.Map<String, Long> delta) {
        long total = 0;
        for (String k : ROUND_TRIPS) total += delta.get(k);
        return total / (double) Math.max(1, delta.get("statements"));
    }

    private static double last(List<Double> values) {
        return values.get(values.size() - 1);
    }

    private static double median(List<Double> values) {
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2);
    }
}
