package org.lutra.cli.bench;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** The Markdown report of {@link TxnBench}: one table of workloads, one of ratios, the checks. */
final class TxnReport {
    private static final String NONE = "–";

    private TxnReport() {}

    /** What went wrong, one line each: no committed transactions, errors, wrong commit kinds, broken balances. */
    static List<String> problems(TxnBench.Outcome o) {
        var problems = new ArrayList<String>();
        for (var e : o.runs().entrySet()) {
            TxnWorkload w = e.getKey();
            long committed = sum(e.getValue(), r -> r.result().transactions());
            long errors = sum(e.getValue(), r -> r.result().errors());
            if (committed == 0) problems.add(w.key + ": no transaction committed");
            if (errors > 0) problems.add(w.key + ": " + errors + " failed, e.g. " + e.getValue().stream()
                    .flatMap(r -> r.result().errorSamples().stream()).findFirst().orElse("?"));
            String mismatch = total(e.getValue()).mismatch(w, committed);
            if (mismatch != null) problems.add(w.key + ": " + mismatch);
        }
        long expected = (long) Accounts.PARTITIONS * o.options().accounts();
        if (o.accountsFound() != expected) problems.add("the shards hold " + o.accountsFound() + " accounts, expected " + expected);
        if (o.balanceSum() != 0) problems.add("SUM(balance) is " + o.balanceSum() + ", expected 0: a transfer was applied in part");
        return problems;
    }

    static String markdown(TxnBench.Outcome o) {
        var opt = o.options();
        var s = new StringBuilder();
        s.append("## Transactions through the router: 1 vs 2 vs 4 partitions (`./lutra bench txn`)\n\n");
        s.append(String.format(Locale.ROOT, "Machine: %d cores (Runtime.availableProcessors), Java %s (%s), %s %s; "
                        + "%d MariaDB %s shards and the router (in-process) on this one machine; %s.%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), System.getProperty("java.vendor"),
                System.getProperty("os.name"), System.getProperty("os.arch"), Accounts.PARTITIONS, o.serverVersion(), LocalDate.now()));
        s.append(String.format(Locale.ROOT, "Load: %d clients in a closed loop, each on its own connection(s); %d round(s) × %s s per "
                        + "workload, interleaved (%s), after %s s of warm-up each; %,d accounts per partition (%,d loaded through the "
                        + "router in %.1f s).%n",
                opt.clients(), opt.rounds(), num(opt.seconds()), String.join(", ", opt.workloads().stream().map(w -> w.key).toList()),
                num(opt.warmup()), opt.accounts(), o.load().rows(), o.load().seconds()));
        s.append("Transaction: 4 × `UPDATE accounts SET balance = balance + ? WHERE id = ?` (prepared; transfers summing to 0, ids "
                + "ascending), then `commit()`. Auto-commit rows: 1 × `UPDATE accounts SET touches = touches + 1 WHERE id = ?`.\n\n");

        s.append("| workload | partitions | txn/s (median) | txn/s min–max | latency p50 ms | p99 ms | mean ms | committed | errors "
                + "| router's commits | prepare ms | decision ms | commit ms |\n");
        s.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|\n");
        for (var e : o.runs().entrySet()) {
            TxnWorkload w = e.getKey();
            var runs = e.getValue();
            long committed = sum(runs, r -> r.result().transactions());
            var c = total(runs);
            boolean txn = w.path == TxnWorkload.Path.ROUTER && !w.autocommit();
            String commits;
            if (w.path == TxnWorkload.Path.DIRECT) {
                commits = "no router";
            } else {
                String kinds = c.twoPhase() == 0 && c.onePhase() == 0 ? "none" : c.twoPhase() == 0 ? String.format("1PC %,d", c.onePhase())
                        : c.onePhase() == 0 ? String.format("2PC %,d", c.twoPhase()) : String.format("1PC %,d + 2PC %,d", c.onePhase(), c.twoPhase());
                commits = kinds + (c.mismatch(w, committed) == null ? " ok" : " MISMATCH");
            }
            s.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f–%,.0f | %.2f | %.2f | %.2f | %,d | %,d | %s | %s | %s | %s |%n",
                    w.label, w.participants, median(runs, r -> r.result().perSecond()),
                    min(runs, r -> r.result().perSecond()), max(runs, r -> r.result().perSecond()),
                    median(runs, r -> r.result().latencies().percentileMillis(0.50)),
                    median(runs, r -> r.result().latencies().percentileMillis(0.99)),
                    median(runs, r -> r.result().latencies().meanMillis()),
                    committed, sum(runs, r -> r.result().errors()), commits,
                    txn && w.participants > 1 ? ms(c.prepare().meanMillis()) : NONE,
                    txn && w.participants > 1 ? ms(c.decision().meanMillis()) : NONE,
                    txn ? ms(c.commit().meanMillis()) : NONE));
        }
        s.append("\nPhase times are the router's means (TxnStats): prepare = XA END + XA PREPARE on the other writers, in parallel; "
                + "decision = the decision log; commit = XA COMMIT of the prepared branches (for 1 partition: its one COMMIT).\n\n");

        ratios(o, s);
        routerHop(o, s);
        decisionLog(o, s);

        var problems = problems(o);
        s.append(String.format(Locale.ROOT, "%nChecks: %s; %,d accounts, SUM(balance) = %,d.%n",
                problems.isEmpty() ? "all passed (router commit kinds as expected: one-phase only for 1 partition, XA two-phase only for 2 and 4; "
                        + "no errors; no transfer half-applied)" : "**" + problems.size() + " problem(s)**",
                o.accountsFound(), o.balanceSum()));
        for (String p : problems) s.append("- ").append(p).append('\n');
        return s.toString();
    }

    private static void ratios(TxnBench.Outcome o, StringBuilder s) {
        record Pair(TxnWorkload a, TxnWorkload b, String paper) {}
        var pairs = List.of(
                new Pair(TxnWorkload.ROUTER_1P, TxnWorkload.DIRECT, "must cost no more than a plain MySQL transaction plus the router hop"),
                new Pair(TxnWorkload.ROUTER_2P, TxnWorkload.ROUTER_1P, "2 participants on 2 machines: a little under 2× one machine's rate "
                        + "(here the shards share one machine: expect < 1)"),
                new Pair(TxnWorkload.ROUTER_4P, TxnWorkload.ROUTER_2P, "4 participants 1.38× slower than 2, i.e. 0.72×"),
                new Pair(TxnWorkload.ROUTER_AUTOCOMMIT, TxnWorkload.DIRECT_AUTOCOMMIT, "the router hop for one statement"));
        var rows = new StringBuilder();
        for (Pair p : pairs) {
            var a = o.runs().get(p.a());
            var b = o.runs().get(p.b());
            if (a == null || b == null) continue;
            double tps = perRound(a, b, (x, y) -> x.result().perSecond() / y.result().perSecond());
            double p50 = perRound(a, b, (x, y) -> x.result().latencies().percentileMillis(0.5) - y.result().latencies().percentileMillis(0.5));
            rows.append(String.format(Locale.ROOT, "| %s vs %s | %.2f× | %+.2f ms | %s |%n", p.a().key, p.b().key, tps, p50, p.paper()));
        }
        if (rows.isEmpty()) return;
        s.append("Ratios (median of the per-round ratios; each round runs every workload once, in the order above):\n\n");
        s.append("| comparison | txn/s ratio | p50 latency difference | paper (Fig. 7) / expectation |\n|---|--:|--:|---|\n");
        s.append(rows).append('\n');
    }

    /** "1p must cost no more than a plain transaction plus the router hop": the hop measured on one auto-commit statement. */
    private static void routerHop(TxnBench.Outcome o, StringBuilder s) {
        var direct = o.runs().get(TxnWorkload.DIRECT);
        var one = o.runs().get(TxnWorkload.ROUTER_1P);
        var directAc = o.runs().get(TxnWorkload.DIRECT_AUTOCOMMIT);
        var routerAc = o.runs().get(TxnWorkload.ROUTER_AUTOCOMMIT);
        if (direct == null || one == null || directAc == null || routerAc == null) return;
        double hop = perRound(routerAc, directAc, (x, y) -> x.result().latencies().percentileMillis(0.5) - y.result().latencies().percentileMillis(0.5));
        double extra = perRound(one, direct, (x, y) -> x.result().latencies().percentileMillis(0.5) - y.result().latencies().percentileMillis(0.5));
        int statements = TxnWorkload.ROUTER_1P.statements + 1; // the UPDATEs and the COMMIT each cross the router
        s.append(String.format(Locale.ROOT, "Single-partition path: the router hop (p50 of an auto-commit UPDATE through the router minus "
                        + "directly) is %.2f ms; a 1-partition transaction sends %d statements through it (%d UPDATE + COMMIT), so the "
                        + "bound is direct + %d hops = +%.2f ms. Measured: 1p p50 − direct p50 = %+.2f ms (%s hops): **%s**.%n%n",
                hop, statements, TxnWorkload.ROUTER_1P.statements, statements, statements * hop, extra,
                hop > 0 ? String.format(Locale.ROOT, "%.1f", extra / hop) : "n/a",
                extra <= statements * hop ? "within the bound" : String.format(Locale.ROOT, "over the bound by %.2f ms", extra - statements * hop)));
    }

    private static void decisionLog(TxnBench.Outcome o, StringBuilder s) {
        var one = o.runs().get(TxnWorkload.ROUTER_1P);
        var lines = new ArrayList<String>();
        for (TxnWorkload w : List.of(TxnWorkload.ROUTER_2P, TxnWorkload.ROUTER_4P)) {
            var runs = o.runs().get(w);
            if (runs == null) continue;
            var c = total(runs);
            double decision = c.decision().meanMillis();
            double mean = median(runs, r -> r.result().latencies().meanMillis());
            lines.add(String.format(Locale.ROOT, "%s: %.2f ms per transaction = %.0f%% of its mean latency (%.2f ms); whole commit "
                            + "(prepare + decision + commit) %.2f ms", w.key, decision, 100 * decision / mean, mean,
                    c.prepare().meanMillis() + decision + c.commit().meanMillis()));
        }
        if (lines.isEmpty()) return;
        s.append("Cost of the decision log (the decision phase: INSERT into lutra_xa_decisions + COMMIT of the coordinator's branch, "
                + "a durable commit between the two XA phases)");
        if (one != null) s.append(String.format(Locale.ROOT, "; for scale, 1p's one-phase COMMIT takes %.2f ms", total(one).commit().meanMillis()));
        s.append(":\n");
        for (String l : lines) s.append("- ").append(l).append('\n');
    }

    // ---- small statistics -------------------------------------------------------------------------

    private interface PairMetric {
        double of(TxnBench.Run a, TxnBench.Run b);
    }

    /** Median over rounds of {@code metric(a's run, b's run)} of the same round. */
    private static double perRound(List<TxnBench.Run> a, List<TxnBench.Run> b, PairMetric metric) {
        int n = Math.min(a.size(), b.size());
        double[] values = new double[n];
        for (int i = 0; i < n; i++) values[i] = metric.of(a.get(i), b.get(i));
        return median(values);
    }

    private static TxnCounters total(List<TxnBench.Run> runs) {
        var t = TxnCounters.ZERO;
        for (var r : runs) t = t.plus(r.router());
        return t;
    }

    private static long sum(List<TxnBench.Run> runs, ToDoubleFunction<TxnBench.Run> f) {
        return (long) runs.stream().mapToDouble(f).sum();
    }

    private static double median(List<TxnBench.Run> runs, ToDoubleFunction<TxnBench.Run> f) {
        return median(runs.stream().mapToDouble(f).toArray());
    }

    private static double min(List<TxnBench.Run> runs, ToDoubleFunction<TxnBench.Run> f) {
        return runs.stream().mapToDouble(f).min().orElse(Double.NaN);
    }

    private static double max(List<TxnBench.Run> runs, ToDoubleFunction<TxnBench.Run> f) {
        return runs.stream().mapToDouble(f).max().orElse(Double.NaN);
    }

    static double median(double[] values) {
        if (values.length == 0) return Double.NaN;
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    private static String ms(double millis) {
        return Double.isNaN(millis) ? NONE : String.format(Locale.ROOT, "%.2f", millis);
    }

    private static String num(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
