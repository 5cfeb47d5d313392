package org.lutra.paper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * summary.md (also printed): whether anything failed (its first line), what was emulated and
 * whether it held, the targets against the paper's, every run, and the figures; summary.json
 * with the targets.
 */
final class Summary {
    private Summary() {}

    static String write(Results results, Options options, String backends, double seconds, List<String> notes) throws IOException {
        var runs = results.all();
        var targets = Targets.evaluate(runs);
        List<Path> figures = Charts.draw(runs, results.dir());
        var md = new StringBuilder();
        var failed = runs.stream().filter(RunResult::failed).toList();
        md.append(failed.isEmpty() ? "# Lutra paper benchmarks: no errors, every invariant held\n\n"
                : "# ERRORS in " + failed.size() + " run(s): " + String.join(", ", failed.stream().map(RunResult::id).toList()) + "\n\n");
        for (RunResult r : failed) {
            md.append("- ").append(r.id()).append(": ").append(r.errors()).append(" errors")
                    .append(r.errorSamples().isEmpty() ? "" : " (" + r.errorSamples().getFirst().lines().findFirst().orElse("") + ")")
                    .append(r.invariantProblems().isEmpty() ? "" : "; invariants: " + String.join("; ", r.invariantProblems())).append('\n');
        }
        if (!failed.isEmpty()) md.append('\n');
        md.append(String.format(Locale.ROOT, "Backends: %s. This machine: %d CPUs, load average %.1f at the end. Took %.0f s.%n%n", backends,
                ProcFs.cpus(), ProcFs.loadAverage(), seconds));
        var measured = runs.stream().filter(r -> r.transactions() > 0).toList();
        var notHeld = measured.stream().filter(r -> !r.emulationHeld()).map(RunResult::id).toList();
        double others = measured.stream().mapToDouble(RunResult::otherCores).filter(v -> !Double.isNaN(v)).average().orElse(0);
        md.append(notHeld.isEmpty() ? "The emulation held in every run: the shards' capacity limited throughput (the busiest shard used 80 % of it or more).\n"
                : "The emulation did NOT hold in " + notHeld.size() + " of " + measured.size() + " runs (" + String.join(", ", notHeld) + "): something "
                + "else limited throughput before the shards' capacity did (see each run's bottleneck), so their ratios measure that too.\n");
        md.append(String.format(Locale.ROOT, "Other processes on this machine used %.2f of its %d cores on average during the runs.%n%n", others, ProcFs.cpus()));
        for (String n : notes) md.append("- ").append(n).append('\n');
        if (!notes.isEmpty()) md.append('\n');
        md.append("## Targets\n\n| target | paper | target | measured | met |\n|---|---|---|---|---|\n");
        for (var t : targets) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", t.name(), fmt(t.paper()), t.target() instanceof Double d ? "≥ " + fmt(d) : t.target(),
                    t.measured() == null ? "–" : fmt(t.measured()), t.met() == null ? "not measured" : t.met() ? "yes" : "**no**"));
        }
        md.append('\n');
        for (var t : targets) {
            if (!t.detail().isEmpty()) md.append("- ").append(t.name()).append(": ").append(t.detail()).append('\n');
            if (!t.why().isEmpty()) md.append("  - why missed: ").append(t.why()).append('\n');
        }
        md.append("\n## Runs\n\n| run | clients | tx/s | p50 ms | p95 ms | p99 ms | one partition | 2PC | to all partitions /tx | msgs/tx | busiest shard | router cores | "
                + "machine busy | aborts | deadlocks detected / by timeout | errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (RunResult r : runs) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.2f | %.2f | %.2f | %s | %s | %s | %.2f | %s | %.2f | %.0f %% | %d | %d / %d | %d%s |%n", r.id(),
                    r.clients(), r.throughput(), r.p50Millis(), r.p95Millis(), r.p99Millis(), pct(r.singlePartitionShare()), pct(r.twoPhaseShare()),
                    Double.isNaN(r.everywherePerTxn()) ? "–" : String.format(Locale.ROOT, "%.2f", r.everywherePerTxn()), r.messagesPerTxn(),
                    pct(r.busiestShard()), r.routerCores(), 100 * r.machineBusy(), r.aborts().total(), r.deadlocks().detected(), r.deadlocks().byTimeout(), r.errors(),
                    r.invariantProblems().isEmpty() ? "" : " (invariants broken)"));
        }
        md.append("\n## Figures\n\n");
        for (Path f : figures) md.append("![").append(f.getFileName()).append("](").append(f.getFileName()).append(")\n");
        Files.writeString(results.dir().resolve("summary.md"), md);
        var json = new LinkedHashMap<String, Object>();
        json.put("targets", targets);
        json.put("failedRuns", failed.stream().map(RunResult::id).toList());
        json.put("emulation", backends);
        json.put("seconds", seconds);
        Results.JSON.writeValue(results.dir().resolve("summary.json").toFile(), json);
        return md.toString();
    }

    static String fmt(Object v) {
        if (v instanceof Double d) return Double.isNaN(d) ? "–" : String.format(Locale.ROOT, d >= 10 ? "%.1f" : "%.2f", d);
        return String.valueOf(v);
    }

    static String pct(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.1f %%", 100 * share);
    }
}
