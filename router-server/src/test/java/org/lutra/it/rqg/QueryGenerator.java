package org.lutra.it.rqg;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Random statements over {@link RqgSchema}'s tables, weighted over the features issue 9 lists.
 * Every ORDER BY ends in terms that make it total (primary keys, group keys, or all positions), and
 * LIMIT only ever follows such an ORDER BY, so every answer has exactly one right form.
 */
public final class QueryGenerator {
    private static final List<String> COLUMNS = List.of("id", "k", "a", "d", "s", "dt");
    private static final List<String> NULLABLE = List.of("k", "a", "d", "s", "dt");
    private static final List<String> SELECT_AGGREGATES = List.of("COUNT(*)", "COUNT(%s)", "SUM(%s)", "MIN(%s)", "MAX(%s)", "AVG(%s)", "COUNT(DISTINCT %s)");

    private final Random random;
    private Set<String> features;
    private int names;

    public QueryGenerator(long seed) {
        this.random = new Random(seed);
    }

    public Query next() {
        features = new LinkedHashSet<>();
        names = 0;
        int r = random.nextInt(100);
        if (r < 22) return scan();
        if (r < 29) return aggregate();
        if (r < 40) return groupBy();
        if (r < 45) return distinct();
        if (r < 51) return window();
        if (r < 57) return union();
        if (r < 64) return derivedOrCte();
        if (r < 78) return join();
        if (r < 90) return subquery();
        return dml();
    }

    // ---- statement shapes ----

    private Query.Select scan() {
        String table = table();
        String alias = random.nextBoolean() ? "t" : null;
        features.add(routing(table) == null ? "scan-replicated" : "scan");
        var items = new ArrayList<String>();
        if (random.nextInt(8) == 0) {
            items.add("*");
        } else {
            for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) items.add(item(alias));
        }
        var where = where(alias, table, 3);
        var order = new ArrayList<String>();
        int tie = 0;
        String limit = null;
        if (random.nextInt(2) == 0) {
            features.add("order-by");
            for (int i = 0, n = random.nextInt(3); i < n; i++) order.add(orderTerm(alias, items));
            order.add(col(alias, "id") + (random.nextBoolean() ? " DESC" : ""));
            tie = 1;
            limit = maybeLimit();
        }
        return new Query.Select(null, false, items, from(table, alias), List.of(), where, List.of(), List.of(), order, tie, limit, done());
    }

    private Query.Select aggregate() {
        String table = table();
        String alias = random.nextBoolean() ? "t" : null;
        features.add("aggregate");
        var items = new ArrayList<String>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) items.add(aggregateItem(alias));
        return new Query.Select(null, false, items, from(table, alias), List.of(), where(alias, table, 2), List.of(), List.of(),
                List.of(), 0, null, done());
    }

    private Query.Select groupBy() {
        String table = table();
        String alias = random.nextBoolean() ? "t" : null;
        var keys = new ArrayList<String>();
        for (String c : pick(List.of("id", "k", "a", "d", "s", "dt"), 1 + random.nextInt(2))) keys.add(col(alias, c));
        boolean onRouting = keys.stream().anyMatch(k -> k.endsWith(String.valueOf(routing(table))));
        features.add(onRouting ? "group-by-routing" : "group-by");
        var items = new ArrayList<>(keys);
        var aggregates = new ArrayList<String>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
            String a = aggregateExpression(alias);
            aggregates.add(a);
            items.add(random.nextBoolean() ? a + " AS g" + i : a);
        }
        if (random.nextBoolean()) java.util.Collections.shuffle(items, random);
        var having = new ArrayList<String>();
        if (random.nextInt(3) == 0) {
            features.add("having");
            having.add(switch (random.nextInt(3)) {
                case 0 -> "COUNT(*) > " + random.nextInt(3);
                case 1 -> "SUM(" + col(alias, "a") + ") IS NOT NULL";
                default -> "MAX(" + col(alias, "d") + ") >= " + (random.nextInt(40) - 20);
            });
        }
        var order = new ArrayList<String>();
        int tie = 0;
        String limit = null;
        if (random.nextBoolean()) {
            features.add("order-by-aggregate");
            order.add(aggregates.get(random.nextInt(aggregates.size())) + dir());
            for (String k : keys) order.add(k + dir());
            tie = keys.size();
            limit = maybeLimit();
        }
        return new Query.Select(null, false, items, from(table, alias), List.of(), where(alias, table, 2), keys, having, order, tie, limit,
                done());
    }

    private Query.Select distinct() {
        String table = table();
        String alias = random.nextBoolean() ? "t" : null;
        features.add("distinct");
        var items = new ArrayList<String>();
        for (String c : pick(NULLABLE, 1 + random.nextInt(2))) items.add(col(alias, c));
        var order = new ArrayList<String>();
        String limit = null;
        if (random.nextBoolean()) {
            features.add("order-by");
            for (int i = 1; i <= items.size(); i++) order.add(i + dir());
            limit = maybeLimit();
        }
        return new Query.Select(null, true, items, from(table, alias), List.of(), where(alias, table, 2), List.of(), List.of(), order,
                order.size(), limit, done());
    }

    private Query.Select window() {
        String table = table();
        String alias = random.nextBoolean() ? "t" : null;
        features.add("window");
        String id = col(alias, "id");
        String part = random.nextBoolean() ? "PARTITION BY " + col(alias, pick(List.of("a", "k", "s"), 1).getFirst()) + " " : "";
        String fn = switch (random.nextInt(6)) {
            case 0 -> "ROW_NUMBER() OVER (" + part + "ORDER BY " + id + ")";
            case 1 -> "RANK() OVER (" + part + "ORDER BY " + col(alias, "a") + ")";
            case 2 -> "SUM(" + col(alias, "d") + ") OVER (" + part.strip() + ")";
            case 3 -> "COUNT(*) OVER (" + part.strip() + ")";
            case 4 -> "LAG(" + col(alias, "a") + ") OVER (" + part + "ORDER BY " + id + ")";
            default -> "MAX(" + col(alias, "a") + ") OVER (" + part + "ORDER BY " + id + ")";
        };
        var items = new ArrayList<>(List.of(id, fn + " AS w"));
        if (random.nextBoolean()) items.add(1, col(alias, "a"));
        var order = new ArrayList<String>();
        String limit = null;
        if (random.nextBoolean()) {
            order.add(id);
            limit = maybeLimit();
        }
        return new Query.Select(null, false, items, from(table, alias), List.of(), where(alias, table, 1), List.of(), List.of(), order,
                order.size(), limit, done());
    }

    private Query union() {
        boolean all = random.nextBoolean();
        features.add(all ? "union-all" : "union");
        var columns = pick(List.of("k", "a", "d", "s", "dt"), 2);
        var parts = new ArrayList<Query.Select>();
        for (int i = 0, n = 2 + random.nextInt(2); i < n; i++) {
            String table = table();
            parts.add(new Query.Select(null, false, List.of(columns.get(0), columns.get(1)), table, List.of(), where(null, table, 2),
                    List.of(), List.of(), List.of(), 0, null, Set.of()));
        }
        String order = null, limit = null;
        if (random.nextBoolean()) {
            order = random.nextBoolean() ? "1" + dir() + ", 2" + dir() : "2" + dir() + ", 1" + dir();
            limit = maybeLimit();
        }
        return new Query.Union(parts, all, order, limit, done());
    }

    private Query.Select derivedOrCte() {
        String table = table();
        boolean cte = random.nextBoolean();
        features.add(cte ? "cte" : "derived");
        var inner = new Query.Select(null, false, List.of("id AS c0", "a AS c1", "s AS c2", "d AS c3"), table, List.of(),
                where(null, table, 2), List.of(), List.of(), List.of(), 0, null, Set.of());
        // a CTE may shadow a real table's name: the statement must read the CTE, not the table
        String name = cte && random.nextInt(4) == 0 ? "tp" : "x";
        if (!name.equals("x")) features.add("cte-shadowing-table");
        String with = cte ? "WITH " + name + " AS (" + inner.sql() + ")" : null;
        String from = cte ? (name.equals("x") ? "x" : name + " AS x") : "(" + inner.sql() + ") AS x";
        var where = new ArrayList<String>();
        if (random.nextBoolean()) where.add("x.c1 " + pick(List.of("=", "<", ">=", "<>"), 1).getFirst() + " " + (random.nextInt(10) - 2));
        if (random.nextBoolean()) {
            var items = List.of("x.c1", "COUNT(*)", "SUM(x.c3) AS sd");
            return new Query.Select(with, false, items, from, List.of(), where, List.of("x.c1"), List.of(), List.of("x.c1"), 1, null,
                    done());
        }
        var order = new ArrayList<String>();
        String limit = null;
        if (random.nextBoolean()) {
            order.add("x.c2" + dir());
            order.add("x.c0" + dir());
            limit = maybeLimit();
        }
        return new Query.Select(with, false, List.of("x.c0", "x.c2", "x.c3"), from, List.of(), where, List.of(), List.of(), order,
                order.isEmpty() ? 0 : 1, limit, done());
    }

    private Query.Select join() {
        String left, right, on;
        int kind = random.nextInt(4);
        switch (kind) {
            case 0 -> { left = "tl"; right = "tc"; on = "t2.k = t1.id"; features.add("join-colocated"); }
            case 1 -> { left = table(); right = "tp"; on = "t2.id = t1." + pick(List.of("a", "k"), 1).getFirst(); features.add("join-replicated"); }
            case 2 -> {
                left = table(); right = table();
                String c = pick(List.of("a", "k", "s"), 1).getFirst();
                on = "t2." + c + " = t1." + c;
                features.add("join-unrelated");
            }
            default -> { left = table(); right = table(); on = null; features.add("cross-join"); }
        }
        var joins = new ArrayList<String>();
        String type = on == null ? "CROSS JOIN" : random.nextInt(3) == 0 ? "LEFT JOIN" : "JOIN";
        if (type.equals("LEFT JOIN")) features.add("left-join");
        joins.add(type + " " + right + " t2" + (on == null ? "" : " ON " + on));
        var where = new ArrayList<String>();
        if (on == null) {
            where.add("t1.id < " + (2 + random.nextInt(6)));
            where.add("t2.id < " + (2 + random.nextInt(6)));
        }
        boolean three = kind == 0 && random.nextInt(4) == 0;
        if (three) joins.add("LEFT JOIN tp t3 ON t3.id = t2.a");
        where.addAll(where("t1", left, 2));
        if (random.nextBoolean()) where.addAll(where("t2", right, 1));
        if (random.nextInt(4) == 0) {
            features.add("join-group-by");
            var items = List.of("t1.a", "COUNT(*)", "SUM(t2.d) AS sd", "COUNT(t2.id)");
            return new Query.Select(null, false, items, left + " t1", joins, where, List.of("t1.a"), List.of(), List.of("t1.a"), 1, null,
                    done());
        }
        var items = new ArrayList<>(List.of("t1.id", "t2.id AS id2"));
        for (int i = 0, n = random.nextInt(3); i < n; i++) items.add(col(random.nextBoolean() ? "t1" : "t2", pick(NULLABLE, 1).getFirst()));
        if (three) items.add("t3.s AS s3");
        var order = new ArrayList<String>();
        int tie = 0;
        String limit = null;
        if (random.nextBoolean()) {
            features.add("order-by");
            if (random.nextBoolean()) order.add(col("t2", pick(NULLABLE, 1).getFirst()) + dir());
            order.add("t1.id" + dir());
            order.add("t2.id" + dir());
            tie = 2;
            if (three) { order.add("t3.id"); tie = 3; }
            limit = maybeLimit();
        }
        return new Query.Select(null, false, items, left + " t1", joins, where, List.of(), List.of(), order, tie, limit, done());
    }

    private Query.Select subquery() {
        String table = table(), inner = table();
        var items = new ArrayList<>(List.of("t1.id", col("t1", pick(NULLABLE, 1).getFirst())));
        var where = new ArrayList<>(where("t1", table, 1));
        String innerWhere = String.join(" AND ", where("t2", inner, 1));
        String and = innerWhere.isEmpty() ? "" : " AND " + innerWhere;
        String plainWhere = innerWhere.isEmpty() ? "" : " WHERE " + innerWhere;
        switch (random.nextInt(7)) {
            case 0 -> { features.add("subquery-in"); where.add("t1.a IN (SELECT t2.a FROM " + inner + " t2" + plainWhere + ")"); }
            case 1 -> { features.add("subquery-not-in"); where.add("t1.a NOT IN (SELECT t2.a FROM " + inner + " t2 WHERE t2.a IS NOT NULL" + and + ")"); }
            case 2 -> { features.add("exists-correlated"); where.add((random.nextBoolean() ? "" : "NOT ") + "EXISTS (SELECT 1 FROM " + inner + " t2 WHERE t2.k = t1.id" + and + ")"); }
            case 3 -> { features.add("scalar-subquery"); where.add("t1.a >= (SELECT " + pick(List.of("MIN", "MAX", "AVG"), 1).getFirst() + "(t2.a) FROM " + inner + " t2" + plainWhere + ")"); }
            case 4 -> { features.add("scalar-subquery-correlated"); items.add("(SELECT COUNT(*) FROM " + inner + " t2 WHERE t2.k = t1.id) AS n"); }
            case 5 -> { features.add("subquery-in-correlated"); where.add("t1.a IN (SELECT t2.a FROM " + inner + " t2 WHERE t2.k = t1.k)"); }
            default -> { features.add("subquery-in-routing"); where.add(col("t1", "id") + " IN (SELECT t2.k FROM " + inner + " t2" + plainWhere + ")"); }
        }
        var order = new ArrayList<String>();
        String limit = null;
        if (random.nextBoolean()) {
            order.add("t1.id" + dir());
            limit = maybeLimit();
        }
        return new Query.Select(null, false, items, table + " t1", List.of(), where, List.of(), List.of(), order, order.size(), limit,
                done());
    }

    private Query.Dml dml() {
        String table = table();
        String head;
        if (random.nextBoolean()) {
            features.add("update");
            String set = switch (random.nextInt(5)) {
                case 0 -> "a = a + 1";
                case 1 -> "d = NULL, s = 'upd'";
                case 2 -> "dt = '2024-06-01', a = " + random.nextInt(5);
                case 3 -> "k = k + 1";
                default -> "d = d * 2";
            };
            head = "UPDATE " + table + " SET " + set;
        } else {
            features.add("delete");
            head = "DELETE FROM " + table;
        }
        var where = new ArrayList<>(where(null, table, 2));
        if (random.nextInt(3) == 0) {
            features.add("dml-subquery");
            String other = table;
            while (other.equals(table)) other = table();
            where.add(random.nextBoolean()
                    ? "a IN (SELECT " + other + ".a FROM " + other + " WHERE " + other + ".id < " + (3 + random.nextInt(15)) + ")"
                    : "EXISTS (SELECT 1 FROM " + other + " WHERE " + other + ".k = " + table + ".id)");
        }
        return new Query.Dml(head, table, where, done());
    }

    /** The features in the order they were added: the first names the statement's shape. */
    private Set<String> done() {
        return java.util.Collections.unmodifiableSet(new LinkedHashSet<>(features));
    }

    // ---- parts ----

    private List<String> where(String alias, String table, int max) {
        var out = new ArrayList<String>();
        for (int i = 0, n = random.nextInt(max + 1); i < n; i++) out.add(predicate(alias, table, 2));
        return out;
    }

    private String predicate(String alias, String table, int depth) {
        String routing = routing(table);
        int r = random.nextInt(depth > 0 ? 14 : 11);
        String c = random.nextInt(4) == 0 && routing != null ? routing : pick(COLUMNS, 1).getFirst();
        if (routing != null && c.equals(routing)) features.add("where-routing");
        String x = col(alias, c);
        return switch (r) {
            case 0, 1 -> x + " = " + literal(c);
            case 2 -> x + " " + pick(List.of("<", "<=", ">", ">=", "<>"), 1).getFirst() + " " + literal(c);
            case 3 -> {
                String lo = literal(c), hi = literal(c);
                yield x + (random.nextInt(4) == 0 ? " NOT" : "") + " BETWEEN " + lo + " AND " + hi;
            }
            case 4, 5 -> {
                var vs = new ArrayList<String>();
                for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) vs.add(literal(c));
                if (random.nextInt(6) == 0) vs.add("NULL");
                yield x + (random.nextInt(5) == 0 ? " NOT" : "") + " IN (" + String.join(", ", vs) + ")";
            }
            case 6 -> x + (random.nextBoolean() ? " IS NULL" : " IS NOT NULL");
            case 7 -> col(alias, "s") + (random.nextInt(4) == 0 ? " NOT" : "") + " LIKE "
                    + pick(List.of("'a%'", "'%E%'", "'b\\%%'", "'_i%'", "'%'", "''", "'O''%'"), 1).getFirst();
            case 8 -> col(alias, "a") + " + " + col(alias, "k") + " > " + random.nextInt(30);
            case 9 -> "COALESCE(" + col(alias, "a") + ", -1) < " + random.nextInt(6);
            case 10 -> col(alias, "dt") + " >= " + literal("dt");
            case 11 -> "NOT (" + predicate(alias, table, depth - 1) + ")";
            default -> "(" + predicate(alias, table, depth - 1) + " OR " + predicate(alias, table, depth - 1) + ")";
        };
    }

    private String literal(String column) {
        return switch (column) {
            case "id", "k" -> String.valueOf(random.nextInt(62));
            case "a" -> String.valueOf(random.nextInt(12) - 3);
            case "d" -> (random.nextInt(41) - 20) * 5 / 2 + (random.nextBoolean() ? ".5" : ".25");
            case "s" -> {
                String s = RqgSchema.STRINGS.get(random.nextInt(RqgSchema.STRINGS.size()));
                yield RqgSchema.quote(random.nextBoolean() ? s.toUpperCase(Locale.ROOT) : s);
            }
            default -> "'2024-0" + (1 + random.nextInt(3)) + "-" + (10 + random.nextInt(5)) + "'";
        };
    }

    private String item(String alias) {
        int r = random.nextInt(10);
        if (r < 6) return col(alias, pick(COLUMNS, 1).getFirst());
        String e = switch (r) {
            case 6 -> col(alias, "a") + " + " + col(alias, "k");
            case 7 -> col(alias, "d") + " * 2";
            case 8 -> "CONCAT(" + col(alias, "s") + ", '-')";
            default -> "COALESCE(" + col(alias, "a") + ", 0)";
        };
        features.add("expression");
        return random.nextInt(10) < 7 ? e + " AS e" + names++ : e;
    }

    private String orderTerm(String alias, List<String> items) {
        int r = random.nextInt(10);
        if (r < 2 && !items.contains("*")) {
            features.add("order-by-position");
            return (1 + random.nextInt(items.size())) + dir();
        }
        if (r < 3) {
            features.add("order-by-expression");
            return "COALESCE(" + col(alias, "a") + ", 100) - " + col(alias, "id") + " % 3" + dir();
        }
        return col(alias, pick(NULLABLE, 1).getFirst()) + dir();
    }

    private String aggregateItem(String alias) {
        String a = aggregateExpression(alias);
        return random.nextBoolean() ? a + " AS g" + names++ : a;
    }

    private String aggregateExpression(String alias) {
        String f = SELECT_AGGREGATES.get(random.nextInt(SELECT_AGGREGATES.size()));
        if (f.contains("DISTINCT")) features.add("count-distinct");
        String c = f.startsWith("SUM") || f.startsWith("AVG") ? pick(List.of("a", "d", "k"), 1).getFirst() : pick(COLUMNS, 1).getFirst();
        return f.formatted(col(alias, c));
    }

    private String maybeLimit() {
        int r = random.nextInt(5);
        if (r < 2) return null;
        features.add(r == 4 ? "limit-offset" : "limit");
        return r == 4 ? (random.nextInt(6) + " OFFSET " + random.nextInt(8)) : String.valueOf(random.nextInt(8));
    }

    private String dir() {
        return random.nextBoolean() ? "" : random.nextBoolean() ? " DESC" : " ASC";
    }

    private String table() {
        return RqgSchema.TABLES.get(random.nextInt(RqgSchema.TABLES.size()));
    }

    private static String from(String table, String alias) {
        return alias == null ? table : table + " " + alias;
    }

    private static String col(String alias, String column) {
        return alias == null ? column : alias + "." + column;
    }

    /** The routing column of {@code table}, or null for the replicated one. */
    static String routing(String table) {
        return switch (table) {
            case "th", "tl" -> "id";
            case "tr", "tc" -> "k";
            default -> null;
        };
    }

    private <T> List<T> pick(List<T> from, int n) {
        var copy = new ArrayList<>(from);
        java.util.Collections.shuffle(copy, random);
        return copy.subList(0, Math.min(n, copy.size()));
    }
}
