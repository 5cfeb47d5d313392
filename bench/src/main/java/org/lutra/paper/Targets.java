package org.lutra.paper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The targets, each a ratio of runs measured side by side, with the paper's figure, the
 * target, what this run measured, whether it met it, and — when it did not — why, from what the
 * runs measured ({@link #why}).
 */
final class Targets {
    /**
     * One target. {@code target} is a number or "constant"; {@code measured} null when its runs are
     * missing (then {@code met} is null too).
     */
    record Target(String name, Object paper, Object target, Double measured, Boolean met, String detail, String why, List<String> runs) {}

    private Targets() {}

    static List<Target> evaluate(List<RunResult> all) {
        var runs = all.stream().filter(r -> !Double.isNaN(r.throughput()) && r.transactions() > 0).toList();
        var out = new ArrayList<Target>();
        // micro: 0 % distributed on the most backends, against that many times one backend
        var micro1 = find(runs, r -> r.workload().equals("micro") && r.backends() == 1);
        int microMax = runs.stream().filter(r -> r.workload().equals("micro")).mapToInt(RunResult::backends).max().orElse(0);
        var microN = find(runs, r -> r.workload().equals("micro") && r.backends() == microMax && microMax > 1 && Charts.variantShare(r) == 0);
        out.add(ratio("micro, 0% distributed, " + microMax + " emulated backends, share of linear", 0.94, 0.95,
                microN, micro1, microMax, "of " + microMax + " × one backend"));
        int microP = runs.stream().filter(r -> r.workload().equals("micro") && r.backends() == 4).findAny().isPresent() ? 4 : microMax;
        var two = find(runs, r -> r.workload().equals("micro") && r.backends() == microP && Charts.variantShare(r) == 1 && Charts.variantParticipants(r) == 2);
        var all4 = find(runs, r -> r.workload().equals("micro") && r.backends() == microP && Charts.variantShare(r) == 1 && Charts.variantParticipants(r) == microP);
        out.add(ratio("micro, 100% distributed, 2 of " + microP + " vs " + microP + " of " + microP + " participants", 1.38, 1.38, two, all4, 1, ""));
        // wikipedia
        int wikiMax = maxBackends(runs, "wikipedia");
        var wikiLookup = find(runs, r -> r.workload().equals("wikipedia") && r.scheme().equals("lookup") && r.backends() == wikiMax);
        var wikiBase = find(runs, r -> r.workload().equals("wikipedia") && r.scheme().equals(BaselineTarget.ONE_MACHINE));
        out.add(ratio("wikipedia lookup, " + wikiMax + " backends vs one machine", 5.9, 6.0, wikiLookup, wikiBase, 1, ""));
        var wikiHash = runs.stream().filter(r -> r.workload().equals("wikipedia") && r.scheme().startsWith("hash") && r.backends() == wikiMax)
                .max(Comparator.comparingDouble(RunResult::throughput));
        out.add(ratio("wikipedia lookup vs hash (the better alternative), " + wikiMax + " backends", 3.0, 3.0, wikiLookup, wikiHash, 1, ""));
        var messages = runs.stream().filter(r -> r.workload().equals("wikipedia") && r.scheme().equals("lookup")).sorted(Comparator.comparingInt(RunResult::backends)).toList();
        if (messages.size() >= 2) {
            double lo = messages.stream().mapToDouble(RunResult::messagesPerTxn).min().orElse(0);
            double hi = messages.stream().mapToDouble(RunResult::messagesPerTxn).max().orElse(0);
            boolean constant = hi <= lo * 1.1 + 0.05;
            var detail = new StringBuilder();
            for (RunResult r : messages) detail.append(String.format(Locale.ROOT, "%d: %.2f  ", r.backends(), r.messagesPerTxn()));
            out.add(new Target("wikipedia lookup messages per transaction, " + messages.getFirst().backends() + ".." + messages.getLast().backends()
                    + " backends", 4, "constant", hi, constant, detail.toString().trim() + " (the largest is the measured value)",
                    constant ? "" : Diagnosis.messages(messages), messages.stream().map(RunResult::id).toList()));
        } else {
            out.add(new Target("wikipedia lookup messages per transaction, 1..8 backends", 4, "constant", null, null, "runs missing", "", List.of()));
        }
        // twitter: the best lookup scheme against hash
        int twMax = maxBackends(runs, "twitter");
        var twBest = runs.stream().filter(r -> r.workload().equals("twitter") && !r.scheme().equals("hash") && !r.scheme().equals(BaselineTarget.ONE_MACHINE)
                && r.backends() == twMax).max(Comparator.comparingDouble(RunResult::throughput));
        var twHash = find(runs, r -> r.workload().equals("twitter") && r.scheme().equals("hash") && r.backends() == twMax);
        out.add(ratio("twitter best lookup scheme" + twBest.map(r -> " (" + r.scheme() + ")").orElse("") + " vs hash, " + twMax + " backends",
                2.24, 2.5, twBest, twHash, 1, ""));
        int ceMax = maxBackends(runs, "tpce");
        var ceLookup = find(runs, r -> r.workload().equals("tpce") && r.scheme().equals("lookup") && r.backends() == ceMax);
        var ceRange = find(runs, r -> r.workload().equals("tpce") && r.scheme().equals("range") && r.backends() == ceMax);
        out.add(ratio("tpce lookup vs range, " + ceMax + " backends", 2.6, 2.6, ceLookup, ceRange, 1, ""));
        // partitions per transaction of the lookup schemes at their largest backend counts
        var lookups = new ArrayList<RunResult>();
        wikiLookup.ifPresent(lookups::add);
        twBest.ifPresent(lookups::add);
        ceLookup.ifPresent(lookups::add);
        if (lookups.isEmpty()) {
            out.add(new Target("partitions per transaction, lookup schemes", 1, 0.99, null, null, "runs missing", "", List.of()));
        } else {
            double lowest = lookups.stream().mapToDouble(RunResult::singlePartitionShare).min().orElse(Double.NaN);
            var detail = new StringBuilder();
            for (RunResult r : lookups) detail.append(String.format(Locale.ROOT, "%s: %.1f %%  ", r.id(), 100 * r.singlePartitionShare()));
            boolean met = lowest >= 0.99;
            out.add(new Target("partitions per transaction, lookup schemes: share on one partition (the lowest)", 1, 0.99, lowest, met,
                    detail.toString().trim(), met ? "" : Diagnosis.distributed(lookups.stream().filter(r -> r.singlePartitionShare() < 0.99).toList()),
                    lookups.stream().map(RunResult::id).toList()));
        }
        return out;
    }

    private static int maxBackends(List<RunResult> runs, String workload) {
        return runs.stream().filter(r -> r.workload().equals(workload) && !r.scheme().equals(BaselineTarget.ONE_MACHINE))
                .mapToInt(RunResult::backends).max().orElse(0);
    }

    private static Optional<RunResult> find(List<RunResult> runs, Predicate<RunResult> p) {
        return runs.stream().filter(p).findFirst();
    }

    /** top / (times × bottom), against {@code target}. */
    private static Target ratio(String name, double paper, double target, Optional<RunResult> top, Optional<RunResult> bottom, int times, String what) {
        if (top.isEmpty() || bottom.isEmpty()) {
            return new Target(name, paper, target, null, null, "runs missing (not run, or failed)", "", List.of());
        }
        double measured = top.get().throughput() / (times * bottom.get().throughput());
        boolean met = measured >= target;
        String detail = String.format(Locale.ROOT, "%s %,.0f tx/s / %s%s %,.0f tx/s", top.get().id(), top.get().throughput(),
                times > 1 ? times + " × " : "", bottom.get().id(), bottom.get().throughput());
        return new Target(name, paper, target, measured, met, detail, met ? "" : Diagnosis.ratio(top.get(), bottom.get()),
                List.of(top.get().id(), bottom.get().id()));
    }
}
