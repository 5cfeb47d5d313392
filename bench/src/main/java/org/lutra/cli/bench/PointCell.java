package org.lutra.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@code ./lutra bench point} measured for one workload at one client count, per round, path by path: the
 * router (Lutra driver), the direct Connector/J baseline, the two byte-copying forwarders, the router's MySQL
 * listener (run right beside the Lutra driver's path, the order alternating), and the routers run beside the first: with monitoring on ({@code --metrics}); this build's and another build's
 * with the same config ({@code --baseline-jar}: {@code current} and {@code baseline}).
 */
record PointCell(String workload, int clients, Routed router, List<ClosedLoop.Result> direct, Forwarded threads, Forwarded loop,
                 List<Double> lutraClientMicros, List<Double> directClientMicros, List<Map<String, Long>> counters, Routed metered,
                 Routed current, Routed baseline, Routed mysql, List<Double> mysqlClientMicros) {
    PointCell(String workload, int clients) {
        this(workload, clients, new Routed(), new ArrayList<>(), new Forwarded(), new Forwarded(), new ArrayList<>(), new ArrayList<>(),
                new ArrayList<>(), new Routed(), new Routed(), new Routed(), new Routed(), new ArrayList<>());
    }

    /**
     * One router process's runs, per round: results and the process's CPU µs per statement, in all and in user space
     * (its share of the process's user ticks in /proc; the rest is the kernel's: system calls, loopback TCP, wake-ups), and of
     * it the JIT compilers' (a path still being compiled costs more per statement than its code does).
     */
    record Routed(List<ClosedLoop.Result> results, List<Double> cpuMicros, List<Double> userCpuMicros, List<Double> jitMicros) {
        Routed() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        ClosedLoop.Result run(RouterProcess router, int clients, double seconds, int round, ClosedLoop.Opener client) throws Exception {
            long jitBefore = router.compilerNanos();
            long cpuBefore = router.cpuNanos();
            long[] ticksBefore = router.processTicks();
            var result = ClosedLoop.run(clients, seconds, round, client);
            long cpu = router.cpuNanos() - cpuBefore;
            long jit = router.compilerNanos() - jitBefore;
            long[] ticks = router.processTicks();
            long user = ticks[0] - ticksBefore[0];
            double userShare = (double) user / Math.max(1, user + ticks[1] - ticksBefore[1]);
            long statements = Math.max(1, result.transactions());
            results.add(result);
            cpuMicros.add(cpu / 1e3 / statements);
            userCpuMicros.add(userShare * cpu / 1e3 / statements);
            jitMicros.add(jit / 1e3 / statements);
            return result;
        }

        List<Double> perSecond() {
            return results.stream().map(ClosedLoop.Result::perSecond).toList();
        }
    }

    /** One forwarder's results and CPU µs per statement, per round. */
    record Forwarded(List<ClosedLoop.Result> results, List<Double> cpuMicros) {
        Forwarded() {
            this(new ArrayList<>(), new ArrayList<>());
        }

        ClosedLoop.Result run(Forwarder forwarder, PointCell cell, double seconds, int round, ClosedLoop.Opener client) throws Exception {
            long before = forwarder.cpuNanos();
            var result = ClosedLoop.run(cell.clients(), seconds, round, client);
            results.add(result);
            cpuMicros.add((forwarder.cpuNanos() - before) / 1e3 / Math.max(1, result.transactions()));
            return result;
        }

        double perSecond() {
            return PointReport.median(results.stream().map(ClosedLoop.Result::perSecond).toList());
        }
    }
}
