package org.lutra.exec;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/** Routing counters: how many statements went to one partition or several, and where. */
public final class Stats {
    private final LongAdder singlePartition = new LongAdder();
    private final LongAdder multiPartition = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();
    private final LongAdder learned = new LongAdder();
    private final AtomicLongArray perPartition;

    public Stats(int partitions) {
        this.perPartition = new AtomicLongArray(partitions);
    }

    void statement(int[] partitions) {
        (partitions.length == 1 ? singlePartition : multiPartition).increment();
        for (int p : partitions) perPartition.incrementAndGet(p);
    }

    /** A lookup guess was wrong or incomplete; {@code partitions} were asked in addition. */
    void fallback(int[] partitions) {
        fallbacks.increment();
        for (int p : partitions) perPartition.incrementAndGet(p);
    }

    void learn() {
        learned.increment();
    }

    public long singlePartition() {
        return singlePartition.sum();
    }

    public long multiPartition() {
        return multiPartition.sum();
    }

    /** Statements whose lookup-table guess had to be corrected by asking other partitions. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    /** Lookup entries corrected from what a fallback found. */
    public long learned() {
        return learned.sum();
    }

    public long subQueries(int partition) {
        return perPartition.get(partition);
    }
}
