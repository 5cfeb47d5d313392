package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.lookup.LookupTable;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Routing counters: how many statements went to one partition or several, and where; and per
 * lookup table, how its guesses fared ({@link LookupCounters}).
 */
public final class Stats implements org.lutra.placement.ValidationCounters {
    private final LongAdder singlePartition = new LongAdder();
    private final LongAdder multiPartition = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();
    private final LongAdder learned = new LongAdder();
    private final LongAdder secondaryReads = new LongAdder();
    private final LongAdder secondaryPartitions = new LongAdder();
    private final LongAdder secondaryGuessed = new LongAdder();
    private final LongAdder secondaryGuessMissed = new LongAdder();
    /** Where this router guesses the rows of UNIQUE secondary lookups' values live (a cache: each guess is checked). */
    private final org.lutra.placement.SecondaryGuesses secondaryGuesses = new org.lutra.placement.SecondaryGuesses();
    private final AtomicLongArray perPartition;
    private final org.lutra.exec.PartitionCounts statementPartitions = new org.lutra.exec.PartitionCounts();
    /** By the shared lookup table itself (identity): an owner table and its SAME AS tables count together. */
    private final ConcurrentHashMap<LookupTable, LookupCounters> lookups = new ConcurrentHashMap<>();

    /** The change-log position this router's lookup tables reflect (the tailer's; none until it runs). */
    private volatile java.util.function.Supplier<long[]> logPositions = () -> new long[0];

    public void logPositions(java.util.function.Supplier<long[]> positions) {
        this.logPositions = positions;
    }

    public long[] logPositions() {
        return logPositions.get();
    }

    /** Where routed keys are reported (hot keys): {@link RouterMetrics#NONE} unless monitoring is on. */
    private final RouterMetrics metrics;

    public Stats(int partitions) {
        this(partitions, RouterMetrics.NONE);
    }

    public Stats(int partitions, RouterMetrics metrics) {
        this.perPartition = new AtomicLongArray(partitions);
        this.metrics = metrics;
    }

    /** The partitions counted ({@link #subQueries}). */
    public int partitions() {
        return perPartition.length();
    }

    void statement(int[] partitions) {
        (partitions.length == 1 ? singlePartition : multiPartition).increment();
        statementPartitions.count(partitions.length);
        for (int p : partitions) perPartition.incrementAndGet(p);
    }

    @Override
    public void fallback(Partitioning.LookedUp lookup, int[] partitions) {
        fallbacks.increment();
        lookup(lookup).fallbacks.increment();
        for (int p : partitions) perPartition.incrementAndGet(p);
    }

    @Override
    public void learn(Partitioning.LookedUp lookup) {
        learned.increment();
        lookup(lookup).learned.increment();
    }

    /** {@code partitioning.locate(key)}, counting a lookup table's hit or miss. */
    int locate(Partitioning partitioning, Object key) {
        if (!(partitioning instanceof Partitioning.LookedUp lookup)) return partitioning.locate(key);
        int cached = lookup.table().get(key);
        if (cached != LookupTable.MISSING) {
            lookup(lookup).hits.increment();
            metrics.keyRouted(lookup, key);
            return cached;
        }
        missed(lookup, key);
        return lookup.placeNew(key);
    }

    /** The table had an entry for routing key {@code key}: a hit, counted. */
    void hit(Partitioning.LookedUp lookup, Object key) {
        lookup(lookup).hits.increment();
        metrics.keyRouted(lookup, key);
    }

    /**
     * A routing key the table had no entry for: counted, and a partial (cache) table keeps the key
     * with where the statement goes now, its DEFAULT NEW home. That entry routes exactly as the miss
     * did, so it cannot make an answer wrong; a key that lives away is then corrected as any stale
     * entry is, from its home row (the statement's validation learns it).
     */
    void missed(Partitioning.LookedUp lookup, Object key) {
        lookup(lookup).misses.increment();
        metrics.keyRouted(lookup, key);
        if (lookup.table() instanceof org.lutra.lookup.AdaptiveLookupTable a && a.current() instanceof org.lutra.lookup.PartialLookupTable) {
            lookup.table().put(key, lookup.placeNew(key));
        }
    }

    /** A statement on a lookup-placed table went to all its partitions (nothing else counts a broadcast). */
    void broadcast(Partitioning partitioning) {
        if (partitioning instanceof Partitioning.LookedUp lookup) lookup(lookup).broadcasts.increment();
    }

    /** The counters of {@code lookup}'s table (created at its first use). */
    public LookupCounters lookup(Partitioning.LookedUp lookup) {
        var counters = lookups.get(lookup.table()); // the hot path: a plain read, no lock
        return counters != null ? counters : lookups.computeIfAbsent(lookup.table(), t -> new LookupCounters());
    }

    public long singlePartition() {
        return singlePartition.sum();
    }

    public long multiPartition() {
        return multiPartition.sum();
    }

    /** Statements by the partitions they were sent to (before any fallback). */
    public org.lutra.exec.PartitionCounts statementPartitions() {
        return statementPartitions;
    }

    /** Statements whose lookup-table guess had to be corrected by asking other partitions. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    /** Lookup entries corrected from what a fallback found. */
    public long learned() {
        return learned.sum();
    }

    /** A statement routed by a secondary lookup to {@code partitions} partitions (its entries read first). */
    void secondary(int partitions) {
        secondaryReads.increment();
        secondaryPartitions.add(partitions);
    }

    /** Statements routed by a secondary lookup. */
    public long secondaryReads() {
        return secondaryReads.sum();
    }

    public org.lutra.placement.SecondaryGuesses secondaryGuesses() {
        return secondaryGuesses;
    }

    /** A read by a UNIQUE secondary lookup's value tried the partition guessed: its row was there ({@code found}) or not (it read the entries). */
    void secondaryGuess(boolean found) {
        (found ? secondaryGuessed : secondaryGuessMissed).increment();
        if (found) secondaryReads.increment();
        if (found) secondaryPartitions.increment();
    }

    /** Reads by a UNIQUE secondary lookup's value answered where the router guessed, without reading its entries. */
    public long secondaryGuessed() {
        return secondaryGuessed.sum();
    }

    /** Reads that tried a guess and found no row there, then read the entries. */
    public long secondaryGuessMissed() {
        return secondaryGuessMissed.sum();
    }

    /** The partitions those statements went to, summed. */
    public long secondaryPartitions() {
        return secondaryPartitions.sum();
    }

    public long subQueries(int partition) {
        return perPartition.get(partition);
    }
}
