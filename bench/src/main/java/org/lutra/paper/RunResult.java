package org.lutra.paper;

import java.util.List;
import java.util.Map;

/**
 * What one run measured, as written to its JSON file and the CSV.
 *
 * @param id                  unique within an output folder: workload, scheme, backends, variant
 * @param variant             the mix's settings where a workload sweeps them (micro), else ""
 * @param partitionsOf        what {@code partitions} counts: "transactions" (committed, by the router), "statements"
 *                            (auto-commit workloads), or "" (no router)
 * @param partitions          partitions touched → how many transactions (or statements) touched that many
 * @param distributedShare    the share of those that touched two partitions or more
 * @param twoPhaseShare       committed transactions that used two-phase commit, of all committed
 * @param broadcastsPerTxn    statements sent to every partition of a lookup table for want of a key, per transaction (the
 *                            router's own count: SHOW LOOKUP TABLES' Broadcasts)
 * @param statementPartitions partitions a routed statement went to → how many statements went to that many
 * @param everywherePerTxn    statements sent to all the run's partitions (two or more), per transaction: broadcasts of
 *                            any table and any cause
 * @param messagesPerTxn      statements the backends received per transaction (their {@code Questions}): the paper's Fig. 5 count
 * @param gateCommandsPerTxn  commands the gates admitted per transaction (Questions plus prepares, pings, closes)
 * @param unitsPerTxn         the shards' emulated work per transaction, all shards together (NaN without gates): at equal
 *                            capacity, throughput is at most backends × capacity / this
 * @param deadlocks           deadlocks across partitions the router broke, as {@code detected} (found in the shards' lock-wait
 *                            views, a victim aborted with 40001) and {@code byTimeout} (a lock wait past the timeout in a
 *                            transaction holding locks on several partitions); the shards' own deadlocks are in {@code aborts}
 * @param warmupSeconds       the unmeasured warm-up before the run (until the router's JIT compilers were nearly idle)
 * @param routerCores         CPU cores the router process used on average
 * @param routerJitCores      of those, its JIT compilers' (near 0: the router ran compiled code)
 * @param clientCores         CPU cores this benchmark's JVM used (clients, and the gates when there are)
 * @param shardCores          CPU cores the shard servers used, together
 * @param machineBusy         the share of this machine's CPU time that was busy, every process counted
 * @param otherCores          CPU cores used by processes other than this benchmark's (a shared machine's other work)
 * @param bottleneck          what limited throughput, as measured
 * @param emulationHeld       whether the shards' emulated capacity is what limited throughput (the busiest shard used 80 % of
 *                            it or more; without emulation: this machine had CPU to spare)
 * @param invariantProblems   what the checks on the shards found wrong after the run (empty: all held)
 */
public record RunResult(String id, String workload, String scheme, int backends, String variant, int clients, double warmupSeconds,
                        double seconds, long transactions, double throughput, double p50Millis, double p95Millis, double p99Millis,
                        double meanMillis, long errors, List<String> errorSamples, Aborts.Counts aborts,
                        String partitionsOf, Map<Integer, Long> partitions, double distributedShare, double twoPhaseShare,
                        double broadcastsPerTxn, Map<Integer, Long> statementPartitions, double everywherePerTxn, double messagesPerTxn, double gateCommandsPerTxn, double unitsPerTxn, long lookupFallbacks,
                        Deadlocks deadlocks,
                        List<ShardLoad> shards, double routerCores, double routerMicrosPerTxn, double routerJitCores, double clientCores, double shardCores,
                        double machineBusy, double otherCores, double loadAverage, String bottleneck, boolean emulationHeld,
                        List<String> invariantProblems, String placement) {

    /**
     * One shard's load during the run.
     *
     * @param capacityUse the share of its emulated capacity it used (NaN without a gate)
     */
    public record ShardLoad(int shard, double commandsPerSecond, double unitsPerSecond, double capacityUse, double questionsPerSecond,
                            double cpuCores, long throttledPeriods) {}

    /** Deadlocks across partitions the router broke during a run. */
    public record Deadlocks(long detected, long byTimeout) {
        static final Deadlocks NONE = new Deadlocks(0, 0);
    }

    /** A run that could not be set up or measured: {@code why} is its one error. */
    static RunResult failed(String id, String workload, String scheme, int backends, String variant, String why) {
        return new RunResult(id, workload, scheme, backends, variant, 0, 0, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 1,
                List.of(why), new Aborts.Counts(0, 0, 0, 0, 0), "", Map.of(), Double.NaN, Double.NaN, Double.NaN, Map.of(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0,
                Deadlocks.NONE, List.of(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, "not run: " + why, false, List.of(), "");
    }

    /** The share of transactions (or statements) that touched one partition; NaN without a router's count. */
    public double singlePartitionShare() {
        long total = partitions.values().stream().mapToLong(Long::longValue).sum();
        long single = partitions.getOrDefault(1, 0L) + partitions.getOrDefault(0, 0L);
        return total == 0 ? Double.NaN : (double) single / total;
    }

    /** Whether anything went wrong: client errors, transactions given up, broken invariants. */
    public boolean failed() {
        return errors > 0 || !invariantProblems.isEmpty();
    }

    /** The busiest shard's share of its capacity (NaN without gates). */
    public double busiestShard() {
        return shards.stream().mapToDouble(ShardLoad::capacityUse).max().orElse(Double.NaN);
    }
}
