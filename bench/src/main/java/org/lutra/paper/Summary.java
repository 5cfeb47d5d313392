package org.lutra.paper;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Locale;

/** summary.md (and, printed, the same text): every run, what was emulated, and the targets. */
final class Summary {
    private Summary() {}

    static String write(Results results, Options options, String backends, double seconds) throws IOException {
        var runs = results.all();
        var md = new StringBuilder();
        var failed = runs.stream().filter(RunResult::failed).toList();
        md.append(failed.isEmpty() ? "# Lutra paper benchmarks: all runs without errors, invariants held\n\n"
                : "# ERRORS in " + failed.size() + " run(s): " + String.join(", ", failed.stream().map(RunResult::id).toList()) + "\n\n");
        md.append("Backends: ").append(backends).append(String.format(Locale.ROOT, ". Took %.0f s.%n%n", seconds));
        md.append("| run | clients | tx/s | p50 ms | p99 ms | single-partition | 2PC | msgs/tx | busiest shard | router cores | machine busy | errors |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (RunResult r : runs) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.2f | %.2f | %s | %s | %.2f | %s | %.2f | %.0f %% | %d%s |%n", r.id(), r.clients(),
                    r.throughput(), r.p50Millis(), r.p99Millis(), pct(r.singlePartitionShare()), pct(r.twoPhaseShare()), r.messagesPerTxn(),
                    pct(r.busiestShard()), r.routerCores(), 100 * r.machineBusy(), r.errors(), r.invariantProblems().isEmpty() ? "" : " (invariants!)"));
        }
        Files.writeString(results.dir().resolve("summary.md"), md);
        return md.toString();
    }

    static String pct(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.1f %%", 100 * share);
    }
}
