package org.lutra.paper;

import org.lutra.trace.TraceLine;
import org.lutra.trace.TraceReader;
import org.lutra.trace.TraceWriter;
import org.lutra.workload.Placement;
import org.lutra.workload.Scheme;
import org.lutra.workload.Workload;
import org.lutra.workload.micro.Micro;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The runs of one command: for each scheme and backend count a router is deployed, loaded,
 * warmed up and measured; the baseline runs on one MariaDB. Results go to {@link Results} as
 * they come, so an interrupted run keeps what it measured.
 */
final class Experiment implements AutoCloseable {
    private final Cluster cluster;
    private final Options options;
    private final Runner runner;
    private final Results results;
    private final Terminal terminal;
    private final List<TraceLine> replay;
    private final List<String> notes = new ArrayList<>();
    private RouterHostProcess host;

    Experiment(Cluster cluster, Options options, Results results, Terminal terminal) throws IOException {
        this.cluster = cluster;
        this.options = options;
        this.results = results;
        this.terminal = terminal;
        this.runner = new Runner(cluster, terminal);
        this.replay = options.replay() == null ? null : TraceReader.readAll(options.replay()).transactions();
    }

    /**
     * The microbenchmark: on each backend count, one router and one load; then the share of
     * distributed queries 0..100 % (2 participants, Fig. 6) and, at 100 %, 3..n participants (Fig. 7).
     */
    void micro(List<Double> shares) throws Exception {
        double scale = options.scaleFor("micro");
        notes.add("micro: " + new Micro(scale, options.seed(), 1, 0, 2).describe().replaceAll(" over 1 partitions.*", "")
                + "; ids of each query drawn from the partitions it should touch");
        for (int n : options.backendsFor("micro")) {
            var micro = new Micro(scale, options.seed(), n, 0, 2);
            Scheme scheme = micro.schemes().getFirst();
            try (var target = deploy(micro, scheme, n, Placement.NONE)) {
                if (n == 1) {
                    measure(target, micro, "share=0", Placement.NONE);
                    continue;
                }
                for (double share : shares) measure(target, micro.withMix(share, 2), variant(share, 2), Placement.NONE);
                for (int p : options.microParticipants(n)) measure(target, micro.withMix(1, p), variant(1, p), Placement.NONE);
            } catch (Exception e) {
                notRun(micro, scheme.name(), n, e);
            }
        }
        if (options.baseline()) baseline(new Micro(scale, options.seed(), 1, 0, 2));
    }

    static String variant(double share, int participants) {
        return String.format(Locale.ROOT, "share=%.2f participants=%d", share, participants);
    }

    /** Every scheme of {@code workload} (or those asked for) on every backend count, then the baseline. */
    void workload(Workload workload) throws Exception {
        terminal.line(workload.name() + ": " + workload.describe());
        notes.add(workload.name() + ": " + workload.describe());
        if (options.baseline()) baseline(workload);
        for (Scheme scheme : workload.schemes()) {
            if (!options.schemes().isEmpty() && !options.schemes().contains(scheme.name())) continue;
            for (int n : options.backendsFor(workload.name())) {
                try {
                    Placement placement = place(workload, scheme, n);
                    try (var target = deploy(workload, scheme, n, placement)) {
                        measure(target, workload, "", placement);
                    }
                } catch (Exception e) {
                    notRun(workload, scheme.name(), n, e);
                }
            }
        }
    }

    /** A lookup scheme's maps, made by {@code ./lutra partition} from the workload's trace ({@link PartitionStep}); none for the others. */
    private Placement place(Workload workload, Scheme scheme, int n) throws IOException {
        if (!scheme.lookup()) return Placement.NONE;
        long start = System.nanoTime();
        terminal.progress("  " + workload.name() + " " + scheme.name() + " ×" + n + ": ./lutra partition");
        var placement = PartitionStep.place(workload, scheme, n, deployment(workload, scheme, n), options.partitioner(), options.seed());
        String placed = String.format(Locale.ROOT, "%s %s ×%d: placed by ./lutra partition (%s) in %.1f s%s", workload.name(), scheme.name(), n,
                placement.partitioner(), (System.nanoTime() - start) / 1e9, placement.notes().isEmpty() ? "" : "; " + String.join("; ", placement.notes()));
        terminal.done("  " + placed);
        notes.add(placed);
        return placement;
    }

    private Path deployment(Workload workload, Scheme scheme, int n) {
        return results.dir().resolve("deployments").resolve(workload.name() + "-" + scheme.name() + "-" + n);
    }

    private Target deploy(Workload workload, Scheme scheme, int n, Placement placement) throws Exception {
        Path dir = deployment(workload, scheme, n);
        if (host == null) host = RouterHostProcess.start(results.dir().resolve("router.log"));
        return RouterTarget.deploy(cluster, host, workload, scheme, n, placement, options.clientsFor(n), dir, terminal);
    }

    /** Stops the router host. */
    @Override
    public void close() {
        if (host != null) host.close();
    }

    private void baseline(Workload workload) throws Exception {
        try (var target = BaselineTarget.deploy(cluster, workload, terminal)) {
            measure(target, workload, "", Placement.NONE);
        } catch (Exception e) {
            notRun(workload, BaselineTarget.ONE_MACHINE, 1, e);
        }
    }

    /** A run that could not be set up or measured is recorded as failed, with its error, and the others go on. */
    private void notRun(Workload workload, String scheme, int backends, Exception e) throws IOException {
        String why = e instanceof java.sql.SQLException s ? "SQLState " + s.getSQLState() + " (" + s.getErrorCode() + "): " + s.getMessage()
                : e.toString();
        String id = (workload.name() + "-" + (scheme.equals(BaselineTarget.ONE_MACHINE) ? "baseline" : scheme + "-" + backends)).replaceAll("[^A-Za-z0-9_.-]", "_");
        terminal.done("  " + workload.name() + " " + scheme + " ×" + backends + ": NOT RUN: " + why.lines().findFirst().orElse(why));
        results.add(RunResult.failed(id, workload.name(), scheme, backends, "", why));
    }

    private void measure(Target target, Workload workload, String variant, Placement placement) throws Exception {
        String id = (workload.name() + "-" + (target instanceof BaselineTarget ? "baseline" : target.scheme() + "-" + target.backends())
                + (variant.isEmpty() ? "" : "-" + variant.replace("share=", "s").replace(" participants=", "-p"))).replaceAll("[^A-Za-z0-9_.-]", "_");
        int clients = target instanceof BaselineTarget ? options.clientsFor(1) : options.clientsFor(target.backends());
        TraceWriter record = null;
        if (options.record() != null) {
            Path file = options.record();
            if (results.size() > 0 || Files.exists(file)) file = Path.of(file + "." + id);
            record = TraceWriter.create(file);
            record.comment(workload.name() + " " + id + ", seed " + options.seed() + ", scale " + options.scaleFor(workload.name()));
        }
        try {
            var requests = replay != null ? replay : workload.recordedRequests();
            var settings = new Runner.Settings(clients, options.warmup(), options.seconds(), options.transactions(), options.seed(), requests, record);
            results.add(runner.measure(id, target, workload, variant, placement, settings));
        } finally {
            if (record != null) record.close();
        }
    }

    /** What the report says about the workloads and placements of this experiment. */
    List<String> notes() {
        return List.copyOf(notes);
    }
}
