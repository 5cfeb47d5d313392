package org.lutra.paper;

import java.nio.file.Path;
import java.util.List;

/**
 * The settings of {@code ./lutra bench micro|wikipedia|twitter|tpce|paper}.
 *
 * @param backends     the backend counts to run each scheme on
 * @param schemes      the schemes to run (empty: all of the workload's)
 * @param clients      closed-loop clients per run; 0: {@link #clientsFor}
 * @param warmup       seconds of unmeasured warm-up before each measured run
 * @param seconds      the measured run's length (when {@code transactions} is 0)
 * @param transactions a count of transactions instead of a duration (0: by duration)
 * @param scale        the data's scale factor (1 = the default size of each workload)
 * @param seed         the seed of data and mixes
 * @param out          the output folder
 * @param quick        the smallest runs that still show each effect
 * @param baseline     whether to run the one-machine baseline
 * @param record       where to write each run's committed transactions (a trace), or null
 * @param replay       a trace to run instead of the mix, or null
 */
record Options(List<Integer> backends, List<String> schemes, int clients, double warmup, double seconds, long transactions, double scale,
               long seed, Path out, boolean quick, Emulation emulation, Path backendsFrom, boolean baseline, Path record, Path replay) {

    /** Enough clients to keep n emulated backends busy (each client has one transaction in flight). */
    int clientsFor(int backends) {
        return clients > 0 ? clients : 4 + 4 * backends;
    }

    int maxBackends() {
        return backends.stream().mapToInt(Integer::intValue).max().orElse(1);
    }
}
