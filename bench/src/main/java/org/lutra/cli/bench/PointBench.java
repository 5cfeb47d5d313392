package org.lutra.cli.bench;

import org.lutra.cli.Command;
import org.lutra.cli.sql.Args;
import org.lutra.shards.Shards;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

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
 * no client did. Routers run beside the first ({@code --metrics}, {@code --baseline-jar}) are
 * measured in the same rounds, right before it in odd rounds and right after it in even ones.
 * The report is {@link PointReport}'s.
 */
public final class PointBench implements Command {
    private static final String USAGE = """
            usage: ./lutra bench point [--rows 100000] [--seconds 3] [--rounds 3] [--clients 1,16] [--workloads 'point select,single-row update'] [--warmup 4] [--warmup-max 240] [--metrics] [--baseline-jar JAR [--baseline-mysql | --idle-listener]] [--connector-options OPTIONS] [--jfr FILE] [--verbose] [--out FILE]

              Starts one embedded MariaDB shard and a router process whose only partition is that shard;
              loads --rows rows into `users` (routed) and into a second database (direct). Runs prepared
              point selects and auto-commit single-row updates for --seconds per client count and path,
              --rounds times, interleaved, after passes of --warmup seconds per cell until the router's and the clients' JIT compilers are idle (under 2 % of the CPU; at most --warmup-max seconds, 240 by default). --jfr records the router process with Java Flight Recorder;
              --verbose prints the router's CPU ticks per thread for each run. Env LUTRA_BENCH_ROUTER_OPTS adds
              JVM options to the router process (e.g. -agentpath:.../libasyncProfiler.so=start,event=cpu,...).
              --metrics also runs a second router process over the same partition with monitoring on (an http: listener,
              its /metrics scraped every second, and a slow_log), measured in the same rounds right beside the first
              (which runs without), and reports the two side by side: what metrics cost on the hot path.
              --baseline-jar JAR also runs two more router processes with the same config (no MySQL listener), each over its own
              copy of the rows on the same shard: this build's, and another build's (JAR is its bench/target/lutra-bench-*.jar,
              with the lib/ directory beside it), measured through the Lutra driver in the same rounds right beside the first,
              and reports after / before per round and as medians: throughput and router CPU µs per statement (all, and user
              space). With --jfr they are recorded too, to FILE.after.jfr and FILE.before.jfr. --baseline-mysql gives both the MySQL
              listener and measures them through Connector/J there instead (with the options below): the listener's path, before and after.
              --idle-listener gives this build's (after) router alone a MySQL listener that no client uses, both measured through the
              Lutra driver: with JAR this build's own jar, what an idle listener costs the Lutra driver's path.
              Connector/J (direct, both forwarders, the MySQL listener) connects with the router's own prepared-statement
              options (server-side, cached); --connector-options replaces them, e.g. 'useServerPrepStmts=false' for the
              text protocol Connector/J uses by default. The MySQL listener's path runs right beside the Lutra driver's (after it in odd
              rounds, before it in even ones); its table gives the median of the rounds' listener / Lutra driver, the JIT compilers'
              share of the router's CPU, and the clients' CPU on both.
              Prints a Markdown report.""";

    /** The config that turns monitoring on in the second router: metrics on its HTTP listener, and the slow log. */
    static final String MONITORING = """
            http: { listen: "127.0.0.1:0" }
            slow_log: { threshold_ms: 1000 }
            """;

    /** A router measured beside the first in every round: its process, the URL its clients connect to, and where its results go in a cell. */
    private record Beside(String label, RouterProcess router, String url, Function<PointCell, PointCell.Routed> results) {}

    private final PrintStream out;
    private final PrintStream err;
    /** Router warm-up per cell and pass; passes repeat until the JIT is done ({@link #warmUp}). */
    private double warmUpSeconds = 4;
    /** Warm-up passes stop after this long even if the JIT still compiles (--warmup-max). */
    private double maxWarmUpSeconds = 240;
    private boolean verbose;
    /** Whether a second router with monitoring on runs beside the first (--metrics). */
    private boolean metrics;
    /** Another build's bench jar whose router runs beside this build's (--baseline-jar), or null. */
    private Path baselineJar;
    /** Whether the routers of --baseline-jar are measured through Connector/J at their MySQL listeners (--baseline-mysql). */
    private boolean baselineMysql;
    /** Whether this build's router beside the first serves an unused MySQL listener, measured through the Lutra driver (--idle-listener). */
    private boolean idleListener;
    private List<String> workloads = List.of("point select", "single-row update");
    /**
     * Connector/J's options on every path that uses it (direct, both forwarders, the MySQL listener): server-side prepared
     * statements kept per connection, as the router's own backend connections prepare them. Without them Connector/J
     * prepares on the client and sends each execution as text with its values spliced in (COM_QUERY).
     */
    static final String CONNECTOR_J_OPTIONS = "useServerPrepStmts=true&cachePrepStmts=true&prepStmtCacheSize=512&prepStmtCacheSqlLimit=8192";
    /** The options the Connector/J paths connect with (--connector-options). */
    private String connectorOptions = CONNECTOR_J_OPTIONS;

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

    static Args parse(List<String> args) throws Args.UsageException {
        Args a = Args.parse(args, Set.of("--rows", "--seconds", "--rounds", "--clients", "--workloads", "--warmup", "--warmup-max", "--jfr", "--out",
                "--baseline-jar", "--connector-options"), Set.of("--verbose", "--metrics", "--baseline-mysql", "--idle-listener"));
        if (a.has("--baseline-mysql") && !a.has("--baseline-jar")) throw new Args.UsageException("--baseline-mysql goes with --baseline-jar");
        if (a.has("--idle-listener") && !a.has("--baseline-jar")) throw new Args.UsageException("--idle-listener goes with --baseline-jar");
        if (a.has("--idle-listener") && a.has("--baseline-mysql")) throw new Args.UsageException("--idle-listener and --baseline-mysql exclude each other");
        if (a.has("--baseline-jar")) baselineJar(a.get("--baseline-jar", null));
        return a;
    }

    /** The --baseline-jar's jar, refused unless it is a jar with the lib/ directory of its build beside it. */
    static Path baselineJar(String value) throws Args.UsageException {
        Path jar = Path.of(value).toAbsolutePath();
        if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
            throw new Args.UsageException("--baseline-jar " + value + ": no such jar (an older build's bench/target/lutra-bench-*.jar)");
        }
        if (!Files.isDirectory(jar.resolveSibling("lib"))) {
            throw new Args.UsageException("--baseline-jar " + value + ": no lib/ directory beside it (its build's dependencies, from ./mvnw package)");
        }
        return jar;
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
        if (a.has("--connector-options")) connectorOptions = a.get("--connector-options", CONNECTOR_J_OPTIONS);
        baselineJar = a.has("--baseline-jar") ? baselineJar(a.get("--baseline-jar", null)) : null;
        baselineMysql = a.has("--baseline-mysql");
        idleListener = a.has("--idle-listener");
        return measure(shards, a.getInt("--rows", 100_000), Double.parseDouble(a.get("--seconds", "3")), a.getInt("--rounds", 3), clients,
                a.has("--jfr") ? Path.of(a.get("--jfr", null)) : null);
    }

    String measure(Shards shards, int rows, double seconds, int rounds, List<Integer> clientCounts, Path jfr) throws Exception {
        String routed = shards.createDatabase("lutra_bench_point");
        String reference = shards.createDatabase("lutra_bench_point_ref");
        // the baseline build's router gets rows of its own: its catalog in the partition's database need not be this build's
        String before = baselineJar == null ? null : shards.createDatabase("lutra_bench_point_before");
        String after = baselineJar == null ? null : shards.createDatabase("lutra_bench_point_after");
        var dirs = new ArrayList<Path>();
        for (int i = 0; i < 4; i++) dirs.add(Files.createTempDirectory("lutra-bench-point"));
        var shardAddress = java.util.regex.Pattern.compile("//([^:/]+):(\\d+)/").matcher(shards.url(0));
        if (!shardAddress.find()) throw new IllegalStateException("no host:port in " + shards.url(0));
        String schema = PointClients.SCHEMA;
        try (var router = RouterProcess.start(dirs.get(0), shards, routed, schema, jfr);
             var metered = metrics ? RouterProcess.start(dirs.get(1), shards, routed, schema, null, "bench-point-on", MONITORING) : null;
             var scraper = metrics ? new MetricsScraper(metered.http() + "metrics") : null;
             // with --baseline-jar, this build's router and the baseline's alike: the first router also serves the MySQL listener
             var current = after == null ? null
                     : RouterProcess.startBuild(System.getProperty("java.class.path"), dirs.get(2), shards, after, schema,
                     jfr == null ? null : sibling(jfr, "after"), "bench-point-new", baselineMysql || idleListener);
             var baseline = before == null ? null : RouterProcess.startBuild(RouterProcess.buildClassPath(baselineJar), dirs.get(3), shards, before,
                     schema, jfr == null ? null : sibling(jfr, "before"), "bench-point-old", baselineMysql);
             var threads = new TcpForwarder(shardAddress.group(1), Integer.parseInt(shardAddress.group(2)));
             var loop = new SelectorForwarder(shardAddress.group(1), Integer.parseInt(shardAddress.group(2)))) {
            String routerUrl = router.url();
            String directUrl = shards.url(0, reference) + (connectorOptions.isEmpty() ? "" : "?" + connectorOptions);
            String threadsUrl = directUrl.replace(":" + shardAddress.group(2) + "/", ":" + threads.port() + "/");
            String loopUrl = directUrl.replace(":" + shardAddress.group(2) + "/", ":" + loop.port() + "/");
            try (Connection c = DriverManager.getConnection(directUrl, shards.user(), shards.password()); var st = c.createStatement()) {
                st.execute("CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL, karma INT NOT NULL)");
            }
            PointClients.load(DriverManager.getConnection(routerUrl, "bench", "bench"), rows);
            PointClients.load(DriverManager.getConnection(directUrl, shards.user(), shards.password()), rows);
            for (var other : java.util.Arrays.asList(current, baseline)) {
                if (other != null) PointClients.load(DriverManager.getConnection(other.url(), "bench", "bench"), rows);
            }
            var cells = new ArrayList<PointCell>();
            for (String workload : workloads) {
                for (int n : clientCounts) cells.add(new PointCell(workload, n));
            }
            var beside = new ArrayList<Beside>();
            if (metered != null) beside.add(new Beside("metrics on", metered, metered.url(), PointCell::metered));
            if (baseline != null) {
                beside.add(new Beside("this build", current, baselineMysql ? mysqlUrl(current, directUrl) : current.url(), PointCell::current));
                beside.add(new Beside("baseline build", baseline, baselineMysql ? mysqlUrl(baseline, directUrl) : baseline.url(), PointCell::baseline));
            }
            warmUp(router, cells, List.of(routerUrl, mysqlUrl(router, directUrl)), List.of(directUrl, threadsUrl, loopUrl), shards, rows);
            if (metered != null) warmUp(metered, cells, List.of(metered.url(), mysqlUrl(metered, directUrl)), List.of(directUrl), shards, rows);
            if (baseline != null) {
                for (var b : beside.subList(beside.size() - 2, beside.size())) warmUp(b.router(), cells, List.of(b.url()), List.of(directUrl), shards, rows);
            }
            var idle = ShardCounters.idleRates(shards, seconds);
            err.println("Per round and cell: statements/s through the router (Lutra driver), direct, the threads forwarder, the event-loop "
                    + "forwarder and the router's MySQL listener (Connector/J, run right after the Lutra driver in odd rounds, right before it in "
                    + "even ones); CPU µs per statement of the router, the two forwarders and the router serving the MySQL listener" + (beside.isEmpty() ? "" : "; then /s and CPU µs of the routers run beside it"));
            for (int round = 1; round <= rounds; round++) {
                var line = new StringBuilder("Round " + round + ":");
                for (var cell : cells) {
                    if (round % 2 == 1) measureBeside(beside, cell, seconds, round, rows);
                    String mysqlUrl = mysqlUrl(router, directUrl);
                    ClosedLoop.Opener mysqlClient = () -> PointClients.open(mysqlUrl, "bench", "bench", cell.workload(), rows);
                    // the listener's path right beside the Lutra driver's, before it in even rounds: their ratio is side by side
                    ClosedLoop.Result viaMysql = round % 2 == 0 ? measureMysql(cell, router, seconds, round, mysqlClient) : null;
                    var counters = ShardCounters.read(shards);
                    var ticksBefore = verbose ? router.threadTicks() : null;
                    long clientBefore = ownCpuNanos();
                    long wallBefore = System.nanoTime();
                    var viaRouter = cell.router().run(router, cell.clients(), seconds, round,
                            () -> PointClients.open(routerUrl, "bench", "bench", cell.workload(), rows));
                    long lutraClient = ownCpuNanos() - clientBefore;
                    if (verbose) printTicks(cell, ticksBefore, router.threadTicks(), viaRouter.transactions());
                    cell.counters().add(delta(counters, ShardCounters.read(shards), idle, (System.nanoTime() - wallBefore) / 1e9, viaRouter.transactions()));
                    if (viaMysql == null) viaMysql = measureMysql(cell, router, seconds, round, mysqlClient);
                    if (round % 2 == 0) measureBeside(beside, cell, seconds, round, rows);
                    long directBefore = ownCpuNanos();
                    var direct = ClosedLoop.run(cell.clients(), seconds, round,
                            () -> PointClients.open(directUrl, shards.user(), shards.password(), cell.workload(), rows));
                    long directClient = ownCpuNanos() - directBefore;
                    var viaThreads = cell.threads().run(threads, cell, seconds, round,
                            () -> PointClients.open(threadsUrl, shards.user(), shards.password(), cell.workload(), rows));
                    var viaLoop = cell.loop().run(loop, cell, seconds, round,
                            () -> PointClients.open(loopUrl, shards.user(), shards.password(), cell.workload(), rows));
                    for (var r : List.of(viaRouter, direct, viaThreads, viaLoop, viaMysql)) {
                        if (r.errors() > 0) err.println("  errors in " + cell.workload() + ": " + r.errorSamples());
                    }
                    cell.direct().add(direct);
                    cell.lutraClientMicros().add(lutraClient / 1e3 / Math.max(1, viaRouter.transactions()));
                    cell.directClientMicros().add(directClient / 1e3 / Math.max(1, direct.transactions()));
                    line.append(String.format(Locale.ROOT, "  %s×%d %.0f/%.0f/%.0f/%.0f/%.0f /s, CPU %.1f/%.1f/%.1f/%.1f µs", cell.workload(), cell.clients(),
                            viaRouter.perSecond(), direct.perSecond(), viaThreads.perSecond(), viaLoop.perSecond(), viaMysql.perSecond(),
                            cell.router().cpuMicros().getLast(), cell.threads().cpuMicros().getLast(), cell.loop().cpuMicros().getLast(),
                            cell.mysql().cpuMicros().getLast()));
                    for (var b : beside) {
                        var results = b.results().apply(cell);
                        line.append(String.format(Locale.ROOT, "; %s %.0f /s, CPU %.1f µs", b.label(), results.results().getLast().perSecond(),
                                results.cpuMicros().getLast()));
                    }
                }
                err.println(line);
            }
            String report = PointReport.report(cells, rows, seconds, rounds, PointClients.serverVersion(directUrl, shards), jfr, connectorOptions);
            if (metered != null) report += PointReport.metered(cells, scraper.scrapes());
            if (baseline != null) report += PointReport.baseline(cells, baselineJar, baselineMysql ? connectorOptions : null, idleListener);
            return report;
        } finally {
            for (String database : java.util.Arrays.asList(routed, reference, before, after)) {
                if (database != null) shards.dropDatabase(database);
            }
            for (Path dir : dirs) {
                try (var files = Files.list(dir)) {
                    for (Path f : files.toList()) Files.deleteIfExists(f);
                }
                Files.deleteIfExists(dir);
            }
        }
    }

    /** One run of {@code cell} through the router's MySQL listener: the router's CPU, and Connector/J's (this JVM's) per statement. */
    private static ClosedLoop.Result measureMysql(PointCell cell, RouterProcess router, double seconds, int round, ClosedLoop.Opener client)
            throws Exception {
        long clientBefore = ownCpuNanos();
        var result = cell.mysql().run(router, cell.clients(), seconds, round, client);
        cell.mysqlClientMicros().add((ownCpuNanos() - clientBefore) / 1e3 / Math.max(1, result.transactions()));
        return result;
    }

    /** Where the flight recording of the router called {@code which} goes: beside {@code jfr}, FILE.which.jfr. */
    static Path sibling(Path jfr, String which) {
        String name = jfr.getFileName().toString();
        return jfr.resolveSibling((name.endsWith(".jfr") ? name.substring(0, name.length() - 4) : name) + "." + which + ".jfr");
    }

    /** One run of {@code cell} through each router run beside the first, one after the other, in reverse order in even rounds. */
    private void measureBeside(List<Beside> beside, PointCell cell, double seconds, int round, int rows) throws Exception {
        for (var b : round % 2 == 1 ? beside : beside.reversed()) {
            var result = b.results().apply(cell).run(b.router(), cell.clients(), seconds, round,
                    () -> PointClients.open(b.url(), "bench", "bench", cell.workload(), rows));
            if (result.errors() > 0) err.println("  errors in " + cell.workload() + " (" + b.label() + "): " + result.errorSamples());
        }
    }

    /**
     * The shard's counters over one router run, less the routers' own background statements (their catalog leases) at
     * the rate they ran while no client did, with the run's {@code statements}.
     */
    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after, Map<String, Double> idle, double wallSeconds,
                                           long statements) {
        after.merge("Questions", -1L, Long::sum); // the SHOW STATUS that read "before" counts itself
        idle.forEach((k, perSecond) -> after.merge(k, -Math.round(perSecond * wallSeconds), Long::sum));
        var delta = new LinkedHashMap<String, Long>();
        for (String k : ShardCounters.COUNTERS) delta.put(k, after.get(k) - before.get(k));
        delta.put("statements", statements);
        return delta;
    }

    /**
     * Runs every cell until the router's JIT has compiled the hot path: passes of --warmup seconds per cell through each of
     * {@code routerUrls} (as user bench) and of 1 s through each of {@code shardUrls} (the shard's user, to warm the clients),
     * until the router's compiler threads used under 2 % of its CPU in a pass (and the clients' JVM compiled for under 2 % of
     * the pass), at most {@link #maxWarmUpSeconds}. On two cores shared with 16 busy clients and the shard, C2 gets little CPU
     * and compiles the hot path for a minute or more; measured before it is done, the router runs partly in C1's profiling
     * code and costs up to twice the CPU per statement of its steady state.
     */
    private void warmUp(RouterProcess router, List<PointCell> cells, List<String> routerUrls, List<String> shardUrls, Shards shards, int rows)
            throws Exception {
        var clientJit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        for (int pass = 1; ; pass++) {
            long compilerBefore = router.compilerTicks();
            long cpuBefore = router.cpuNanos();
            long clientJitBefore = clientJit.getTotalCompilationTime();
            long passStart = System.nanoTime();
            for (var cell : cells) {
                for (String url : routerUrls) {
                    ClosedLoop.run(cell.clients(), warmUpSeconds, 7, () -> PointClients.open(url, "bench", "bench", cell.workload(), rows));
                }
                for (String url : shardUrls) {
                    ClosedLoop.run(cell.clients(), 1, 7, () -> PointClients.open(url, shards.user(), shards.password(), cell.workload(), rows));
                }
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

    /** Connector/J at the router's MySQL listener, with the direct path's options. */
    private static String mysqlUrl(RouterProcess router, String directUrl) {
        return router.mysqlUrl(directUrl.contains("?") ? directUrl.substring(directUrl.indexOf('?')) : "");
    }

    /** Where the router's CPU went during one run, thread by thread (ticks of 10 ms, user/system). */
    private void printTicks(PointCell cell, Map<String, long[]> before, Map<String, long[]> after, long statements) {
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
}
