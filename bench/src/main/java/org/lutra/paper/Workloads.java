package org.lutra.paper;

import org.lutra.workload.Workload;

/** The workloads by name, at a scale and seed. */
final class Workloads {
    private Workloads() {}

    static Workload create(String name, double scale, long seed) {
        throw new IllegalArgumentException("unknown workload '" + name + "'");
    }
}
