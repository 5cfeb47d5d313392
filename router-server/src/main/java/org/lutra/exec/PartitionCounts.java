package org.lutra.exec;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How many statements or transactions touched 1, 2, ... partitions: the paper's "partitions per
 * transaction" (Table II). Counts of 64 partitions or more share the last slot.
 */
public final class PartitionCounts {
    public static final int SLOTS = 65;
    private final AtomicLongArray counts = new AtomicLongArray(SLOTS);

    public void count(int partitions) {
        counts.incrementAndGet(Math.min(SLOTS - 1, Math.max(0, partitions)));
    }

    public long get(int partitions) {
        return counts.get(partitions);
    }

    /** {@code "1:120 2:7"}: the partition counts seen, in order, with how often (SHOW LUTRA STATUS). */
    @Override
    public String toString() {
        var out = new StringBuilder();
        for (int i = 0; i < SLOTS; i++) {
            long n = counts.get(i);
            if (n == 0) continue;
            if (!out.isEmpty()) out.append(' ');
            out.append(i == SLOTS - 1 ? i + "+" : Integer.toString(i)).append(':').append(n);
        }
        return out.toString();
    }
}
