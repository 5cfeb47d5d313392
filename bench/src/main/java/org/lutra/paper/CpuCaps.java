package org.lutra.paper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A CPU cap per shard server through the kernel's CFS bandwidth control: each server process in
 * a cgroup of its own ({@code cpu.cfs_quota_us} per {@code cpu.cfs_period_us} on cgroup v1,
 * {@code cpu.max} on v2). Only where this process may create cgroups (root, or a delegated
 * subtree); {@link #available()} says whether it can.
 *
 * <p>The kernel's smallest quota is 1 ms a period, so a cap of {@code c} cores gets a period of
 * at least {@code 1 ms / c}: a shard capped at 5 % runs 1 ms and then waits 19 ms, a server that
 * is fast but often frozen rather than a slow one ({@code bench paper} says which was used).
 */
final class CpuCaps implements AutoCloseable {
    private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
    private static final Path V2 = Path.of("/sys/fs/cgroup");
    private static final long MIN_QUOTA_MICROS = 1000;
    private static final long DEFAULT_PERIOD_MICROS = 10_000;

    private final Path root;
    private final boolean v2;
    private final List<Path> groups = new ArrayList<>();

    private CpuCaps(Path root, boolean v2) {
        this.root = root;
        this.v2 = v2;
    }

    /** Whether cgroups with CPU caps can be made here (a probe group is created and removed). */
    static boolean available() {
        try (var caps = create()) {
            return caps != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** A new parent group for this benchmark's shards, or null where none can be made. */
    static CpuCaps create() throws IOException {
        String name = "lutra-bench-" + ProcessHandle.current().pid();
        if (Files.isRegularFile(V1.resolve("cpu.cfs_quota_us"))) {
            Path dir = V1.resolve(name);
            try {
                Files.createDirectories(dir);
                return new CpuCaps(dir, false);
            } catch (IOException e) {
                return null;
            }
        }
        if (Files.isRegularFile(V2.resolve("cgroup.controllers")) && Files.readString(V2.resolve("cgroup.controllers")).contains("cpu")) {
            Path dir = V2.resolve(name);
            try {
                Files.createDirectories(dir);
                Files.writeString(V2.resolve("cgroup.subtree_control"), "+cpu");
                return new CpuCaps(dir, true);
            } catch (IOException e) {
                return null;
            }
        }
        return null;
    }

    /** Puts {@code pid} (the whole process) in a group of its own capped at {@code cores} CPUs. */
    void cap(int shard, long pid, double cores) throws IOException {
        Path group = root.resolve("shard" + shard);
        Files.createDirectories(group);
        if (!groups.contains(group)) groups.add(group);
        long period = Math.max(DEFAULT_PERIOD_MICROS, (long) Math.ceil(MIN_QUOTA_MICROS / cores));
        long quota = Math.max(MIN_QUOTA_MICROS, Math.round(period * cores));
        if (v2) {
            Files.writeString(group.resolve("cpu.max"), quota + " " + period);
        } else {
            Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(period));
            Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
        }
        Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
    }

    /** Lifts every cap (loading data); {@link #cap} sets them again. */
    void uncapAll() throws IOException {
        for (Path group : groups) {
            if (v2) Files.writeString(group.resolve("cpu.max"), "max");
            else Files.writeString(group.resolve("cpu.cfs_quota_us"), "-1");
        }
    }

    /** Periods in which the shard's group ran out of quota, and for how long it was held: {nr_throttled, throttled µs}. */
    long[] throttled(int shard) {
        try {
            long periods = 0;
            long micros = 0;
            for (String line : Files.readAllLines(root.resolve("shard" + shard).resolve("cpu.stat"))) {
                String[] f = line.split(" ");
                if (f[0].equals("nr_throttled")) periods = Long.parseLong(f[1]);
                if (f[0].equals("throttled_time")) micros = Long.parseLong(f[1]) / 1000; // v1: ns
                if (f[0].equals("throttled_usec")) micros = Long.parseLong(f[1]);
            }
            return new long[] {periods, micros};
        } catch (IOException | RuntimeException e) {
            return new long[2];
        }
    }

    String describe(double cores) {
        long period = Math.max(DEFAULT_PERIOD_MICROS, (long) Math.ceil(MIN_QUOTA_MICROS / cores));
        return String.format(Locale.ROOT, "cgroup %s CPU cap of %.3f cores per shard (quota %d µs per %d µs period)",
                v2 ? "v2" : "v1", cores, Math.round(period * cores), period);
    }

    /** Moves the servers back to the parent group and removes the groups. */
    @Override
    public void close() throws IOException {
        Path parentProcs = root.getParent().resolve("cgroup.procs");
        for (Path group : groups) {
            try {
                for (String pid : Files.readAllLines(group.resolve("cgroup.procs"))) {
                    if (!pid.isBlank()) Files.writeString(parentProcs, pid.trim());
                }
            } catch (IOException e) {
                // the server ended: nothing to move
            }
            Files.deleteIfExists(group);
        }
        Files.deleteIfExists(root);
    }
}
