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
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./lutra bench txn}: read-write transactions on 1, 2 and 4 partitions through the router,
 * the same transaction straight on one shard, and what the XA decision log costs, in one run.
 *
 * <p>Four shards, a router in this JVM and an {@code accounts} table placed by range, so each
 * transaction's participants are chosen exactly. Every round runs each workload once, in the
 * same order, so that the noise of a shared machine hits all of them alike; the report gives
 * per workload the median over rounds, and ratios as medians of the per-round ratios.
 */
public final class TxnBench implements Command {

    private static final String USAGE = """
            usage: ./lutra bench txn [--clients 4] [--seconds 5] [--rounds 3] [--warmup 1] [--accounts 10000]
                                     [--workloads direct,1p,2p,4p,direct-ac,router-ac] [--out FILE]

              Starts 4 embedded MariaDB shards (or uses LUTRA_BACKENDS) and a router, loads --accounts
              accounts per partition, then runs each workload for --seconds, --rounds times, interleaved:
                direct     4 UPDATEs + COMMIT on one shard through Connector/J, no router (the baseline)
                1p 2p 4p   the same transaction through the router, its accounts on 1, 2 or 4 partitions
                direct-ac  one auto-commit UPDATE on a shard;  router-ac  the same through the router
              --clients threads each use their own connection(s); passes of --warmup seconds per workload
              before round 1, until the JIT is idle (under 2 % of a pass, at most 180 s), are not measured. Prints a Markdown report on stdout (progress on stderr) and
              writes it to --out too.""";

    static final List<TxnWorkload> DEFAULT_WORKLOADS = List.of(TxnWorkload.values());

    /** The command's options, after parsing. */
    record Options(int clients, double seconds, int rounds, double warmup, int accounts, List<TxnWorkload> workloads, Path out) {
        Options {
            if (clients < 1) throw new IllegalArgumentException("--clients must be at least 1");
            if (seconds <= 0 || rounds < 1 || warmup < 0) throw new IllegalArgumentException("--seconds > 0, --rounds >= 1, --warmup >= 0");
            if (workloads.isEmpty()) throw new IllegalArgumentException("--workloads is empty");
            workloads = List.copyOf(workloads);
        }
    }

    /** A warm-up pass takes at most this long before the JIT is taken as done anyway. */
    private static final double MAX_WARM_UP_SECONDS = 180;

    /**
     * Passes of --warmup seconds per workload until this JVM's JIT compiled for under 2 % of a
     * pass (the router runs in this JVM): measured earlier, the router and the driver run partly in
     * C1's profiling code, which on two busy cores C2 takes tens of seconds to replace.
     */
    private void warmUp(Options options, TxnWorkload.Target target) throws Exception {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        for (int pass = 1; ; pass++) {
            long jitBefore = jit.getTotalCompilationTime();
            long passStart = System.nanoTime();
            for (TxnWorkload w : options.workloads()) ClosedLoop.run(options.clients(), options.warmup(), -1 - w.ordinal(), () -> w.open(target));
            double share = (jit.getTotalCompilationTime() - jitBefore) * 1e6 / Math.max(1, System.nanoTime() - passStart);
            double elapsed = (System.nanoTime() - start) / 1e9;
            err.printf(Locale.ROOT, "Warm-up pass %d (%.0f s): JIT compiling took %.1f %% of the pass%n", pass, elapsed, 100 * share);
            if (share < 0.02 || elapsed >= MAX_WARM_UP_SECONDS) return;
        }
    }

    /** One workload's run in one round: what the clients saw and what the router counted meanwhile. */
    record Run(TxnWorkload workload, int round, ClosedLoop.Result result, TxnCounters router) {}

    /** Everything the report needs. */
    record Outcome(Options options, String serverVersion, Load load, Map<TxnWorkload, List<Run>> runs,
                   long accountsFound, long balanceSum) {
        record Load(long rows, double seconds) {}
    }

    private final PrintStream out;
    private final PrintStream err;

    public TxnBench() {
        this(System.out, System.err);
    }

    public TxnBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "txn";
    }

    @Override
    public String summary() {
        return "read-write transactions on 1 vs 2 vs 4 partitions vs one shard directly, and the XA decision log's cost";
    }

    @Override
    public int run(List<String> args) throws Exception {
        if (args.contains("--help") || args.contains("-h")) {
            out.println(USAGE);
            return 0;
        }
        Options options;
        try {
            options = parse(args);
        } catch (Args.UsageException | IllegalArgumentException e) {
            err.println("lutra bench txn: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        err.printf("Starting %d shards...%n", Accounts.PARTITIONS);
        long t0 = System.nanoTime();
        Outcome outcome;
        try (Shards shards = Shards.start(Accounts.PARTITIONS)) {
            err.printf("  up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            outcome = measure(options, shards);
        }
        String report = TxnReport.markdown(outcome);
        out.print(report);
        if (options.out() != null) {
            Files.writeString(options.out(), report);
            err.println("Report written to " + options.out());
        }
        return TxnReport.problems(outcome).isEmpty() ? 0 : 1;
    }

    static Options parse(List<String> args) throws Args.UsageException {
        var a = Args.parse(args, Set.of("--clients", "--seconds", "--rounds", "--warmup", "--accounts", "--workloads", "--out"), Set.of());
        if (!a.positional.isEmpty()) throw new Args.UsageException("unexpected argument '" + a.positional.getFirst() + "'");
        var workloads = a.has("--workloads")
                ? Arrays.stream(a.get("--workloads", "").split(",")).map(String::trim).filter(s -> !s.isEmpty())
                        .map(TxnWorkload::byKey).distinct().toList()
                : DEFAULT_WORKLOADS;
        return new Options(a.getInt("--clients", 4), number(a, "--seconds", 5), a.getInt("--rounds", 3), number(a, "--warmup", 1),
                a.getInt("--accounts", 10_000), workloads, a.has("--out") ? Path.of(a.get("--out", null)) : null);
    }

    private static double number(Args a, String name, double fallback) throws Args.UsageException {
        try {
            return Double.parseDouble(a.get(name, Double.toString(fallback)));
        } catch (NumberFormatException e) {
            throw new Args.UsageException(name + " must be a number, got '" + a.get(name, "") + "'");
        }
    }

    /** Sets up the accounts on {@code shards} (a fresh database, dropped afterwards), runs the rounds. */
    Outcome measure(Options options, Shards shards) throws Exception {
        var accounts = new Accounts(Accounts.PARTITIONS, options.accounts());
        String database = shards.createDatabase("lutra_bench_txn");
        Path dir = Files.createTempDirectory("lutra-bench-txn");
        try {
            Path schema = Files.writeString(dir.resolve("accounts.sql"), Accounts.SCHEMA);
            var config = config(shards, database, schema, options.clients());
            try (var router = RouterServer.start(config)) {
                var shardUrls = new ArrayList<String>();
                for (int p = 0; p < accounts.partitions(); p++) shardUrls.add(shards.url(p, database));
                var target = new TxnWorkload.Target("jdbc:lutra://127.0.0.1:" + router.port() + "/" + config.database()
                        + "?socketTimeout=" + TxnWorkload.STATEMENT_TIMEOUT_MILLIS,
                        "bench", "bench", shardUrls, shards.user(), shards.password(), accounts);
                long loadStart = System.nanoTime();
                long rows = load(target);
                var load = new Outcome.Load(rows, (System.nanoTime() - loadStart) / 1e9);
                err.printf("Loaded %,d accounts through the router in %.1f s%n", rows, load.seconds());

                if (options.warmup() > 0) warmUp(options, target);
                var runs = new LinkedHashMap<TxnWorkload, List<Run>>();
                for (int round = 1; round <= options.rounds(); round++) {
                    var line = new StringBuilder("Round " + round + "/" + options.rounds() + ":");
                    for (TxnWorkload w : options.workloads()) {
                        var before = TxnCounters.of(router.transactions().stats());
                        var result = ClosedLoop.run(options.clients(), options.seconds(), round * 100L + w.ordinal(), () -> w.open(target));
                        var delta = TxnCounters.of(router.transactions().stats()).minus(before);
                        runs.computeIfAbsent(w, k -> new ArrayList<>()).add(new Run(w, round, result, delta));
                        line.append(String.format("  %s %,.0f/s", w.key, result.perSecond()));
                        if (result.errors() > 0) line.append(" (").append(result.errors()).append(" errors)");
                    }
                    err.println(line);
                }
                long[] balance = balances(target);
                return new Outcome(options, serverVersion(target), load, runs, balance[0], balance[1]);
            }
        } finally {
            shards.dropDatabase(database);
            Files.deleteIfExists(dir.resolve("accounts.sql"));
            Files.deleteIfExists(dir);
        }
    }

    private static RouterConfig config(Shards shards, String database, Path schema, int clients) {
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < Accounts.PARTITIONS; i++) {
            // a transaction pins one connection per partition it touches, held until it ends
            backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), Math.max(16, clients + 4)));
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, database));
        }
        var config = new RouterConfig("127.0.0.1:0", "bench", schema, List.of(new RouterConfig.User("bench", "bench", null)),
                backends, partitions, List.of(), 0, 0, new RouterConfig.Transactions("bench-txn", 0, 0, 0));
        config.validate();
        return config;
    }

    /** Multi-row INSERTs through the driver, each within one partition, balances 0. */
    private static long load(TxnWorkload.Target target) throws SQLException {
        final int batch = 500;
        var accounts = target.accounts();
        long rows = 0;
        try (Connection c = DriverManager.getConnection(target.routerUrl(), target.routerUser(), target.routerPassword())) {
            for (int p = 0; p < accounts.partitions(); p++) {
                for (int from = 0; from < accounts.perPartition(); from += batch) {
                    int n = Math.min(batch, accounts.perPartition() - from);
                    String sql = "INSERT INTO accounts (id, balance) VALUES " + String.join(", ", java.util.Collections.nCopies(n, "(?, 0)"));
                    try (var ps = c.prepareStatement(sql)) {
                        for (int i = 0; i < n; i++) ps.setInt(i + 1, accounts.id(p, from + i));
                        rows += ps.executeUpdate();
                    }
                }
            }
        }
        return rows;
    }

    /** {count, sum of balances} over every shard, read directly: every transfer sums to zero. */
    private static long[] balances(TxnWorkload.Target target) throws SQLException {
        long count = 0;
        long sum = 0;
        for (String url : target.shardUrls()) {
            try (Connection c = DriverManager.getConnection(url, target.shardUser(), target.shardPassword());
                 var rs = c.createStatement().executeQuery("SELECT COUNT(*), COALESCE(SUM(balance), 0) FROM accounts")) {
                rs.next();
                count += rs.getLong(1);
                sum += rs.getLong(2);
            }
        }
        return new long[] {count, sum};
    }

    private static String serverVersion(TxnWorkload.Target target) throws SQLException {
        try (Connection c = DriverManager.getConnection(target.shardUrls().getFirst(), target.shardUser(), target.shardPassword());
             var rs = c.createStatement().executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
