package org.lutra.cli.bench;

import org.lutra.shards.Shards;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A router in a JVM of its own ({@code org.lutra.cli.Main router}), so a benchmark can read the
 * router's own CPU time. Started with the class path of this process, or of another build
 * ({@link #startBuild}).
 */
public final class RouterProcess implements AutoCloseable {
    private final Process process;
    private final int port;
    private final String database;
    /** The router's HTTP listener ({@code http://host:port/}), or null without one. */
    private final String http;
    /** The router's MySQL-protocol listener (-1: none). */
    private final int mysqlPort;

    private RouterProcess(Process process, int port, String database, String http, int mysqlPort) {
        this.process = process;
        this.port = port;
        this.database = database;
        this.http = http;
        this.mysqlPort = mysqlPort;
    }

    static RouterProcess start(Path dir, Shards shards, String database, String schema, Path jfr) throws IOException, InterruptedException {
        return start(dir, shards, database, schema, jfr, "bench-point", "");
    }

    /**
     * As above, for a router named {@code name} (routers over the same partitions need names of their own) with
     * {@code extraConfig} appended to its YAML config (say, an {@code http:} section).
     */
    static RouterProcess start(Path dir, Shards shards, String database, String schema, Path jfr, String name, String extraConfig)
            throws IOException, InterruptedException {
        int port, mysqlPort;
        try (var probe = new ServerSocket(0); var mysqlProbe = new ServerSocket(0)) { // both open at once: two different ports
            port = probe.getLocalPort();
            mysqlPort = mysqlProbe.getLocalPort();
        }
        Path config = writeConfig(dir, port, shards, database, schema, name, "mysql: { listen: 127.0.0.1:%d }\n".formatted(mysqlPort) + extraConfig);
        return start(config, port, "bench", jfr, mysqlPort, extraConfig.contains("http:"), System.getProperty("java.class.path"));
    }

    /**
     * A router named {@code name} run from {@code classPath} (this build's, or another's: {@link #buildClassPath}) with the
     * config above less the sections an older build refuses as unknown keys (the MySQL listener): what two builds both accept.
     */
    static RouterProcess startBuild(String classPath, Path dir, Shards shards, String database, String schema, Path jfr, String name)
            throws IOException, InterruptedException {
        return startBuild(classPath, dir, shards, database, schema, jfr, name, false);
    }

    /** As above; with {@code mysql}, the router serves the MySQL listener too (builds from issue 30 on have it). */
    static RouterProcess startBuild(String classPath, Path dir, Shards shards, String database, String schema, Path jfr, String name,
                                    boolean mysql) throws IOException, InterruptedException {
        int port, mysqlPort;
        try (var probe = new ServerSocket(0); var mysqlProbe = new ServerSocket(0)) { // both open at once: two different ports
            port = probe.getLocalPort();
            mysqlPort = mysql ? mysqlProbe.getLocalPort() : -1;
        }
        Path config = writeConfig(dir, port, shards, database, schema, name, mysql ? "mysql: { listen: 127.0.0.1:%d }\n".formatted(mysqlPort) : "");
        return start(config, port, "bench", jfr, mysqlPort, false, classPath);
    }

    /**
     * The class path of another build: {@code jar} is its {@code bench/target/lutra-bench-*.jar}, with the {@code lib/} directory
     * beside it (where its package phase copies its dependencies, its own modules included).
     */
    static String buildClassPath(Path jar) {
        return jar.toAbsolutePath() + java.io.File.pathSeparator + jar.toAbsolutePath().resolveSibling("lib") + "/*";
    }

    /** Writes {@code schema.sql} and {@code router.yaml} (listening on {@code port}, partition p0 on shard 0's {@code database}) into {@code dir}. */
    private static Path writeConfig(Path dir, int port, Shards shards, String database, String schema, String name, String extraConfig) throws IOException {
        Files.writeString(dir.resolve("schema.sql"), schema);
        Files.writeString(dir.resolve("router.yaml"), """
                listen: 127.0.0.1:%d
                database: bench
                schema: schema.sql
                users:
                  - { name: bench, password: bench }
                backends:
                  - { name: shard0, url: "%s", user: %s, password: "%s", pool_size: 32 }
                partitions:
                  - { name: p0, backend: shard0, database: %s }
                lookups: []
                transactions:
                  router_name: %s
                """.formatted(port, shards.url(0), shards.user(), shards.password(), database, name) + extraConfig);
        return dir.resolve("router.yaml");
    }

    /** A free TCP port on this machine for a router's listener (free when asked). */
    public static int freePort() throws IOException {
        try (var probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    /**
     * Starts {@code org.lutra.cli.Main router --config config} and returns once it listens on
     * {@code port} (the config's {@code listen}); {@code database} is its logical database.
     */
    public static RouterProcess start(Path config, int port, String database, Path jfr) throws IOException, InterruptedException {
        return start(config, port, database, jfr, -1, false, System.getProperty("java.class.path"));
    }

    /**
     * As above; {@code mysqlPort} its MySQL listener's (-1: none), {@code http} whether to wait for its HTTP listener too,
     * {@code classPath} the build to run.
     */
    private static RouterProcess start(Path config, int port, String database, Path jfr, int mysqlPort, boolean http, String classPath)
            throws IOException, InterruptedException {
        Process p = java("org.lutra.cli.Main", List.of("router", "--config", config.toString()), jfr, classPath).redirectErrorStream(true).start();
        var listening = new CompletableFuture<Void>();
        var httpUrl = new java.util.concurrent.atomic.AtomicReference<String>();
        var output = new StringBuilder();
        Thread.ofPlatform().daemon().name("router-output").start(() -> {
            try (var in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (!listening.isDone()) output.append(line).append('\n');
                    if (line.startsWith("console, /metrics and /health: ")) httpUrl.set(line.substring(line.indexOf(": ") + 2).strip());
                    if (line.contains(" listening: ") && !http) listening.complete(null);
                    if (httpUrl.get() != null) listening.complete(null);
                }
            } catch (IOException e) {
                // the process ended
            }
            listening.completeExceptionally(new IOException("the router process ended:\n" + output));
        });
        try {
            listening.get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IOException("the router process did not start listening: " + e.getMessage() + "\n" + output, e);
        }
        return new RouterProcess(p, port, database, httpUrl.get(), mysqlPort);
    }

    /** The router's HTTP listener, {@code http://host:port/}; null without one. */
    String http() {
        return http;
    }

    /**
     * A JVM for a router: this process's java and class path, 2 GB of heap, the parallel collector,
     * LUTRA_BENCH_ROUTER_OPTS (e.g. an async-profiler agent) and, with {@code jfr}, a flight recording.
     */
    public static ProcessBuilder java(String mainClass, List<String> args, Path jfr) {
        return java(mainClass, args, jfr, System.getProperty("java.class.path"));
    }

    /** As above, with another class path (another build's). */
    static ProcessBuilder java(String mainClass, List<String> args, Path jfr, String classPath) {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        var command = new ArrayList<>(List.of(java, "-Xmx2g", "-XX:+UseParallelGC"));
        String extra = System.getenv("LUTRA_BENCH_ROUTER_OPTS");
        if (extra != null && !extra.isBlank()) command.addAll(List.of(extra.trim().split("\\s+")));
        if (jfr != null) command.add("-XX:StartFlightRecording=filename=" + jfr.toAbsolutePath() + ",settings=profile");
        command.addAll(List.of("-cp", classPath, mainClass));
        command.addAll(args);
        return new ProcessBuilder(command);
    }

    public String url() {
        return "jdbc:lutra://127.0.0.1:" + port + "/" + database;
    }

    public long pid() {
        return process.pid();
    }

    /** Connector/J at the router's MySQL listener, with {@code query} (a URL's options, from '?', or empty). */
    String mysqlUrl(String query) {
        return "jdbc:mysql://127.0.0.1:" + mysqlPort + "/bench" + query;
    }

    /** CPU time the router process used so far, all its threads (JIT and GC included). */
    public long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toNanos)
                .orElseThrow(() -> new IllegalStateException("the OS does not report the router process's CPU time"));
    }

    /** CPU ticks (user, system) of the whole router process so far, ended threads included, from /proc (zeros elsewhere). */
    long[] processTicks() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])}; // utime, stime: fields 14 and 15
        } catch (IOException | RuntimeException e) {
            return new long[2];
        }
    }

    /**
     * CPU ticks (user, system) per thread of the router process, from /proc (Linux only; empty
     * elsewhere): where a run's CPU time went.
     */
    java.util.Map<String, long[]> threadTicks() {
        var out = new java.util.TreeMap<String, long[]>();
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        try (var dirs = Files.list(tasks)) {
            for (Path task : dirs.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // after "pid (comm) ": state is field 3, utime 14, stime 15 (1-based) -> index 11, 12
                    out.put(name + "#" + task.getFileName(), new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])});
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return java.util.Map.of();
        }
        return out;
    }

    /**
     * CPU time in ns the router's JIT compiler threads have used so far, from each thread's schedstat (ticks of 10 ms where
     * the kernel has none). Compiler threads that ended (the JVM adds and removes them with the queue) are not counted.
     */
    long compilerNanos() {
        long nanos = 0;
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        try (var dirs = Files.list(tasks)) {
            for (Path task : dirs.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) continue;
                    nanos += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile, or no schedstat: below
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return nanos > 0 ? nanos : compilerTicks() * 10_000_000L;
    }

    /** CPU ticks (10 ms) the router's JIT compiler threads have used so far. */
    long compilerTicks() {
        long ticks = 0;
        for (var e : threadTicks().entrySet()) {
            if (e.getKey().startsWith("C1 CompilerThre") || e.getKey().startsWith("C2 CompilerThre")) ticks += e.getValue()[0] + e.getValue()[1];
        }
        return ticks;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: the router's shutdown hook closes it, and JFR writes its recording
        if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
    }
}
