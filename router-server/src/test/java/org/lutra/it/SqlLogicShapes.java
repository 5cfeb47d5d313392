package org.lutra.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Statements of the shapes of sqllogictest's select1–select5 suites, generated afresh: selects of
 * one table whose items and WHERE terms hold subqueries correlated with the outer row over the same
 * table ({@code (SELECT count(*) FROM t1 AS x WHERE x.b<t1.b)}, {@code EXISTS(SELECT 1 FROM t1 AS x
 * WHERE x.b<t1.b)}), and deep inner joins of ten-row tables chained by equalities with one constant
 * ({@code SELECT x33, x2 FROM t5, t3, ... WHERE b58=a39 AND a22=b60 AND ... AND a30=5}).
 */
final class SqlLogicShapes {
    /** A statement, and whether its ORDER BY orders every column (then rows compare in order). */
    record Statement(String sql, boolean ordered) {}

    private static final List<String> ITEMS = List.of(
            "a", "b", "c", "d", "e", "a-b", "b-c", "c-d", "d-e", "a+b*2", "a+b*2+c*3", "a+b*2+c*3+d*4", "a+b*2+c*3+d*4+e*5",
            "(a+b+c+d+e)/5", "abs(a)", "abs(b-c)",
            "(SELECT count(*) FROM %1$s AS x WHERE x.b<%2$s.b)",
            "(SELECT count(*) FROM %1$s AS x WHERE x.c>%2$s.c AND x.d<%2$s.d)",
            "CASE WHEN c>(SELECT avg(c) FROM %1$s) THEN a*2 ELSE b*10 END",
            "CASE WHEN a<b-3 THEN 111 WHEN a<=b THEN 222\n        WHEN a<b+3 THEN 333 ELSE 444 END",
            "CASE a+1 WHEN b THEN 111 WHEN c THEN 222\n        WHEN d THEN 333  WHEN e THEN 444 ELSE 555 END",
            "(SELECT max(e) FROM %1$s AS x WHERE x.a<%2$s.a)");
    private static final List<String> TERMS = List.of(
            "a>b", "b>c", "c>d", "d>e", "a IS NULL", "b IS NOT NULL", "coalesce(a,b,c,d,e)<>0", "c BETWEEN b-2 AND d+2",
            "d NOT BETWEEN 110 AND 150", "e+d BETWEEN a+b-10 AND c+130", "(a>b-2 AND a<b+2)", "(e>a AND e<b)",
            "(c<=d-2 OR c>=d+2)", "(e>c OR e<d)", "EXISTS(SELECT 1 FROM %1$s AS x WHERE x.b<%2$s.b)",
            "NOT EXISTS(SELECT 1 FROM %1$s AS x WHERE x.d=%2$s.c+1)", "a IN (SELECT b+1 FROM %1$s AS x WHERE x.c>%2$s.c)");

    private final Random random;

    SqlLogicShapes(long seed) {
        this.random = new Random(seed);
    }

    /**
     * A select of {@code table} (select1: ORDER BY every column; select2: no order; select3: ORDER BY some), its
     * subqueries reading {@code inner} (the same table, or another for statements across placements).
     */
    Statement correlated(String table, String inner) {
        int n = 1 + random.nextInt(7);
        var items = pick(ITEMS, n);
        var sql = new StringBuilder("SELECT ");
        for (int i = 0; i < items.size(); i++) sql.append(i == 0 ? "" : ",\n       ").append(items.get(i).formatted(inner, table));
        sql.append("\n  FROM ").append(table);
        int m = random.nextInt(4);
        if (m > 0) {
            String op = random.nextBoolean() ? "\n    OR " : "\n   AND ";
            var terms = pick(TERMS, m);
            sql.append("\n WHERE ");
            for (int i = 0; i < terms.size(); i++) sql.append(i == 0 ? "" : op).append(terms.get(i).formatted(inner, table));
        }
        var positions = new ArrayList<Integer>();
        for (int i = 1; i <= n; i++) positions.add(i);
        Collections.shuffle(positions, random);
        return switch (random.nextInt(3)) {
            case 0 -> new Statement(sql + "\n ORDER BY " + join(positions), true);
            case 1 -> new Statement(sql.toString(), false);
            default -> new Statement(sql + "\n ORDER BY " + join(positions.subList(0, 1 + random.nextInt(n))), false);
        };
    }

    /**
     * A deep join of {@code depth} of the tables {@code t1..t<tables>} (columns aN, bN, xN, aN = 1..10), chained by
     * equalities between an a and a b column, one a pinned to a constant.
     */
    Statement deepJoin(int tables, int depth) {
        var numbers = new ArrayList<Integer>();
        for (int i = 1; i <= tables; i++) numbers.add(i);
        Collections.shuffle(numbers, random);
        var chosen = new ArrayList<>(numbers.subList(0, depth));
        var chain = new ArrayList<>(chosen);
        Collections.shuffle(chain, random);
        var terms = new ArrayList<String>();
        terms.add("a" + chain.getLast() + "=" + (1 + random.nextInt(10)));
        for (int i = 1; i < chain.size(); i++) {
            int a = chain.get(i);
            int b = chain.get(i - 1);
            terms.add(random.nextBoolean() ? "a" + a + "=b" + b : "b" + b + "=a" + a);
        }
        Collections.shuffle(terms, random);
        var from = new ArrayList<>(chain);
        Collections.shuffle(from, random);
        return new Statement("SELECT " + String.join(", ", chosen.stream().map(t -> "x" + t).toList())
                + "\n  FROM " + String.join(", ", from.stream().map(t -> "t" + t).toList())
                + "\n WHERE " + String.join("\n   AND ", terms), false);
    }

    /** Rows of select1 (every value set) or select2/3 (about one in ten NULL): 30 rows, columns a..e, values 100..249. */
    List<String> fiveColumnRows(boolean nulls) {
        var rows = new ArrayList<String>();
        for (int i = 0; i < 30; i++) {
            var values = new ArrayList<String>();
            for (int j = 0; j < 5; j++) values.add(nulls && random.nextInt(10) == 0 ? "NULL" : String.valueOf(i * 5 + 100 + j));
            Collections.shuffle(values, random);
            rows.add("(" + String.join(",", values) + ")");
        }
        return rows;
    }

    /** The ten rows of select5's table {@code n}: aN 1..10, bN a permutation of them, xN a label. */
    List<String> tenRows(int n) {
        var b = new ArrayList<Integer>();
        for (int i = 1; i <= 10; i++) b.add(i);
        Collections.shuffle(b, random);
        var rows = new ArrayList<String>();
        for (int a = 1; a <= 10; a++) rows.add("(" + a + "," + b.get(a - 1) + ",'table t" + n + " row " + a + "')");
        return rows;
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    private List<String> pick(List<String> from, int n) {
        var copy = new ArrayList<>(from);
        Collections.shuffle(copy, random);
        return copy.subList(0, Math.min(n, copy.size()));
    }

    private static String join(List<Integer> positions) {
        return String.join(",", positions.stream().map(String::valueOf).toList());
    }
}
