package org.lutra.lookup;

import java.util.Arrays;

/**
 * What the chooser needs to know about a table's keys: how many, their type and range, how many
 * partitions, and how the partitions are distributed. Built by {@link Profiler} from a table or
 * a map file, or written by hand from catalog statistics.
 *
 * @param keyCount       keys with an entry
 * @param stringKeys     how many of them are strings
 * @param minKey         smallest integer key (meaningless when all keys are strings)
 * @param maxKey         largest integer key
 * @param partitionCount partitions in use (highest id + 1)
 * @param replicatedKeys keys held by more than one partition
 * @param histogram      keys per partition (index = partition id)
 * @param runs           maximal runs of equal partitions over keys in ascending order, when known (else 0)
 */
public record KeyProfile(long keyCount, long stringKeys, long minKey, long maxKey, int partitionCount,
                         long replicatedKeys, long[] histogram, long runs) {

    public static KeyProfile ofLongRange(long keyCount, long minKey, long maxKey, int partitionCount) {
        return new KeyProfile(keyCount, 0, minKey, maxKey, partitionCount, 0, new long[0], 0);
    }

    public long integerKeys() {
        return keyCount - stringKeys;
    }

    /** Integer keys over the integer span; 0 when there are none. */
    public double density() {
        if (integerKeys() == 0) {
            return 0;
        }
        double span = (double) maxKey - (double) minKey + 1;
        return integerKeys() / span;
    }

    public double spanKeys() {
        return integerKeys() == 0 ? 0 : (double) maxKey - (double) minKey + 1;
    }

    public boolean allIntKeys() {
        return stringKeys == 0 && keyCount > 0 && Keys.fitsInt(minKey) && Keys.fitsInt(maxKey);
    }

    /** Shannon entropy of the partition distribution, bits a key: the floor for a per-key code. */
    public double entropyBits() {
        long total = Arrays.stream(histogram).sum();
        double bits = 0;
        for (long n : histogram) {
            if (n > 0) {
                double q = (double) n / total;
                bits -= q * Math.log(q) / Math.log(2);
            }
        }
        return bits;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyProfile k && k.keyCount == keyCount && k.stringKeys == stringKeys && k.minKey == minKey
                && k.maxKey == maxKey && k.partitionCount == partitionCount && k.replicatedKeys == replicatedKeys
                && Arrays.equals(k.histogram, histogram) && k.runs == runs;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(keyCount) * 31 + Arrays.hashCode(histogram);
    }

    @Override
    public String toString() {
        return "KeyProfile[keys=" + keyCount + ", strings=" + stringKeys + ", range=" + minKey + ".." + maxKey
                + ", partitions=" + partitionCount + ", replicated=" + replicatedKeys + ", runs=" + runs + "]";
    }

    /** Accumulates a profile from entries; feed it keys in ascending order to get {@link #runs}. */
    public static final class Profiler implements EntryVisitor {
        private long count;
        private long strings;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        private long replicated;
        private long[] histogram = new long[16];
        private int maxPartition = -1;
        private long runs;
        private boolean ascending = true;
        private long lastKey = Long.MIN_VALUE;
        private int lastPartition = -2;

        @Override
        public void visit(long key, PartitionSet partitions) {
            count++;
            min = Math.min(min, key);
            max = Math.max(max, key);
            if (count > 1 && key <= lastKey) {
                ascending = false;
            }
            lastKey = key;
            int first = partitions.first();
            if (first != lastPartition) {
                runs++;
                lastPartition = first;
            }
            count(partitions);
        }

        @Override
        public void visit(String key, PartitionSet partitions) {
            count++;
            strings++;
            count(partitions);
        }

        private void count(PartitionSet partitions) {
            if (partitions.size() > 1) {
                replicated++;
            }
            for (int i = 0; i < partitions.size(); i++) {
                int p = partitions.get(i);
                if (p >= histogram.length) {
                    histogram = Arrays.copyOf(histogram, Math.max(p + 1, histogram.length * 2));
                }
                histogram[p]++;
                maxPartition = Math.max(maxPartition, p);
            }
        }

        public KeyProfile profile() {
            long[] h = Arrays.copyOf(histogram, maxPartition + 1);
            boolean integers = count > strings;
            return new KeyProfile(count, strings, integers ? min : 0, integers ? max : -1, maxPartition + 1, replicated, h,
                    ascending && strings == 0 ? runs : 0);
        }
    }
}
