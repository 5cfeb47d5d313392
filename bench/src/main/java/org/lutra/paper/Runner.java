package org.lutra.paper;

import org.lutra.cli.bench.ClosedLoop;
import org.lutra.trace.TraceLine;
import org.lutra.trace.TraceWriter;
import org.lutra.workload.Placement;
import org.lutra.workload.Workload;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one measurement on a target: a warm-up on the workload's mix, then the measured run
 * (a duration, a count, or a replayed trace), with every counter read just before and after it;
 * then the emulation is lifted and the workload's invariants are checked on the shards.
 */
final class Runner {
    /**
     * @param replay the transactions to run instead of the mix (each once, in order, over the clients), or null
     * @param record where committed transactions are written, or null
     */
    record Settings(int clients, double warmupSeconds, double seconds, long transactions, long seed, List<TraceLine> replay, TraceWriter record) {}

    /** Warm-up goes on while the router's JIT compilers use more than this share of a core... */
    static final double MAX_JIT_CORES = 0.05;
    /** ... for at most this long. */
    static final double MAX_WARMUP_SECONDS = 60;
    private final Cluster cluster;
    private final Terminal terminal;

    Runner(Cluster cluster, Terminal terminal) {
        this.cluster = cluster;
        this.terminal = terminal;
    }

    /** A reading of every counter a result is made of. */
    private record Reading(long nanos, RouterStatus router, List<ShardStatus> shards, List<ShardGate.Counters> gates, long[] shardTicks,
                           long[][] throttled, long routerTicks, long routerJitTicks, long clientNanos, long[] machine, Aborts.Counts aborts) {}

    RunResult measure(String id, Target target, Workload workload, String variant, Placement placement, Settings settings) throws Exception {
        var state = workload.newRun();
        var aborts = new Aborts();
        String label = workload.name() + " " + target.scheme() + (target instanceof RouterTarget ? " ×" + target.backends() : "")
                + (variant.isEmpty() ? "" : " " + variant);
        var direct = new ArrayList<Connection>();
        try {
            int n = target.backends();
            for (int i = 0; i < n; i++) direct.add(cluster.direct(i, null));
            cluster.enforce(true);
            ClosedLoop.Result warm = null;
            double warmed = 0;
            if (settings.warmupSeconds() > 0) {
                // passes until the router's JIT compilers are (nearly) idle: a router still compiling is not measured yet
                for (int pass = 1; ; pass++) {
                    double seconds = pass == 1 ? settings.warmupSeconds() : Math.max(2, settings.warmupSeconds() / 2);
                    double done = warmed;
                    long jit = target.routerJitTicks();
                    var plan = new ClosedLoop.Plan(settings.clients(), seconds, 0, (t, c, e) -> terminal.progress(String.format(Locale.ROOT,
                            "  %s: warming up %.0f s, %,d transactions", label, done + t, c)));
                    var result = ClosedLoop.run(plan, settings.seed() ^ (0x5eed + pass), opener(target, workload, state, null, null, aborts, settings.clients()));
                    warm = warm == null ? result : withErrorsOf(result, warm);
                    warmed += result.seconds();
                    double jitCores = (target.routerJitTicks() - jit) / ProcFs.TICKS_PER_SECOND / result.seconds();
                    if (jitCores < MAX_JIT_CORES || warmed >= MAX_WARMUP_SECONDS) break;
                }
            }
            Queue<TraceLine> replay = settings.replay() == null ? null : new ConcurrentLinkedQueue<>(settings.replay());
            var before = read(target, direct, aborts);
            var plan = new ClosedLoop.Plan(settings.clients(), settings.seconds(), replay != null ? settings.replay().size() : settings.transactions(),
                    (t, c, e) -> terminal.progress(String.format(Locale.ROOT, "  %s: %.0f s, %,d transactions (%,.0f/s)%s", label, t, c, c / t,
                            e > 0 ? ", " + e + " errors" : "")));
            var measured = ClosedLoop.run(plan, settings.seed(), opener(target, workload, state, replay, settings.record(), aborts, settings.clients()));
            var result = warm == null ? measured : withErrorsOf(measured, warm);
            var after = read(target, direct, aborts);
            cluster.enforce(false);
            var problems = new ArrayList<String>();
            for (String move : target.awaitNoMoves(60)) problems.add("the rows were checked while a move ran: " + move);
            var databases = target.databases();
            try {
                problems.addAll(workload.check(state, databases));
            } finally {
                for (Connection c : databases) c.close();
            }
            var run = result(id, target, workload, variant, placement, settings, result, before, after, problems, warmed);
            terminal.done(String.format(Locale.ROOT, "  %s: %,.0f tx/s, p50 %.1f ms, p99 %.1f ms%s%s%s", label, run.throughput(), run.p50Millis(),
                    run.p99Millis(), Double.isNaN(run.singlePartitionShare()) ? "" : String.format(Locale.ROOT, ", %.1f %% single-partition", 100 * run.singlePartitionShare()),
                    run.errors() > 0 ? ", " + run.errors() + " ERRORS" : "", problems.isEmpty() ? "" : ", INVARIANTS BROKEN"));
            return run;
        } finally {
            cluster.enforce(false);
            for (Connection c : direct) c.close();
        }
    }

    /** The measured run's result, with the warm-up's failures too: a run with errors says so, whenever they happened. */
    private static ClosedLoop.Result withErrorsOf(ClosedLoop.Result measured, ClosedLoop.Result warm) {
        var samples = new ArrayList<String>(warm.errorSamples());
        samples.addAll(measured.errorSamples());
        return new ClosedLoop.Result(measured.transactions(), measured.errors() + warm.errors(), measured.seconds(), measured.latencies(),
                samples.subList(0, Math.min(5, samples.size())));
    }

    private static ClosedLoop.Opener opener(Target target, Workload workload, org.lutra.workload.RunState state, Queue<TraceLine> replay,
                                            TraceWriter record, Aborts aborts, int clients) {
        var opened = new AtomicInteger();
        return () -> {
            int client = opened.getAndIncrement();
            return new WorkloadClient(target.connect(), workload, workload.mix(client, clients, state), state, replay, record, aborts);
        };
    }

    private Reading read(Target target, List<Connection> direct, Aborts aborts) throws SQLException {
        int n = target.backends();
        var shards = new ArrayList<ShardStatus>();
        var gates = new ArrayList<ShardGate.Counters>();
        long[] ticks = new long[n];
        long[][] throttled = new long[n][];
        for (int i = 0; i < n; i++) {
            shards.add(ShardStatus.read(direct.get(i)));
            gates.add(cluster.gateCounters(i));
            ticks[i] = cluster.cpuTicks(i);
            throttled[i] = cluster.throttled(i);
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return new Reading(System.nanoTime(), target.routerStatus(), shards, gates, ticks, throttled, target.routerCpuTicks(),
                target.routerJitTicks(), os.getProcessCpuTime(), ProcFs.machineTicks(), aborts.counts());
    }

    private RunResult result(String id, Target target, Workload workload, String variant, Placement placement, Settings settings,
                             ClosedLoop.Result r, Reading before, Reading after, List<String> problems, double warmed) {
        double seconds = (after.nanos() - before.nanos()) / 1e9;
        long txns = Math.max(1, r.transactions());
        int n = target.backends();
        String partitionsOf = "";
        Map<Integer, Long> partitions = Map.of();
        double distributed = Double.NaN;
        double twoPhase = Double.NaN;
        double broadcasts = Double.NaN;
        Map<Integer, Long> statementPartitions = Map.of();
        double everywhere = Double.NaN;
        long fallbacks = 0;
        var deadlocks = RunResult.Deadlocks.NONE;
        if (after.router() != null) {
            var d = after.router().minus(before.router());
            boolean transactional = d.txnPartitions().values().stream().mapToLong(Long::longValue).sum() > 0;
            partitionsOf = transactional ? "transactions" : "statements";
            partitions = transactional ? d.txnPartitions() : d.statementPartitions();
            long total = partitions.values().stream().mapToLong(Long::longValue).sum();
            long multi = partitions.entrySet().stream().filter(e -> e.getKey() >= 2).mapToLong(Map.Entry::getValue).sum();
            distributed = total == 0 ? Double.NaN : (double) multi / total;
            long commits = d.counter("txn_one_phase_commits") + d.counter("txn_two_phase_commits");
            twoPhase = commits == 0 ? 0 : (double) d.counter("txn_two_phase_commits") / commits;
            broadcasts = (double) d.broadcasts() / txns;
            statementPartitions = d.statementPartitions();
            everywhere = n < 2 ? 0 : (double) statementPartitions.getOrDefault(n, 0L) / txns;
            fallbacks = d.counter("lookup_fallbacks");
            deadlocks = new RunResult.Deadlocks(d.counter("deadlocks_detected"), d.counter("deadlocks_by_timeout"));
        }
        long questions = 0;
        long commands = 0;
        double units = 0;
        double shardTicks = 0;
        var loads = new ArrayList<RunResult.ShardLoad>();
        Capacity cap = cluster.gatedCapacity() ? cluster.emulation().capacity() : null;
        for (int i = 0; i < n; i++) {
            var status = after.shards().get(i).minus(before.shards().get(i));
            var gate = after.gates().get(i).minus(before.gates().get(i));
            questions += status.get("Questions");
            commands += gate.commands();
            units += gate.units();
            double cores = after.shardTicks()[i] < 0 ? Double.NaN : (after.shardTicks()[i] - before.shardTicks()[i]) / ProcFs.TICKS_PER_SECOND / seconds;
            if (!Double.isNaN(cores)) shardTicks += after.shardTicks()[i] - before.shardTicks()[i];
            double unitsPerSecond = gate.units() / seconds;
            // the share of its capacity: admitted work against the gate's rate, or CPU time against the cgroup's cap
            double use = cap != null ? unitsPerSecond / cap.unitsPerSecond()
                    : cluster.emulation().mode() == Emulation.Mode.CGROUP ? cores / cluster.emulation().cores() : Double.NaN;
            loads.add(new RunResult.ShardLoad(i, gate.commands() / seconds, unitsPerSecond, use,
                    status.get("Questions") / seconds, cores, after.throttled()[i][0] - before.throttled()[i][0]));
        }
        double routerCores = after.routerTicks() < 0 ? Double.NaN : (after.routerTicks() - before.routerTicks()) / ProcFs.TICKS_PER_SECOND / seconds;
        double routerJitCores = after.routerTicks() < 0 ? Double.NaN : (after.routerJitTicks() - before.routerJitTicks()) / ProcFs.TICKS_PER_SECOND / seconds;
        double clientCores = (after.clientNanos() - before.clientNanos()) / 1e9 / seconds;
        long busy = after.machine()[0] - before.machine()[0];
        long all = after.machine()[1] - before.machine()[1];
        double machineBusy = all == 0 ? Double.NaN : (double) busy / all;
        double busiest = loads.stream().mapToDouble(RunResult.ShardLoad::capacityUse).max().orElse(Double.NaN);
        double shardCores = shardTicks / ProcFs.TICKS_PER_SECOND / seconds;
        double ours = (Double.isNaN(routerCores) ? 0 : routerCores) + clientCores + shardCores;
        double others = Math.max(0, machineBusy * ProcFs.cpus() - ours);
        // the emulation held when the shards' capacity is what limited throughput: the busiest shard used (nearly) all of
        // it. Without emulation, when this machine had CPU to spare.
        boolean held = Double.isNaN(busiest) ? !(machineBusy >= 0.9) : busiest >= 0.8;
        String bottleneck;
        if (busiest >= 0.8) {
            bottleneck = String.format(Locale.ROOT, "the shards (busiest at %.0f %% of its capacity)", 100 * busiest);
        } else if (machineBusy >= 0.9) {
            bottleneck = String.format(Locale.ROOT, "this machine's CPU (%.0f %% busy: router %.2f, clients %.2f, shards %.2f cores, other processes %.2f)",
                    100 * machineBusy, routerCores, clientCores, shardCores, others);
        } else {
            bottleneck = String.format(Locale.ROOT, "neither shards (busiest at %.0f %% of capacity) nor CPU (%.0f %% busy): clients or latency",
                    100 * busiest, 100 * machineBusy);
        }
        return new RunResult(id, workload.name(), target.scheme(), n, variant, settings.clients(), warmed, seconds, r.transactions(), r.transactions() / seconds,
                r.latencies().percentileMillis(0.5), r.latencies().percentileMillis(0.95), r.latencies().percentileMillis(0.99),
                r.latencies().meanMillis(), r.errors(), r.errorSamples(), after.aborts().minus(before.aborts()),
                partitionsOf, partitions, distributed, twoPhase, broadcasts, statementPartitions, everywhere, (double) questions / txns,
                cluster.gatedCapacity() || cluster.emulation().gated() ? (double) commands / txns : Double.NaN,
                cluster.gatedCapacity() ? units / txns : Double.NaN, fallbacks, deadlocks, loads,
                routerCores, Double.isNaN(routerCores) ? Double.NaN : routerCores * seconds * 1e6 / txns, routerJitCores, clientCores,
                shardCores, machineBusy, others, ProcFs.loadAverage(), bottleneck, held, problems,
                placement.partitioner());
    }
}
