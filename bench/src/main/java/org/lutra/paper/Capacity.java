package org.lutra.paper;

import java.util.Locale;

/**
 * What one emulated backend can do: {@code unitsPerSecond} units of work, where each statement
 * (each command a client sends: a query, an execute, a COMMIT, an XA step, a ping) costs
 * {@code statementCost} and each packet of its answer (a row, a column definition, the end
 * marker) {@code rowCost}; and {@code latencyMicros} of network between the router and it.
 *
 * <p>The cost model is a server whose CPU is the bottleneck: a fixed cost to receive, parse,
 * plan and answer a statement, and a cost per row it reads and sends. The default ratio, a packet
 * of the answer 0.08 of a statement, was measured on the embedded MariaDB 11.4 of the development
 * machine: its server CPU time for a prepared primary-key {@code IN} list of 1 id was 63-75 µs, of
 * 20 ids 205 µs, of 40 ids 342 µs, of 80 ids 393-500 µs (docs/benchmarks.md) — about 65 µs a
 * statement and 5 µs a row.
 */
public record Capacity(double unitsPerSecond, double statementCost, double rowCost, long latencyMicros) {
    public static final double DEFAULT_ROW_COST = 0.08;

    public Capacity {
        if (unitsPerSecond <= 0 || statementCost < 0 || rowCost < 0 || latencyMicros < 0) {
            throw new IllegalArgumentException("capacity: units/s > 0, costs and latency >= 0");
        }
    }

    static Capacity of(double unitsPerSecond, long latencyMicros) {
        return new Capacity(unitsPerSecond, 1, DEFAULT_ROW_COST, latencyMicros);
    }

    /** Nanoseconds of the backend's time one unit takes. */
    double nanosPerUnit() {
        return 1e9 / unitsPerSecond;
    }

    String describe() {
        return String.format(Locale.ROOT, "%,.0f units/s (a statement %.2f, an answer packet %.3f), %d µs network latency",
                unitsPerSecond, statementCost, rowCost, latencyMicros);
    }
}
