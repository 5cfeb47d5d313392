package org.lutra.it.rqg;

import org.lutra.it.rqg.RqgSchema.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Random expressions of MySQL's SELECT over the columns in scope, of every type the schema has,
 * freely combined: constants and NULL, unary and binary operators, CASE, COALESCE, IF, IFNULL,
 * NULLIF, string functions, comparisons across types, IN lists, BETWEEN, LIKE, three-valued logic,
 * aggregates (DISTINCT ones too, of columns, expressions and constants) and subqueries. Every
 * expression is deterministic: no clocks, no randomness, no value a tie could choose, and no
 * text functions that make two values equal under the case-insensitive collation differ in text.
 */
final class Exprs {
    /** A column as the statement names it ({@code cor0.a} or {@code a}) and its type. */
    record Ref(String sql, Type type) {}

    /** Subqueries for expressions, supplied by the statement generator (it knows the tables). */
    interface Subqueries {
        /** A scalar subquery, correlated with {@code scope} or not. */
        Expr scalar(List<Ref> scope);

        /** A predicate with a subquery: EXISTS, IN, a comparison with ANY or ALL. */
        Expr predicate(List<Ref> scope);
    }

    private final Random random;
    private final Set<String> features;
    private final Subqueries subqueries;

    Exprs(Random random, Set<String> features, Subqueries subqueries) {
        this.random = random;
        this.features = features;
        this.subqueries = subqueries;
    }

    // ---- values ----

    /** A value of any type. */
    Expr value(List<Ref> scope, int depth) {
        return switch (random.nextInt(10)) {
            case 0, 1, 2, 3, 4 -> number(scope, depth);
            case 5, 6 -> string(scope, depth);
            case 7 -> date(scope, depth);
            default -> depth > 0 && random.nextBoolean() ? Expr.of("($)", predicate(scope, depth - 1)) : number(scope, depth);
        };
    }

    Expr number(List<Ref> scope, int depth) {
        if (depth <= 0 || random.nextInt(10) < 4) return numberLeaf(scope);
        int d = depth - 1;
        return switch (random.nextInt(24)) {
            case 0, 1 -> unary(number(scope, d));
            case 2, 3, 4 -> Expr.of("$ " + pick("+", "-", "*") + " $", number(scope, d), number(scope, d));
            case 5 -> Expr.of("$ " + pick("/", "DIV", "%") + " $", number(scope, d), number(scope, d));
            case 6 -> Expr.of("ABS($)", number(scope, d));
            case 7 -> feature("coalesce", Expr.of("COALESCE($, $)", number(scope, d), number(scope, d)));
            case 8 -> feature("coalesce", Expr.of("IFNULL($, $)", number(scope, d), number(scope, d)));
            case 9 -> feature("coalesce", Expr.of("NULLIF($, $)", number(scope, d), number(scope, d)));
            case 10 -> feature("if", Expr.of("IF($, $, $)", predicate(scope, d), number(scope, d), number(scope, d)));
            case 11 -> feature("case", Expr.of("CASE WHEN $ THEN $ ELSE $ END", predicate(scope, d), number(scope, d), number(scope, d)));
            case 12 -> feature("case", Expr.of("CASE $ WHEN $ THEN $ WHEN $ THEN $ END", number(scope, d), numberLeaf(scope),
                    number(scope, d), numberLeaf(scope), number(scope, d)));
            case 13 -> Expr.of(pick("GREATEST", "LEAST") + "($, $)", number(scope, d), number(scope, d));
            case 14 -> feature("string-function", Expr.of(pick("LENGTH", "CHAR_LENGTH") + "($)", string(scope, d)));
            case 15 -> Expr.of("CAST($ AS SIGNED)", number(scope, d));
            case 16 -> Expr.of(pick("ROUND($, 1)", "FLOOR($)", "CEILING($)", "SIGN($)", "TRUNCATE($, 0)"), number(scope, d));
            case 17 -> Expr.of("($)", number(scope, d));
            case 18 -> feature("string-function", Expr.of("LOCATE($, $)", stringLeaf(scope), string(scope, d)));
            case 19 -> Expr.of(pick("YEAR($)", "MONTH($)", "DAYOFMONTH($)", "DATEDIFF($, DATE '2024-01-01')"), date(scope, d));
            case 20 -> subqueries == null ? numberLeaf(scope) : feature("scalar-subquery", subqueries.scalar(scope));
            default -> numberLeaf(scope);
        };
    }

    private Expr unary(Expr e) {
        features.add("unary");
        return Expr.of(pick("- $", "+ $", "-($)", "+ - $"), e);
    }

    Expr numberLeaf(List<Ref> scope) {
        var columns = columns(scope, Type.INT, Type.DECIMAL);
        int r = random.nextInt(10);
        if (r < 6 && !columns.isEmpty()) return Expr.leaf(columns.get(random.nextInt(columns.size())).sql());
        if (r == 9) return nullLiteral();
        features.add("constant");
        return Expr.leaf(random.nextInt(5) == 0 ? (random.nextInt(200) - 100) / 10.0 + "" : String.valueOf(random.nextInt(199) - 99));
    }

    Expr string(List<Ref> scope, int depth) {
        if (depth <= 0 || random.nextInt(10) < 5) return stringLeaf(scope);
        int d = depth - 1;
        features.add("string-function");
        return switch (random.nextInt(12)) {
            case 0, 1 -> Expr.of("CONCAT($, $)", string(scope, d), value(scope, d));
            // only cuts that leave no two values of the pool equal under the collation but different in text
            case 2 -> Expr.of("SUBSTRING($, " + (1 + random.nextInt(3)) + ")", string(scope, d));
            case 3 -> Expr.of("SUBSTRING($, 2, 3)", string(scope, d));
            case 4 -> Expr.of("TRIM($)", string(scope, d));
            case 5 -> Expr.of("REPLACE($, 'a', 'o')", string(scope, d));
            case 6 -> Expr.of("LEFT($, 2)", string(scope, d));
            case 7 -> feature("coalesce", Expr.of("COALESCE($, $)", string(scope, d), string(scope, d)));
            case 8 -> feature("if", Expr.of("IF($, $, $)", predicate(scope, d), string(scope, d), string(scope, d)));
            case 9 -> feature("case", Expr.of("CASE WHEN $ THEN $ ELSE $ END", predicate(scope, d), string(scope, d), string(scope, d)));
            case 10 -> Expr.of("CAST($ AS CHAR)", number(scope, d));
            default -> Expr.of("REVERSE($)", string(scope, d));
        };
    }

    Expr stringLeaf(List<Ref> scope) {
        var columns = columns(scope, Type.STRING);
        int r = random.nextInt(10);
        if (r < 6 && !columns.isEmpty()) return Expr.leaf(columns.get(random.nextInt(columns.size())).sql());
        if (r == 9) return nullLiteral();
        features.add("constant");
        return Expr.leaf(RqgSchema.quote(RqgSchema.STRINGS.get(random.nextInt(RqgSchema.STRINGS.size()))));
    }

    Expr date(List<Ref> scope, int depth) {
        var columns = columns(scope, Type.DATE);
        int r = random.nextInt(10);
        if (depth > 0 && r < 2) return Expr.of("DATE_ADD($, INTERVAL " + (random.nextInt(21) - 10) + " DAY)", date(scope, depth - 1));
        if (depth > 0 && r == 2) return feature("coalesce", Expr.of("COALESCE($, $)", date(scope, depth - 1), date(scope, depth - 1)));
        if (r < 8 && !columns.isEmpty()) return Expr.leaf(columns.get(random.nextInt(columns.size())).sql());
        if (r == 9) return nullLiteral();
        features.add("constant");
        return Expr.leaf("DATE '2024-0" + (1 + random.nextInt(3)) + "-" + (10 + random.nextInt(5)) + "'");
    }

    private Expr nullLiteral() {
        features.add("null");
        return Expr.leaf("NULL");
    }

    // ---- predicates ----

    Expr predicate(List<Ref> scope, int depth) {
        int d = Math.max(0, depth - 1);
        int r = random.nextInt(depth > 0 ? 26 : 16);
        return switch (r) {
            case 0, 1, 2, 3 -> comparison(scope, d);
            case 4 -> Expr.of("$ IS " + (random.nextBoolean() ? "" : "NOT ") + "NULL", value(scope, d));
            case 5 -> feature("between", Expr.of("$ " + (random.nextInt(4) == 0 ? "NOT " : "") + "BETWEEN $ AND $",
                    number(scope, d), numberLeaf(scope), numberLeaf(scope)));
            case 6, 7 -> inList(scope, d);
            case 8 -> feature("like", Expr.of("$ " + (random.nextInt(4) == 0 ? "NOT " : "") + "LIKE "
                    + pick("'a%'", "'%E%'", "'b\\%%'", "'_i%'", "'%'", "''", "'o''%'", "'%x'"), string(scope, d)));
            case 9 -> feature("cross-type", Expr.of("$ " + comparator() + " $", string(scope, d), number(scope, d)));
            case 10 -> feature("cross-type", Expr.of("$ " + comparator() + " $", date(scope, d), pick(List.of(
                    Expr.leaf("'2024-02-1" + random.nextInt(5) + "'"), Expr.leaf("2024021" + random.nextInt(5)), number(scope, d)))));
            case 11 -> Expr.leaf(pick("TRUE", "FALSE", "NULL", "1", "0"));
            case 12 -> feature("case-insensitive", Expr.of(pick("LOWER", "UPPER") + "($) " + pick("=", "<>", "<") + " $",
                    string(scope, d), stringLeaf(scope)));
            case 13 -> Expr.of("$", number(scope, d));
            case 14, 15 -> comparison(scope, d);
            case 16 -> feature("not", Expr.of("NOT ($)", predicate(scope, d)));
            case 17, 18 -> Expr.of("($ AND $)", predicate(scope, d), predicate(scope, d));
            case 19, 20 -> Expr.of("($ OR $)", predicate(scope, d), predicate(scope, d));
            case 21 -> Expr.of("($ XOR $)", predicate(scope, d), predicate(scope, d));
            case 22 -> feature("is-true", Expr.of("($) IS " + pick("TRUE", "NOT TRUE", "FALSE", "NOT FALSE", "UNKNOWN"), predicate(scope, d)));
            case 23 -> Expr.of("$ <=> $", value(scope, d), value(scope, d));
            default -> subqueries == null ? comparison(scope, d) : feature("subquery-predicate", subqueries.predicate(scope));
        };
    }

    private Expr comparison(List<Ref> scope, int depth) {
        return switch (random.nextInt(3)) {
            case 0 -> Expr.of("$ " + comparator() + " $", string(scope, depth), string(scope, depth));
            default -> Expr.of("$ " + comparator() + " $", number(scope, depth), number(scope, depth));
        };
    }

    private Expr inList(List<Ref> scope, int depth) {
        features.add("in-list");
        boolean text = random.nextInt(3) == 0;
        var parts = new ArrayList<Expr>();
        parts.add(text ? string(scope, depth) : number(scope, depth));
        var sb = new StringBuilder("$ " + (random.nextInt(4) == 0 ? "NOT " : "") + "IN (");
        for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
            sb.append(i > 0 ? ", $" : "$");
            parts.add(random.nextInt(8) == 0 ? nullLiteral() : text ? stringLeaf(scope) : numberLeaf(scope));
        }
        return Expr.of(sb.append(')').toString(), parts.toArray(Expr[]::new));
    }

    private String comparator() {
        return pick("=", "<>", "<", "<=", ">", ">=", "!=");
    }

    // ---- aggregates ----

    /**
     * An expression over aggregates, for a statement that groups (by {@code keys}, maybe none): an
     * aggregate, or aggregates combined with constants and the group keys.
     */
    Expr aggregated(List<Ref> scope, List<Expr> keys, int depth) {
        if (depth <= 0 || random.nextInt(10) < 5) return aggregate(scope);
        int d = depth - 1;
        Supplier<Expr> other = () -> switch (random.nextInt(4)) {
            case 0 -> aggregate(scope);
            case 1 -> keys.isEmpty() ? numberLeaf(List.of()) : pick(keys);
            default -> numberLeaf(List.of());
        };
        return switch (random.nextInt(8)) {
            case 0 -> unary(aggregated(scope, keys, d));
            case 1, 2 -> Expr.of("$ " + pick("+", "-", "*") + " $", aggregated(scope, keys, d), other.get());
            case 3 -> Expr.of("$ " + pick("+", "-", "*") + " $", other.get(), aggregated(scope, keys, d));
            case 4 -> feature("coalesce", Expr.of("COALESCE($, $)", aggregated(scope, keys, d), numberLeaf(List.of())));
            case 5 -> feature("case", Expr.of("CASE WHEN $ " + comparator() + " $ THEN $ ELSE $ END", aggregated(scope, keys, d),
                    numberLeaf(List.of()), other.get(), other.get()));
            case 6 -> Expr.of("($)", aggregated(scope, keys, d));
            default -> Expr.of("$ / $", aggregated(scope, keys, d), aggregate(scope));
        };
    }

    /** One aggregate call: of a column, of an expression, or of a constant (DISTINCT or not). */
    Expr aggregate(List<Ref> scope) {
        features.add("aggregate");
        int r = random.nextInt(10);
        List<Ref> argumentScope = r < 2 ? List.of() : scope; // an aggregate of constants: COUNT(DISTINCT 62), SUM(-5)
        if (r < 2) features.add("aggregate-of-constant");
        boolean distinct = random.nextInt(4) == 0;
        if (distinct) features.add("distinct-aggregate");
        String d = distinct ? "DISTINCT " : "";
        return switch (random.nextInt(8)) {
            case 0 -> Expr.aggregate(distinct ? "COUNT(DISTINCT $)" : "COUNT(*)", distinct ? new Expr[]{value(argumentScope, 1)} : new Expr[0]);
            case 1 -> Expr.aggregate("COUNT(" + d + "$)", value(argumentScope, 1));
            case 2, 3 -> Expr.aggregate("SUM(" + d + "$)", number(argumentScope, 1));
            case 4 -> Expr.aggregate("AVG(" + d + "$)", number(argumentScope, 1));
            case 5 -> Expr.aggregate(pick("MIN", "MAX") + "(" + d + "$)", number(argumentScope, 1));
            case 6 -> Expr.aggregate(pick("MIN", "MAX") + "(" + d + "$)", random.nextBoolean() ? stringLeaf(argumentScope) : date(argumentScope, 1));
            default -> Expr.aggregate(pick("BIT_OR", "BIT_AND", "BIT_XOR") + "($)", number(argumentScope, 0));
        };
    }

    // ---- helpers ----

    private static List<Ref> columns(List<Ref> scope, Type... types) {
        var out = new ArrayList<Ref>();
        for (Ref r : scope) for (Type t : types) if (r.type() == t) out.add(r);
        return out;
    }

    private Expr feature(String name, Expr e) {
        features.add(name);
        return e;
    }

    String pick(String... options) {
        return options[random.nextInt(options.length)];
    }

    <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }
}
