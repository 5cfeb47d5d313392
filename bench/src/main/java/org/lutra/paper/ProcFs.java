package org.lutra.paper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time from Linux's /proc: a process's, and the whole machine's. Zeros where there is no /proc. */
final class ProcFs {
    /** The kernel's clock ticks per second for these counters (USER_HZ, 100 on Linux). */
    static final double TICKS_PER_SECOND = 100;

    private ProcFs() {}

    /** utime + stime of process {@code pid}, every thread included, in ticks. */
    static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** utime + stime of the threads of process {@code pid} whose names {@code which} accepts, in ticks (ended threads are not counted). */
    static long threadTicks(long pid, java.util.function.Predicate<String> which) {
        long ticks = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (!which.test(name)) continue;
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return ticks;
    }

    /** The machine's {busy, total} ticks summed over its CPUs (the first line of /proc/stat). */
    static long[] machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) total += Long.parseLong(f[i]);
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0); // idle + iowait
            return new long[] {total - idle, total};
        } catch (IOException | RuntimeException e) {
            return new long[2];
        }
    }

    static int cpus() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The 1-minute load average, or -1. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
