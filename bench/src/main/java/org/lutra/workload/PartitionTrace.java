package org.lutra.workload;

import org.lutra.trace.TraceLine;

import java.util.List;
import java.util.Map;

/**
 * What {@code ./lutra partition} places a lookup scheme by: a trace of the workload's transactions
 * (the lines {@code --record} writes for them), the SAME AS tables (the trace's {@code @same-as}
 * lines) and the owner tables whose keys it places.
 *
 * @param comment a line for the trace's header: what the trace holds
 * @param lines   the transactions, in order
 * @param sameAs  SAME AS table → its owner
 * @param tables  the owner tables to place (one map each)
 */
public record PartitionTrace(String comment, List<TraceLine> lines, Map<String, String> sameAs, List<String> tables) {
    public PartitionTrace {
        lines = List.copyOf(lines);
        sameAs = Map.copyOf(sameAs);
        tables = List.copyOf(tables);
    }
}
