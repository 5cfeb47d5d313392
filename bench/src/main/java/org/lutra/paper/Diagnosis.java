package org.lutra.paper;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Why a ratio fell short, from what its runs measured: this machine saturated (the emulation did
 * not hold), the router's CPU, transactions that touched several partitions (and why: broadcasts,
 * two-phase commits, lookup fallbacks), messages per transaction against the baseline's, shards
 * loaded unevenly, aborts.
 */
final class Diagnosis {
    private Diagnosis() {}

    static String ratio(RunResult top, RunResult bottom) {
        var why = new ArrayList<String>();
        if (!Double.isNaN(top.unitsPerTxn()) && !Double.isNaN(bottom.unitsPerTxn()) && top.unitsPerTxn() > 0) {
            // at equal capacity per shard, throughput is at most backends × capacity / work per transaction
            double ceiling = (double) top.backends() / bottom.backends() * bottom.unitsPerTxn() / top.unitsPerTxn();
            why.add(String.format(Locale.ROOT, "the shards' work per transaction was %.2f units (%s) against %.2f (%s): with every shard "
                    + "busy all the time the ratio could reach %.2f", top.unitsPerTxn(), top.id(), bottom.unitsPerTxn(), bottom.id(), ceiling));
        }
        for (RunResult r : List.of(top, bottom)) {
            if (!r.emulationHeld()) why.add(String.format(Locale.ROOT, "%s: the shards were not the bottleneck (%s)", r.id(), r.bottleneck()));
        }
        why.addAll(load(top));
        if (!Double.isNaN(top.distributedShare()) && top.distributedShare() > 0.01) why.add(distributed(List.of(top)));
        if (bottom.messagesPerTxn() > 0 && top.messagesPerTxn() > bottom.messagesPerTxn() * 1.05) {
            why.add(String.format(Locale.ROOT, "%s sent %.2f statements per transaction to its backends, %s %.2f", top.id(), top.messagesPerTxn(),
                    bottom.id(), bottom.messagesPerTxn()));
        }
        if (top.aborts().total() > 0) why.add(String.format(Locale.ROOT, "%s: %d aborts (%d deadlocks, %d lock wait timeouts) run again; "
                        + "the router broke %d deadlocks across partitions from the shards' lock-wait views, %d by lock wait timeout",
                top.id(), top.aborts().total(), top.aborts().deadlocks(), top.aborts().lockWaitTimeouts(), top.deadlocks().detected(),
                top.deadlocks().byTimeout()));
        return String.join("; ", why);
    }

    /** Whether the shards were the bottleneck, and evenly. */
    static List<String> load(RunResult r) {
        var why = new ArrayList<String>();
        if (r.shards().isEmpty() || Double.isNaN(r.busiestShard())) return why;
        double mean = r.shards().stream().mapToDouble(RunResult.ShardLoad::capacityUse).average().orElse(Double.NaN);
        if (r.busiestShard() >= 0.8 && mean < 0.8 * r.busiestShard()) {
            why.add(String.format(Locale.ROOT, "%s: shards unevenly loaded (busiest at %.0f %% of its capacity, the average %.0f %%)", r.id(),
                    100 * r.busiestShard(), 100 * mean));
        }
        if (r.routerCores() > 0.8) why.add(String.format(Locale.ROOT, "%s: the router used %.2f cores", r.id(), r.routerCores()));
        return why;
    }

    static String distributed(List<RunResult> runs) {
        var why = new ArrayList<String>();
        for (RunResult r : runs) {
            why.add(String.format(Locale.ROOT, "%s: %.1f %% of %s touched several partitions (%s); per transaction %.2f statements went to all %d "
                            + "partitions (%.2f counted as lookup-table broadcasts); statements by partitions %s; %.1f %% two-phase commits, %d lookup "
                            + "fallbacks", r.id(), 100 * r.distributedShare(), r.partitionsOf(), Results.histogram(r.partitions()), r.everywherePerTxn(),
                    r.backends(), r.broadcastsPerTxn(), Results.histogram(r.statementPartitions()), 100 * r.twoPhaseShare(), r.lookupFallbacks()));
        }
        return String.join("; ", why);
    }

    static String messages(List<RunResult> runs) {
        var why = new ArrayList<String>();
        for (RunResult r : runs) why.add(String.format(Locale.ROOT, "%d backends: %.2f statements per transaction to every partition, "
                + "transactions by partitions %s", r.backends(), r.everywherePerTxn(), Results.histogram(r.partitions())));
        return "messages grow with the backends: " + String.join("; ", why);
    }
}
