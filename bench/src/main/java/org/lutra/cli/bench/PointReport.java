package org.lutra.cli.bench;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The Markdown report of {@code ./lutra bench point}: medians over rounds, and ratios of runs measured side by side. */
final class PointReport {
    private PointReport() {}

    static String report(List<PointCell> cells, int rows, double seconds, int rounds, String version, Path jfr, String connectorOptions) {
        var s = new StringBuilder();
        s.append("## The hot path: one shard, through the router vs direct (`./lutra bench point`)\n\n");
        s.append(String.format(Locale.ROOT, "Machine: %d cores, Java %s; one MariaDB %s shard, the router in its own JVM, and the clients, "
                        + "all on this one machine; %s.%s%n", Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), version,
                LocalDate.now(), jfr == null ? "" : " Router recorded with JFR (" + jfr + "): numbers include its overhead."));
        s.append(String.format(Locale.ROOT, "Data: %,d rows in `users`, the router's only partition; the direct baseline is the same rows in "
                + "another database of the same shard, read with Connector/J (`" + (connectorOptions.isEmpty() ? "its defaults" : connectorOptions).replace("%", "%%")
                + "`). Closed loop, "
                + "%d rounds × %s s per cell and path, interleaved; medians over rounds. The router's CPU in user space is its share of the "
                + "process's user time (the rest is the kernel's: system calls, the loopback network stack, waking threads). The two "
                + "forwarders are the same Connector/J client through a proxy in the bench's JVM that only copies bytes: what the extra "
                + "hop alone costs on this machine. One copies with two platform threads per connection (the router's own design: "
                + "a thread woken per segment), the other with one thread and a selector for all connections (an event loop: one "
                + "thread woken for all the sockets ready together). Their CPU µs per statement are their copying threads' CPU time; "
                + "the lower of the two is the floor of any proxy's CPU per statement here.%n%n", rows, rounds, seconds));
        s.append("| workload | clients | router /s | direct /s | ratio | added p50 µs | added p99 µs | router CPU µs/stmt | of it in user space "
                + "| forwarder, threads: /s | ratio | CPU µs/stmt | forwarder, event loop: /s | ratio | CPU µs/stmt "
                + "| client CPU µs/stmt: Lutra driver / Connector/J | backend round trips/stmt |\n");
        s.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            double r = median(c.router().perSecond());
            double d = median(perSecond(c.direct()));
            double t = c.threads().perSecond();
            double l = c.loop().perSecond();
            double trips = median(c.counters().stream().map(ShardCounters::roundTrips).toList());
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.2f× | %+.0f | %+.0f | %.1f | %.1f | %,.0f | %.2f× | %.1f | %,.0f | %.2f× | %.1f | %.1f / %.1f | %.2f |%n",
                    c.workload(), c.clients(), r, d, r / d, median(addedMicros(c, 0.5)), median(addedMicros(c, 0.99)), median(c.router().cpuMicros()),
                    median(c.router().userCpuMicros()), t, t / d, median(c.threads().cpuMicros()), l, l / d, median(c.loop().cpuMicros()),
                    median(c.lutraClientMicros()), median(c.directClientMicros()), trips));
        }
        s.append("\nBackend statements per routed statement, by the shard's counters (median round; only counters that moved):\n\n");
        for (var c : cells) {
            var median = c.counters().get(c.counters().size() / 2);
            var parts = new ArrayList<String>();
            long n = Math.max(1, median.get("statements"));
            for (var e : median.entrySet()) {
                if (!e.getKey().equals("statements") && e.getValue() > 0) {
                    parts.add(String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue() / (double) n));
                }
            }
            s.append(String.format(Locale.ROOT, "- %s × %d: %s%n", c.workload(), c.clients(), String.join(", ", parts)));
        }
        s.append("\nThe router's MySQL listener: the same Connector/J client (the direct path's options) at the router's MySQL-protocol port, "
                + "so the router parses MySQL packets instead of the Lutra driver's frames. It runs right beside the Lutra driver's path (after it "
                + "in odd rounds, before it in even ones): \"per round\" is the median of each round's listener / Lutra driver, the side-by-side "
                + "ratio; \"of medians\" divides the two paths' medians. The router's CPU per statement is the whole process's, and of it "
                + "the JIT compilers' (a path still compiled during the run); the clients' CPU is this JVM's over the run:\n\n");
        s.append("| workload | clients | MySQL listener /s | vs Lutra driver: per round | of medians | each round | vs forwarder, threads "
                + "| vs forwarder, event loop | vs direct | router CPU µs/stmt: Lutra driver / listener | of it JIT "
                + "| client CPU µs/stmt: Lutra driver / Connector/J at the listener / Connector/J direct |\n");
        s.append("|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            double mysql = median(c.mysql().perSecond());
            double lutra = median(c.router().perSecond());
            double direct = median(perSecond(c.direct()));
            var perRound = ratios(c.mysql().perSecond(), c.router().perSecond());
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.2f× | %.2f× | %s | %.2f× | %.2f× | %.2f× | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f / %.1f |%n",
                    c.workload(), c.clients(), mysql, median(perRound), mysql / lutra, joined(perRound), mysql / c.threads().perSecond(),
                    mysql / c.loop().perSecond(), mysql / direct, median(c.router().cpuMicros()), median(c.mysql().cpuMicros()),
                    median(c.router().jitMicros()), median(c.mysql().jitMicros()), median(c.lutraClientMicros()), median(c.mysqlClientMicros()),
                    median(c.directClientMicros())));
        }
        return s.toString();
    }

    /** The --metrics section: the same router with monitoring off and on, measured side by side in every round. */
    static String metered(List<PointCell> cells, long scrapes) {
        var s = new StringBuilder("\n### Metrics on vs off (`--metrics`)\n\n");
        s.append(String.format(Locale.ROOT, "Two router processes over the same partition, one without monitoring (RouterMetrics.NONE) and one with "
                + "`http:` (the Prometheus registry, pool gauges, hot keys; its /metrics scraped every second: %,d scrapes) "
                + "and `slow_log:` (threshold 1 s), run one right after the other in every round (the order alternating). The ratio is the median "
                + "over rounds of each round's on / off.%n%n", scrapes));
        s.append("| workload | clients | off /s | on /s | on / off | router CPU µs/stmt off | on | on / off |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.3f | %.1f | %.1f | %.3f |%n", c.workload(), c.clients(),
                    median(c.router().perSecond()), median(c.metered().perSecond()), median(ratios(c.metered().perSecond(), c.router().perSecond())),
                    median(c.router().cpuMicros()), median(c.metered().cpuMicros()), median(ratios(c.metered().cpuMicros(), c.router().cpuMicros()))));
        }
        return s.toString();
    }

    /**
     * The --baseline-jar section: this build's router ("after") against another build's ("before"), both through the Lutra
     * driver, measured one right after the other in every round; each ratio is the median of the rounds' after / before.
     */
    /** {@code mysqlOptions}: Connector/J's options when the two were measured at their MySQL listeners (--baseline-mysql), else null. */
    static String baseline(List<PointCell> cells, Path jar, String mysqlOptions, boolean idleListener) {
        var s = new StringBuilder("\n### This build vs a baseline build (`--baseline-jar`" + (mysqlOptions == null ? "" : " `--baseline-mysql`")
                + (idleListener ? " `--idle-listener`" : "") + ")\n\n");
        s.append("Two more router processes over the same shard, each with its own copy of the rows: this build's (after) and the one in `")
                .append(jar).append(mysqlOptions == null
                        ? "` (before), with the same config (the first router's less the MySQL listener, which an older build may not "
                          + "have), warmed up and measured alike through the same Lutra driver"
                          + (idleListener ? "; the after router also serves a MySQL listener that no client connects to" : "")
                        : "` (before), with the same config (the first router's, MySQL listener included), warmed up and measured alike through "
                          + "the same Connector/J client at their MySQL listeners (`" + (mysqlOptions.isEmpty() ? "its defaults" : mysqlOptions) + "`)")
                .append(", one right after the other in every round (the order alternating). Each ratio is the median over rounds of the "
                        + "round's after / before; CPU is the router process's, per statement, in all and in user space.\n\n");
        s.append("| workload | clients | before /s | after /s | after / before | CPU µs/stmt before | after | after / before "
                + "| user-space µs/stmt before | after | after / before |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (var c : cells) {
            var before = c.baseline();
            var after = c.current();
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.3f | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f |%n", c.workload(), c.clients(),
                    median(before.perSecond()), median(after.perSecond()), median(ratios(after.perSecond(), before.perSecond())),
                    median(before.cpuMicros()), median(after.cpuMicros()), median(ratios(after.cpuMicros(), before.cpuMicros())),
                    median(before.userCpuMicros()), median(after.userCpuMicros()), median(ratios(after.userCpuMicros(), before.userCpuMicros()))));
        }
        s.append("\nPer round, after / before:\n\n");
        for (var c : cells) {
            var before = c.baseline();
            var after = c.current();
            s.append(String.format(Locale.ROOT, "- %s × %d: throughput %s; CPU %s; user space %s%n", c.workload(), c.clients(),
                    joined(ratios(after.perSecond(), before.perSecond())), joined(ratios(after.cpuMicros(), before.cpuMicros())),
                    joined(ratios(after.userCpuMicros(), before.userCpuMicros()))));
        }
        return s.toString();
    }

    /** Router minus direct latency at quantile q, per round. */
    private static List<Double> addedMicros(PointCell c, double q) {
        var out = new ArrayList<Double>();
        for (int i = 0; i < c.router().results().size(); i++) {
            out.add(1000 * (c.router().results().get(i).latencies().percentileMillis(q) - c.direct().get(i).latencies().percentileMillis(q)));
        }
        return out;
    }

    /** {@code a[i] / b[i]} for each round both have. */
    static List<Double> ratios(List<Double> a, List<Double> b) {
        var out = new ArrayList<Double>();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) out.add(a.get(i) / b.get(i));
        return out;
    }

    private static String joined(List<Double> values) {
        return values.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).collect(Collectors.joining(" "));
    }

    private static List<Double> perSecond(List<ClosedLoop.Result> results) {
        return results.stream().map(ClosedLoop.Result::perSecond).toList();
    }

    /** The median (the upper one of an even count); NaN when empty. */
    static double median(List<Double> values) {
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2);
    }
}
