package org.lutra.cli.bench;

import java.util.Arrays;

/**
 * Every latency of one measurement, in microseconds. A few seconds of transactions are at most a
 * few hundred thousand longs, so the exact percentiles of a sorted array beat a histogram library.
 * Not thread-safe: each client records its own, and the run merges them.
 */
final class Latencies {
    private long[] micros = new long[1024];
    private int size;
    private boolean sorted = true;

    void add(long latencyMicros) {
        if (size == micros.length) micros = Arrays.copyOf(micros, size * 2);
        micros[size++] = latencyMicros;
        sorted = false;
    }

    void addAll(Latencies other) {
        for (int i = 0; i < other.size; i++) add(other.micros[i]);
    }

    int size() {
        return size;
    }

    /** The {@code q}-quantile (0..1) in milliseconds, nearest rank; NaN when empty. */
    double percentileMillis(double q) {
        if (size == 0) return Double.NaN;
        if (!sorted) {
            Arrays.sort(micros, 0, size);
            sorted = true;
        }
        int rank = (int) Math.ceil(q * size);
        return micros[Math.min(size - 1, Math.max(0, rank - 1))] / 1000.0;
    }

    double meanMillis() {
        if (size == 0) return Double.NaN;
        long sum = 0;
        for (int i = 0; i < size; i++) sum += micros[i];
        return sum / 1000.0 / size;
    }
}
