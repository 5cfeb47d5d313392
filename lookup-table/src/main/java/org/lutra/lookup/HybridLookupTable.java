package org.lutra.lookup;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A compact rule plus an exception map for the keys the rule gets wrong (paper §V-A).
 *
 * <p>The rule is either ranges learned from the keys in order ({@link RangeRule}: maximal runs of
 * one partition, runs shorter than {@code minRun} left to the exceptions; this greedy interval
 * learner makes the same cuts an over-fitted decision tree on one attribute would, at a fixed
 * minimum leaf size) or a hash of the key over the partitions. {@link #train} builds both and
 * keeps the one whose rule plus exceptions take fewer bytes.
 *
 * <p>Like the paper's, this table answers for keys it never saw (the rule's guess), which a
 * router tolerates because it validates. Removing a key the rule would still answer for records
 * an explicit "absent" exception. String keys have no rule: they all live in a side map.
 * Readers are lock-free: the rule is immutable, the exceptions are a {@link ConcurrentLongIntMap}.
 */
public final class HybridLookupTable implements LookupTable {
    private static final int ABSENT = Integer.MAX_VALUE;

    /** Predicts a partition for any key; MISSING when it has no opinion. */
    public sealed interface Rule permits RangeRule, HashRule, NoRule {
        int predict(long key);

        long bytes();
    }

    /** Sorted range starts; range i covers [starts[i], starts[i+1]). Keys below the first start: no opinion. */
    public record RangeRule(long[] starts, int[] partitions) implements Rule {
        @Override
        public int predict(long key) {
            int i = Arrays.binarySearch(starts, key);
            if (i < 0) {
                i = -i - 2;
            }
            return i < 0 ? MISSING : partitions[i];
        }

        @Override
        public long bytes() {
            return 32 + 12L * starts.length;
        }
    }

    public record HashRule(int partitionCount) implements Rule {
        @Override
        public int predict(long key) {
            return (int) Long.remainderUnsigned(key * 0x9E3779B97F4A7C15L, partitionCount);
        }

        @Override
        public long bytes() {
            return 16;
        }
    }

    public record NoRule() implements Rule {
        @Override
        public int predict(long key) {
            return MISSING;
        }

        @Override
        public long bytes() {
            return 0;
        }
    }

    private final Rule rule;
    private final ConcurrentLongIntMap exceptions;
    private final ConcurrentHashMap<String, Integer> strings = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();
    private volatile long size;

    private HybridLookupTable(Rule rule, ConcurrentLongIntMap exceptions, long size) {
        this.rule = rule;
        this.exceptions = exceptions;
        this.size = size;
    }

    /** No rule yet: every key is an exception (a plain hash table). */
    public static HybridLookupTable empty() {
        return new HybridLookupTable(new NoRule(), new ConcurrentLongIntMap(), 0);
    }

    /** Learns a rule from parallel arrays of keys in ascending order and their partitions. */
    public static HybridLookupTable train(long[] sortedKeys, int[] partitions, int count, int minRun) {
        int partitionCount = 1;
        for (int i = 0; i < count; i++) {
            partitionCount = Math.max(partitionCount, partitions[i] + 1);
        }
        HybridLookupTable byRange = withRule(learnRanges(sortedKeys, partitions, count, minRun), sortedKeys, partitions, count);
        HybridLookupTable byHash = withRule(new HashRule(partitionCount), sortedKeys, partitions, count);
        return byRange.estimatedBytes() <= byHash.estimatedBytes() ? byRange : byHash;
    }

    static RangeRule learnRanges(long[] keys, int[] partitions, int count, int minRun) {
        long[] starts = new long[16];
        int[] values = new int[16];
        int ranges = 0;
        int i = 0;
        while (i < count) {
            int j = i;
            while (j < count && partitions[j] == partitions[i]) {
                j++;
            }
            // A short run becomes exceptions inside its neighbour's range, unless it is the first.
            if (j - i >= minRun || ranges == 0) {
                if (ranges == 0 || values[ranges - 1] != partitions[i]) {
                    if (ranges == starts.length) {
                        starts = Arrays.copyOf(starts, ranges * 2);
                        values = Arrays.copyOf(values, ranges * 2);
                    }
                    starts[ranges] = keys[i];
                    values[ranges++] = partitions[i];
                }
            }
            i = j;
        }
        return new RangeRule(Arrays.copyOf(starts, ranges), Arrays.copyOf(values, ranges));
    }

    private static HybridLookupTable withRule(Rule rule, long[] keys, int[] partitions, int count) {
        var exceptions = new ConcurrentLongIntMap();
        for (int i = 0; i < count; i++) {
            if (rule.predict(keys[i]) != partitions[i]) {
                exceptions.put(keys[i], partitions[i]);
            }
        }
        // Gaps between trained keys would be answered by the rule; that is the hybrid's contract.
        return new HybridLookupTable(rule, exceptions, count);
    }

    public Rule rule() {
        return rule;
    }

    public long exceptionCount() {
        return exceptions.size();
    }

    @Override
    public int get(long key) {
        if (exceptions.size() != 0) {
            int p = exceptions.get(key);
            if (p != MISSING) {
                return p == ABSENT ? MISSING : p;
            }
        }
        return rule.predict(key);
    }

    @Override
    public int get(String key) {
        Integer p = strings.get(key);
        return p == null ? MISSING : p;
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition);
        if (partition == ABSENT) {
            throw new IllegalArgumentException("partition " + partition + " is reserved");
        }
        synchronized (writeLock) {
            int before = get(key);
            if (rule.predict(key) == partition) {
                exceptions.remove(key); // the rule is right again: no exception needed
            } else {
                exceptions.put(key, partition);
            }
            if (before == MISSING) {
                size = size + 1;
            }
        }
    }

    @Override
    public void put(String key, int partition) {
        PartitionSet.checkPartition(partition);
        synchronized (writeLock) {
            if (strings.put(key, partition) == null) {
                size = size + 1;
            }
        }
    }

    @Override
    public boolean remove(long key) {
        synchronized (writeLock) {
            if (get(key) == MISSING) {
                return false;
            }
            if (rule.predict(key) == MISSING) {
                exceptions.remove(key);
            } else {
                exceptions.put(key, ABSENT);
            }
            size = size - 1;
            return true;
        }
    }

    @Override
    public boolean remove(String key) {
        synchronized (writeLock) {
            if (strings.remove(key) == null) {
                return false;
            }
            size = size - 1;
            return true;
        }
    }

    /** Keys that answer: trained keys plus net changes since (keys the rule merely guesses are not counted). */
    @Override
    public long size() {
        return size;
    }

    @Override
    public long estimatedBytes() {
        return 64 + rule.bytes() + exceptions.estimatedBytes() + strings.size() * (long) LookupTables.STRING_BYTES_PER_KEY;
    }
}
