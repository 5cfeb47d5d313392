package org.lutra.paper;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A run folder: {@code runs/<id>.json} per run as it ends, {@code runs.csv} with a line per run,
 * and at the end {@code summary.md}, {@code summary.json} and the figures ({@link Charts}).
 */
final class Results {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String CSV_HEADER = "id,workload,scheme,backends,variant,clients,seconds,transactions,throughput,p50_ms,p95_ms,p99_ms,"
            + "errors,aborts_deadlock,aborts_lock_wait_timeout,aborts_serialization,aborts_other,gave_up,partitions_of,single_partition_share,"
            + "distributed_share,two_phase_share,broadcasts_per_txn,all_partition_statements_per_txn,messages_per_txn,gate_commands_per_txn,units_per_txn,lookup_fallbacks,deadlocks_detected,deadlocks_by_timeout,busiest_shard_capacity_use,"
            + "router_cores,router_us_per_txn,client_cores,shard_cores,machine_busy,emulation_held,invariant_problems,partitions_histogram";

    private final Path dir;
    private final List<RunResult> runs = new ArrayList<>();

    Results(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir.resolve("runs"));
        Files.writeString(dir.resolve("runs.csv"), CSV_HEADER + "\n");
    }

    Path dir() {
        return dir;
    }

    synchronized int size() {
        return runs.size();
    }

    synchronized List<RunResult> all() {
        return List.copyOf(runs);
    }

    synchronized void add(RunResult r) throws IOException {
        runs.add(r);
        JSON.writeValue(dir.resolve("runs").resolve(r.id() + ".json").toFile(), r);
        Files.writeString(dir.resolve("runs").resolve(r.id() + ".csv"), perShardCsv(r));
        Files.writeString(dir.resolve("runs.csv"), csvLine(r) + "\n", StandardOpenOption.APPEND);
    }

    private static String perShardCsv(RunResult r) {
        var out = new StringBuilder("shard,commands_per_s,units_per_s,capacity_use,questions_per_s,cpu_cores,throttled_periods\n");
        for (var s : r.shards()) {
            out.append(String.format(Locale.ROOT, "%d,%.1f,%.1f,%.4f,%.1f,%.4f,%d%n", s.shard(), s.commandsPerSecond(), s.unitsPerSecond(),
                    s.capacityUse(), s.questionsPerSecond(), s.cpuCores(), s.throttledPeriods()));
        }
        return out.toString();
    }

    private static String csvLine(RunResult r) {
        var a = r.aborts();
        return String.join(",", List.of(r.id(), r.workload(), quote(r.scheme()), Integer.toString(r.backends()), quote(r.variant()),
                Integer.toString(r.clients()), num(r.seconds()), Long.toString(r.transactions()), num(r.throughput()), num(r.p50Millis()),
                num(r.p95Millis()), num(r.p99Millis()), Long.toString(r.errors()), Long.toString(a.deadlocks()), Long.toString(a.lockWaitTimeouts()),
                Long.toString(a.serialization()), Long.toString(a.rolledBack()), Long.toString(a.gaveUp()), r.partitionsOf(),
                num(r.singlePartitionShare()), num(r.distributedShare()), num(r.twoPhaseShare()), num(r.broadcastsPerTxn()), num(r.everywherePerTxn()),
                num(r.messagesPerTxn()),
                num(r.gateCommandsPerTxn()), num(r.unitsPerTxn()), Long.toString(r.lookupFallbacks()),
                Long.toString(r.deadlocks().detected()), Long.toString(r.deadlocks().byTimeout()), num(r.busiestShard()), num(r.routerCores()),
                num(r.routerMicrosPerTxn()), num(r.clientCores()), num(r.shardCores()), num(r.machineBusy()), Boolean.toString(r.emulationHeld()),
                quote(String.join("; ", r.invariantProblems())), quote(histogram(r.partitions()))));
    }

    static String histogram(Map<Integer, Long> h) {
        return h.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(" "));
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
    }
}
