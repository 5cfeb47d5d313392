package org.lutra.it.rqg;

import org.lutra.it.rqg.Query.Item;
import org.lutra.it.rqg.Query.Select;
import org.lutra.it.rqg.Shrinker.Shrunk;

import java.math.BigDecimal;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SQLancer's metamorphic oracles, run through Lutra on both sides of each comparison, so that a
 * mistake Lutra shares with the MariaDB it runs on, which a differential comparison cannot see,
 * still shows.
 *
 * <ul>
 *   <li>Ternary logic partitioning (TLP): for a predicate p, a statement's rows are the multiset union
 *   of its rows under {@code WHERE p}, {@code WHERE NOT p} and {@code WHERE p IS NULL} (a union
 *   of sets under DISTINCT or GROUP BY); the same for {@code HAVING} over groups; and for MIN, MAX,
 *   SUM and COUNT, the aggregate of the three partitions' aggregates.</li>
 *   <li>Non-optimizing reference engine construction (NoREC): {@code SELECT COUNT(*) ... WHERE p},
 *   which a planner may push down and optimize, counts the rows for which the unoptimizable
 *   {@code SELECT SUM(CASE WHEN p THEN 1 ELSE 0 END)} and {@code SELECT (p) IS TRUE} find p true.</li>
 * </ul>
 * When an oracle fails, its statements run on the reference too: one that answers differently
 * there is a differential failure (classified and shrunk as any other); if none does, MariaDB
 * breaks the oracle as well and the failure is reported as shared.
 */
public final class Oracles {
    private final Connection lutra;
    private final Connection reference;
    private final Runner runner;
    /** Per oracle variant: {checked, held, refused, errored, failed, not determined (the reference rejects the statement)}. */
    private final Map<String, int[]> counts = new TreeMap<>();
    /** Statements run through Lutra to judge the checks (their parts included). */
    private int statements;

    public Oracles(Connection lutra, Connection reference, Runner runner) {
        this.lutra = lutra;
        this.reference = reference;
        this.runner = runner;
    }

    /** TLP over WHERE (or over HAVING when {@code base} groups), with {@code p} the partitioning predicate. */
    public void tlp(Select base, Expr p) {
        boolean grouped = !base.groupBy().isEmpty() || base.items().stream().anyMatch(i -> i.expr().hasAggregate());
        String variant = grouped ? "tlp-having" : "tlp-where";
        var parts = new ArrayList<Select>();
        for (Expr part : partitions(p)) {
            parts.add(grouped ? base.withHaving(plus(base.having(), part)) : base.withWhere(plus(base.where(), part)));
        }
        boolean set = base.distinct();
        judge(variant, base, parts, (whole, pieces) -> {
            var union = new ArrayList<List<String>>();
            for (var piece : pieces) union.addAll(piece.rows());
            return Comparer.sameRows(whole.rows(), union, whole.types(), set);
        });
    }

    /** TLP of an aggregate: {@code agg} (MIN, MAX, SUM or COUNT over {@code base}'s rows) is the aggregate of its partitions' values. */
    public void tlpAggregate(Select base, String function, Expr argument, Expr p) {
        Expr call = Expr.aggregate(function + "($)", argument);
        var whole = new Select(null, false, List.of(new Item(call, null)), base.from(), base.joins(), base.where(), List.of(), List.of(),
                List.of(), 0, null, base.features());
        var parts = new ArrayList<Select>();
        for (Expr part : partitions(p)) parts.add(whole.withWhere(plus(base.where(), part)));
        judge("tlp-aggregate", whole, parts, (all, pieces) -> {
            BigDecimal expected = number(all.rows().getFirst().getFirst());
            BigDecimal combined = null;
            for (var piece : pieces) {
                BigDecimal v = number(piece.rows().getFirst().getFirst());
                if (v == null) continue;
                combined = combined == null ? v : switch (function) {
                    case "MIN" -> combined.min(v);
                    case "MAX" -> combined.max(v);
                    default -> combined.add(v);
                };
            }
            if (function.equals("COUNT") && combined == null) combined = BigDecimal.ZERO;
            return expected == null ? combined == null : combined != null && expected.compareTo(combined) == 0;
        });
    }

    /** NoREC: the optimizable count of rows where p holds against two unoptimizable ones, over {@code base}'s FROM. */
    public void norec(Select base, Expr p) {
        var where = plus(base.where(), p);
        Expr all = where.size() == 1 ? where.getFirst() : Expr.of(String.join(" AND ", where.stream().map(e -> "($)").toList()), where.toArray(Expr[]::new));
        var count = select(base, Expr.aggregate("COUNT(*)"), where);
        var sum = select(base, Expr.aggregate("SUM(CASE WHEN $ THEN 1 ELSE 0 END)", all), List.of());
        var truth = select(base, Expr.of("($) IS TRUE", all), List.of());
        judge("norec", count, List.of(sum, truth), (counted, others) -> {
            BigDecimal n = number(counted.rows().getFirst().getFirst());
            BigDecimal summed = number(others.get(0).rows().getFirst().getFirst());
            long trues = others.get(1).rows().stream().filter(r -> "1".equals(r.getFirst())).count();
            return n != null && n.compareTo(summed == null ? BigDecimal.ZERO : summed) == 0 && n.longValue() == trues;
        });
    }

    private interface Check {
        boolean holds(Outcome.Rows whole, List<Outcome.Rows> parts);
    }

    private void judge(String variant, Select whole, List<Select> parts, Check check) {
        var n = counts.computeIfAbsent(variant, v -> new int[6]);
        n[0]++;
        // a statement whose answer depends on the order rows are read in (a column neither grouped nor aggregated) may
        // answer otherwise once its HAVING holds one more condition: the reference, with ONLY_FULL_GROUP_BY, tells
        if (Comparer.notDetermined(Outcome.query(reference, whole.sql()))) {
            n[5]++;
            return;
        }
        var statements = new ArrayList<Select>();
        statements.add(whole);
        statements.addAll(parts);
        var answers = new ArrayList<Outcome.Rows>();
        for (Select s : statements) {
            this.statements++;
            Outcome o = Outcome.query(lutra, s.sql());
            if (o instanceof Outcome.Error e && e.refused()) {
                n[2]++;
                return;
            }
            if (!(o instanceof Outcome.Rows rows)) {
                // an error: a failure only where MariaDB answers (the differential judges it)
                Shrunk judged = differential(s, o);
                if (judged.verdict().failed()) {
                    n[4]++;
                    runner.account(variant, judged, runner::run);
                } else {
                    n[3]++;
                }
                return;
            }
            answers.add(rows);
        }
        if (check.holds(answers.getFirst(), answers.subList(1, answers.size()))) {
            n[1]++;
            return;
        }
        n[4]++;
        for (Select s : statements) {
            Shrunk judged = differential(s, Outcome.query(lutra, s.sql()));
            if (judged.verdict().failed()) {
                runner.account(variant, judged, runner::run);
                return;
            }
        }
        var report = new StringBuilder(variant + " fails on Lutra and on MariaDB alike (no statement answers differently):");
        for (int i = 0; i < statements.size(); i++) {
            report.append("\n  ").append(statements.get(i).sql()).append("\n    ").append(answers.get(i).toString().replace("\n", "\n    "));
        }
        runner.sharedFailure(report.toString());
    }

    private Shrunk differential(Select s, Outcome lutraOutcome) {
        Outcome r = Outcome.query(reference, s.sql());
        return new Shrunk(s, Comparer.compare(lutraOutcome, r, false), lutraOutcome, r);
    }

    private static List<Expr> partitions(Expr p) {
        return List.of(p, Expr.of("NOT ($)", p), Expr.of("($) IS NULL", p));
    }

    private static List<Expr> plus(List<Expr> terms, Expr p) {
        var out = new ArrayList<>(terms);
        out.add(p);
        return out;
    }

    private static Select select(Select base, Expr item, List<Expr> where) {
        return new Select(null, false, List.of(new Item(item, null)), base.from(), base.joins(), where, List.of(), List.of(), List.of(), 0, null,
                base.features());
    }

    private static BigDecimal number(String v) {
        if (v == null) return null;
        try {
            return new BigDecimal(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    public int checked() {
        return counts.values().stream().mapToInt(c -> c[0]).sum();
    }

    public int checked(String prefix) {
        return counts.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToInt(e -> e.getValue()[0]).sum();
    }

    @Override
    public String toString() {
        var sb = new StringBuilder(String.format("%-16s %8s %8s %8s %8s %8s %8s%n", "oracle", "checked", "held", "refused", "errored", "FAILED",
                "invalid"));
        counts.forEach((v, c) -> sb.append(String.format("%-16s %8d %8d %8d %8d %8d %8d%n", v, c[0], c[1], c[2], c[3], c[4], c[5])));
        return sb.append(statements).append(" statements through Lutra\n").toString();
    }
}
