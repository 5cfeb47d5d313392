package org.lutra.paper;

import org.lutra.workload.Workload;

/** The workloads by name, at a scale and seed. */
final class Workloads {
    private Workloads() {}

    /** {@code maxBackends}: TPC-E gets at least one chunk a backend, so a placement by chunk is possible. */
    static Workload create(String name, double scale, long seed, int maxBackends) {
        return create(name, scale, seed, maxBackends, null);
    }

    /** With {@code wikibench}, wikipedia is the wiki of a WikiBench trace's titles (as many as the scale's pages) replaying its page views. */
    static Workload create(String name, double scale, long seed, int maxBackends, java.nio.file.Path wikibench) {
        if (name.equals("wikipedia") && wikibench != null) {
            try {
                var trace = org.lutra.workload.wikipedia.WikiBenchTrace.read(wikibench);
                return new org.lutra.workload.wikipedia.Wikipedia(trace, Math.max(100, (int) Math.round(10_000 * scale)), seed);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return switch (name) {
            case "micro" -> new org.lutra.workload.micro.Micro(scale, seed, 1, 0, 2);
            case "wikipedia" -> new org.lutra.workload.wikipedia.Wikipedia(scale, seed);
            case "twitter" -> new org.lutra.workload.twitter.Twitter(scale, seed);
            case "tpce" -> new org.lutra.workload.tpce.Tpce(Math.max(maxBackends, (int) Math.round(8 * scale)), seed);
            default -> throw new IllegalArgumentException("unknown workload '" + name + "'");
        };
    }
}
