package org.lutra.paper;

import org.lutra.cli.PartitionCommand;
import org.lutra.trace.TraceLine;
import org.lutra.trace.TraceWriter;
import org.lutra.workload.PartitionTrace;
import org.lutra.workload.Placement;
import org.lutra.workload.Scheme;
import org.lutra.workload.Workload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A lookup scheme's maps made the way an administrator makes them (docs/partitioning.md): the
 * workload's trace written to a file in the trace format ({@link TraceWriter}, as {@code --record}
 * writes one), {@code ./lutra partition} run over it ({@link PartitionCommand}, the command
 * itself), and the csv maps it writes, which the router loads with {@code LOAD LOOKUP TABLE}
 * before the first row ({@link RouterTarget}). Nothing of the placement is made by hand.
 */
final class PartitionStep {
    /** The imbalance the partitioner may leave: a part up to 5 % heavier than the average. */
    static final String IMBALANCE = "0.05";
    /** Transactions touching more keys add no edges (their cliques would swamp the graph and the time). */
    static final String MAX_KEYS = "200";

    private PartitionStep() {}

    /**
     * The placement of {@code scheme} on {@code partitions} partitions: the trace as {@code dir/WORKLOAD.trace}, the maps
     * in {@code dir/maps/}, the command's report in {@code dir/partition.log}; {@link Placement#NONE} for a scheme
     * without lookup tables.
     *
     * @param partitioner {@code auto}, {@code metis} or {@code builtin}, as {@code ./lutra partition --partitioner} takes it
     */
    static Placement place(Workload workload, Scheme scheme, int partitions, Path dir, String partitioner, long seed) throws IOException {
        PartitionTrace trace = workload.partitionTrace(scheme);
        if (trace == null) return Placement.NONE;
        Files.createDirectories(dir);
        Path file = dir.resolve(workload.name() + ".trace");
        try (var out = TraceWriter.create(file)) {
            out.comment(trace.comment());
            for (var e : new TreeMap<>(trace.sameAs()).entrySet()) out.sameAs(e.getKey(), e.getValue());
            for (TraceLine line : trace.lines()) out.write(line);
        }
        var argv = List.of(file.toString(), "--k", Integer.toString(partitions), "--out", dir.resolve("maps") + "/", "--format", "csv",
                "--partitioner", partitioner, "--imbalance", IMBALANCE, "--seed", Long.toString(seed), "--tables", String.join(",", trace.tables()),
                "--max-keys", MAX_KEYS);
        var report = new ByteArrayOutputStream();
        var errors = new ByteArrayOutputStream();
        int status;
        try (var out = new PrintStream(report, true, StandardCharsets.UTF_8); var err = new PrintStream(errors, true, StandardCharsets.UTF_8)) {
            status = new PartitionCommand(out, err).run(argv);
        } catch (Exception e) {
            throw new IOException("./lutra partition " + String.join(" ", argv) + ": " + e, e);
        }
        String log = "./lutra partition " + String.join(" ", argv) + "\n" + errors.toString(StandardCharsets.UTF_8) + report.toString(StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("partition.log"), log);
        if (status != 0) throw new IOException("./lutra partition failed (exit " + status + "):\n" + log);
        var maps = new ArrayList<Placement.MapFile>();
        for (String table : trace.tables()) {
            Path map = dir.resolve("maps").resolve(table + ".csv");
            if (!Files.exists(map)) throw new IOException("./lutra partition wrote no map of " + table + " (the trace names none of its rows?):\n" + log);
            maps.add(new Placement.MapFile(table, map, false));
        }
        String madeBy = "";
        var notes = new ArrayList<String>();
        for (String line : report.toString(StandardCharsets.UTF_8).lines().toList()) {
            if (line.startsWith("partitioner")) madeBy = line.substring("partitioner".length()).strip();
            else if (line.startsWith("edge cut") || line.startsWith("balance") || line.startsWith("transactions")) notes.add(line.replaceAll("\\s+", " "));
        }
        for (String line : errors.toString(StandardCharsets.UTF_8).lines().toList()) if (line.startsWith("graph:")) notes.addFirst(line);
        return workload.placement(scheme, partitions, new Placement(maps, madeBy, notes));
    }
}
