package org.lutra.paper;

import java.nio.file.Path;
import java.util.List;

/**
 * The settings of {@code ./lutra bench micro|wikipedia|twitter|tpce|paper}.
 *
 * @param backends     the backend counts to run each scheme on (empty: each workload's default, {@link #backendsFor})
 * @param schemes      the schemes to run (empty: all of the workload's)
 * @param clients      closed-loop clients per run; 0: {@link #clientsFor}
 * @param warmup       seconds of unmeasured warm-up before each measured run
 * @param seconds      the measured run's length (when {@code transactions} is 0)
 * @param transactions a count of transactions instead of a duration (0: by duration)
 * @param scale        a factor on each workload's default size ({@link #scaleFor})
 * @param seed         the seed of data and mixes
 * @param out          the output folder
 * @param quick        the smallest runs that still show each effect
 * @param baseline     whether to run the one-machine baseline
 * @param record       where to write each run's committed transactions (a trace), or null
 * @param replay       a trace to run instead of the mix, or null
 * @param wikibench    a WikiBench trace whose page views wikipedia replays (on a wiki of its titles), or null
 * @param partitioner  what {@code ./lutra partition --partitioner} makes the lookup schemes' maps with: auto, metis or builtin
 */
record Options(List<Integer> backends, List<String> schemes, int clients, double warmup, double seconds, long transactions, double scale,
               long seed, Path out, boolean quick, Emulation emulation, Path backendsFrom, boolean baseline, Path record, Path replay,
               Path wikibench, String partitioner) {

    /** Enough clients to keep n emulated backends busy (each client has one transaction in flight). */
    int clientsFor(int backends) {
        return clients > 0 ? clients : 4 + 4 * backends;
    }

    /**
     * The backend counts of a workload: those asked for, else micro 1, 4 and 8; wikipedia 1, 2, 4
     * and 8 (--quick: 1, 4, 8); twitter 8; tpce 8 (--quick: 4, its chunks fewer to load).
     */
    List<Integer> backendsFor(String workload) {
        if (!backends.isEmpty()) return backends;
        return switch (workload) {
            case "micro" -> List.of(1, 4, 8);
            case "wikipedia" -> quick ? List.of(1, 4, 8) : List.of(1, 2, 4, 8);
            case "tpce" -> quick ? List.of(4) : List.of(8);
            default -> List.of(8);
        };
    }

    /**
     * The scale of a workload's data: --scale times its default, chosen to load in well under a
     * minute here: micro 20,000 rows; wikipedia 5,000 pages (--quick 2,000); twitter 2,000 users
     * (--quick 1,000); tpce as many chunks of 1,000 customers as backends.
     */
    double scaleFor(String workload) {
        double base = switch (workload) {
            case "wikipedia" -> quick ? 0.2 : 0.5;
            case "twitter" -> quick ? 0.1 : 0.2;
            default -> 1;
        };
        return scale * base;
    }

    /** The shards a command needs: the most backends any of its workloads runs on. */
    int maxBackends(List<String> workloads) {
        return workloads.stream().flatMap(w -> backendsFor(w).stream()).mapToInt(Integer::intValue).max().orElse(1);
    }

    /** The participants of micro's fully distributed queries on {@code n} backends (2 is the share sweep's last point). */
    List<Integer> microParticipants(int n) {
        var out = new java.util.ArrayList<Integer>();
        for (int p = 3; p <= n; p++) if (!quick || p == n || p == n / 2) out.add(p);
        return out;
    }
}
