package org.lutra.lookup;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * An immutable, sorted, duplicate-free set of partition ids: where a replicated key lives, or
 * every partition holding rows with a non-unique value.
 *
 * <p>Singletons for small ids are cached so that reading a unique table through
 * {@link LookupTable#getAll(long)} allocates nothing in the common single-partition case.
 */
public final class PartitionSet {
    public static final PartitionSet EMPTY = new PartitionSet(new int[0]);
    private static final PartitionSet[] SINGLETONS = new PartitionSet[1024];

    static {
        for (int p = 0; p < SINGLETONS.length; p++) {
            SINGLETONS[p] = new PartitionSet(new int[] {p});
        }
    }

    private final int[] partitions;

    private PartitionSet(int[] sortedDistinct) {
        this.partitions = sortedDistinct;
    }

    public static PartitionSet of(int partition) {
        checkPartition(partition);
        return partition < SINGLETONS.length ? SINGLETONS[partition] : new PartitionSet(new int[] {partition});
    }

    public static PartitionSet of(int... partitions) {
        if (partitions.length == 1) {
            return of(partitions[0]);
        }
        int[] copy = partitions.clone();
        Arrays.sort(copy);
        int n = 0;
        for (int i = 0; i < copy.length; i++) {
            checkPartition(copy[i]);
            if (n == 0 || copy[n - 1] != copy[i]) {
                copy[n++] = copy[i];
            }
        }
        if (n == 0) {
            return EMPTY;
        }
        return n == 1 ? of(copy[0]) : new PartitionSet(Arrays.copyOf(copy, n));
    }

    static void checkPartition(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + partition);
        }
    }

    public int size() {
        return partitions.length;
    }

    public boolean isEmpty() {
        return partitions.length == 0;
    }

    /** The i-th smallest partition. */
    public int get(int i) {
        return partitions[i];
    }

    /** The smallest partition, or {@link LookupTable#MISSING} when empty: the replica a read goes to. */
    public int first() {
        return partitions.length == 0 ? LookupTable.MISSING : partitions[0];
    }

    public boolean contains(int partition) {
        return Arrays.binarySearch(partitions, partition) >= 0;
    }

    public PartitionSet with(int partition) {
        if (contains(partition)) {
            return this;
        }
        int[] more = Arrays.copyOf(partitions, partitions.length + 1);
        more[partitions.length] = partition;
        return of(more);
    }

    public PartitionSet without(int partition) {
        int at = Arrays.binarySearch(partitions, partition);
        if (at < 0) {
            return this;
        }
        int[] fewer = new int[partitions.length - 1];
        System.arraycopy(partitions, 0, fewer, 0, at);
        System.arraycopy(partitions, at + 1, fewer, at, fewer.length - at);
        return fewer.length == 0 ? EMPTY : of(fewer);
    }

    public int[] toArray() {
        return partitions.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionSet other && Arrays.equals(partitions, other.partitions);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(partitions);
    }

    @Override
    public String toString() {
        var joiner = new StringJoiner(",", "{", "}");
        for (int p : partitions) {
            joiner.add(Integer.toString(p));
        }
        return joiner.toString();
    }
}
