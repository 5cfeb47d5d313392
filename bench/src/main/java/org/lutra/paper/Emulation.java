package org.lutra.paper;

import java.util.Locale;

/**
 * How each embedded shard is made a backend of fixed capacity, so that the shards and not this
 * machine are the bottleneck (the paper's backends were single-CPU servers of their own).
 *
 * @param mode     {@link Mode#GATE}: a proxy admits a fixed amount of work per second
 *                 ({@link ShardGate}); {@link Mode#CGROUP}: a CPU cap per server process
 *                 ({@link CpuCaps}); {@link Mode#NONE}: nothing (real servers, or a look at the raw machine)
 * @param capacity the gate's capacity and the network latency (latency alone under CGROUP)
 * @param cores    the CPU cap per shard under CGROUP
 */
public record Emulation(Mode mode, Capacity capacity, double cores) {
    public enum Mode { GATE, CGROUP, NONE }

    public static Emulation gate(double unitsPerSecond, long latencyMicros) {
        return new Emulation(Mode.GATE, Capacity.of(unitsPerSecond, latencyMicros), 0);
    }

    public static Emulation cgroup(double cores, long latencyMicros) {
        return new Emulation(Mode.CGROUP, Capacity.of(1e9, latencyMicros), cores);
    }

    public static final Emulation NONE = new Emulation(Mode.NONE, null, 0);

    /** Whether the shards' connections go through a gate (for a capacity, or for latency alone). */
    boolean gated() {
        return mode == Mode.GATE || (mode == Mode.CGROUP && capacity.latencyMicros() > 0);
    }

    public String describe() {
        return switch (mode) {
            case GATE -> "each shard behind a gate admitting " + capacity.describe();
            case CGROUP -> String.format(Locale.ROOT, "each shard's server capped at %.3f CPU cores (cgroup CFS quota), %d µs network latency",
                    cores, capacity.latencyMicros());
            case NONE -> "no emulation: the servers' own capacity";
        };
    }
}
