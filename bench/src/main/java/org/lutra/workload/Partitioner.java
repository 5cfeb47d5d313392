package org.lutra.workload;

import org.lutra.trace.Trace;

import java.io.IOException;
import java.util.Map;

/** Turns a trace into a placement: every key it touches, per owner table, on one of {@code parts} partitions. */
public interface Partitioner {
    /**
     * @return owner table (lower case) → key → partition (0 .. parts-1), and how the partitioner did
     */
    Assignment partition(Trace trace, int parts) throws IOException;

    /**
     * @param parts   owner table → key → partition
     * @param made_by the partitioner and its settings ("METIS 5.1 gpmetis", ...)
     * @param quality its edge cut and balance, as it reports them
     */
    record Assignment(Map<String, Map<String, Integer>> parts, String made_by, String quality) {}
}
