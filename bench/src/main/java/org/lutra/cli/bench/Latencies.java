package org.lutra.cli.bench;

import org.HdrHistogram.Histogram;

/**
 * The latencies of one measurement, in microseconds, in an HdrHistogram: three significant
 * digits whatever the run's length, in constant memory. Not thread-safe: each client records its
 * own, and the run merges them.
 */
public final class Latencies {
    /** One hour: a transaction waiting longer than that is recorded as one hour. */
    private static final long HIGHEST_MICROS = 3_600_000_000L;
    private final Histogram micros = new Histogram(HIGHEST_MICROS, 3);

    public void add(long latencyMicros) {
        micros.recordValue(Math.max(0, Math.min(HIGHEST_MICROS, latencyMicros)));
    }

    public void addAll(Latencies other) {
        micros.add(other.micros);
    }

    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, micros.getTotalCount());
    }

    /** The {@code q}-quantile (0..1) in milliseconds; NaN when empty. */
    public double percentileMillis(double q) {
        if (micros.getTotalCount() == 0) return Double.NaN;
        return micros.getValueAtPercentile(100 * q) / 1000.0;
    }

    public double meanMillis() {
        if (micros.getTotalCount() == 0) return Double.NaN;
        return micros.getMean() / 1000.0;
    }

    public double maxMillis() {
        return micros.getTotalCount() == 0 ? Double.NaN : micros.getMaxValue() / 1000.0;
    }

    /** Forgets what was recorded (the end of a warm-up). */
    public void reset() {
        micros.reset();
    }
}
