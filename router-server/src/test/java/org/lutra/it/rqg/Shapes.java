package org.lutra.it.rqg;

import org.lutra.it.rqg.Exprs.Ref;
import org.lutra.it.rqg.Query.Item;
import org.lutra.it.rqg.Query.Select;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The statement shapes beyond one table: joins of two or three tables, joins of many small tables
 * (sqllogictest's select5), UNION, derived tables and CTEs, window functions, UPDATE and DELETE.
 */
final class Shapes {
    /** Builds the statement's ORDER BY and LIMIT (see {@link QueryGenerator}). */
    interface Finish {
        Select finish(boolean distinct, List<Item> items, String from, List<String> joins, List<Expr> where, List<Expr> groupBy,
                      List<Expr> having, List<Ref> scope);
    }

    private final Random random;
    private final RqgSchema schema;
    private final Set<String> features;
    private final Exprs exprs;

    Shapes(Random random, RqgSchema schema, Set<String> features, Exprs exprs) {
        this.random = random;
        this.schema = schema;
        this.features = features;
        this.exprs = exprs;
    }

    /** Two or three tables of the common columns: co-located, with a replicated one, on unrelated columns, crossed. */
    Select join(Finish finish) {
        String left, right;
        String on;
        switch (random.nextInt(5)) {
            case 0 -> { left = "tl"; right = "tc"; on = "t2.k = t1.id"; features.add("join-colocated"); }
            case 1 -> { left = table(); right = "tp"; on = "t2.id = t1." + exprs.pick("a", "k"); features.add("join-replicated"); }
            case 2 -> { left = table(); right = table(); String c = exprs.pick("a", "k", "s", "dt"); on = "t2." + c + " = t1." + c; features.add("join-unrelated"); }
            case 3 -> { left = table(); right = "te"; on = "t2.k = t1.id"; features.add("join-empty"); }
            default -> { left = table(); right = table(); on = null; features.add("cross-join"); }
        }
        var joins = new ArrayList<String>();
        var where = new ArrayList<Expr>();
        int style = random.nextInt(4);
        if (on == null) {
            joins.add("CROSS JOIN " + right + " t2");
            where.add(Expr.leaf("t1.id < " + (2 + random.nextInt(6))));
            where.add(Expr.leaf("t2.id < " + (2 + random.nextInt(6))));
        } else if (style == 0) {
            features.add("comma-join");
            joins.add(", " + right + " AS t2");
            where.add(Expr.leaf(on));
        } else {
            String type = style == 1 ? "LEFT JOIN" : random.nextInt(5) == 0 ? "RIGHT JOIN" : "JOIN";
            if (!type.equals("JOIN")) features.add(type.toLowerCase().replace(' ', '-'));
            joins.add(type + " " + right + " t2 ON " + on);
        }
        var scope = new ArrayList<>(scope(left, "t1"));
        scope.addAll(scope(right, "t2"));
        if (random.nextInt(5) == 0) {
            joins.add("LEFT JOIN tp t3 ON t3.id = t2.a");
            scope.addAll(scope("tp", "t3"));
            features.add("join-three");
        }
        for (int i = 0, n = random.nextInt(3); i < n; i++) where.add(exprs.predicate(scope, 2));
        var items = new ArrayList<Item>();
        var groupBy = new ArrayList<Expr>();
        if (random.nextInt(4) == 0) {
            features.add("join-group-by");
            Expr key = Expr.leaf(exprs.pick(scope).sql());
            groupBy.add(key);
            items.add(new Item(key, null));
            items.add(new Item(exprs.aggregated(scope, List.of(key), 1), random.nextBoolean() ? "g" : null));
        } else {
            for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) items.add(new Item(exprs.value(scope, random.nextInt(3)), null));
        }
        return finish.finish(random.nextInt(5) == 0, items, left + " t1", joins, where, groupBy, List.of(), scope);
    }

    /** sqllogictest's select5: two to twenty small tables, joined by a spanning tree of equalities, one column fixed. */
    Select manyTables(Finish finish) {
        int r = random.nextInt(100);
        int n = r < 60 ? 2 + random.nextInt(3) : r < 88 ? 5 + random.nextInt(4) : r < 97 ? 9 + random.nextInt(6) : 15 + random.nextInt(6);
        features.add(n >= 9 ? "join-many-tables" : "join-small-tables");
        var numbers = new ArrayList<Integer>();
        // mostly tables the router can join (hash on every partition, replicated), so that joins run rather than being refused
        if (random.nextInt(4) > 0 && schema.joinable().size() >= n) numbers.addAll(schema.joinable());
        else for (int j = 1; j <= RqgSchema.JOIN_TABLES; j++) numbers.add(j);
        Collections.shuffle(numbers, random);
        var chosen = numbers.subList(0, n);
        boolean explicit = random.nextInt(4) == 0;
        var joins = new ArrayList<String>();
        var where = new ArrayList<Expr>();
        for (int i = 1; i < n; i++) {
            int me = chosen.get(i), other = chosen.get(random.nextInt(i));
            String eq = random.nextBoolean() ? "a" + me + " = b" + other : "b" + me + " = a" + other;
            if (explicit) joins.add("JOIN j" + me + " ON " + eq);
            else {
                joins.add(", j" + me);
                where.add(Expr.leaf(eq));
            }
        }
        if (random.nextInt(3) > 0) where.add(Expr.leaf("a" + chosen.get(random.nextInt(n)) + " = " + (1 + random.nextInt(10))));
        var scope = new ArrayList<Ref>();
        for (int j : chosen) scope.addAll(scope("j" + j, null));
        if (random.nextInt(3) == 0) where.add(exprs.predicate(scope, 1));
        var items = new ArrayList<Item>();
        if (random.nextInt(6) == 0) {
            items.add(new Item(exprs.aggregate(scope), null));
        } else {
            for (int i = 0, m = 1 + random.nextInt(4); i < m; i++) {
                items.add(new Item(random.nextInt(4) == 0 ? exprs.value(scope, 1) : Expr.leaf(exprs.pick("x", "a", "b") + exprs.pick(chosen)), null));
            }
        }
        return finish.finish(random.nextInt(4) == 0, items, "j" + chosen.getFirst(), joins, where, List.of(), List.of(), scope);
    }

    /** SELECT ... UNION [ALL] SELECT ...: parts of as many items, from any table, ordered by every position or not. */
    Query union() {
        boolean all = random.nextBoolean();
        features.add(all ? "union-all" : "union");
        int width = 1 + random.nextInt(3);
        var parts = new ArrayList<Select>();
        for (int p = 0, n = 2 + random.nextInt(2); p < n; p++) {
            String table = table();
            var scope = scope(table, null);
            var items = new ArrayList<Item>();
            boolean aggregate = random.nextInt(4) == 0;
            for (int i = 0; i < width; i++) items.add(new Item(aggregate ? exprs.aggregated(scope, List.of(), 1) : exprs.value(scope, 1), p == 0 && random.nextBoolean() ? "u" + i : null));
            var where = new ArrayList<Expr>();
            if (random.nextBoolean()) where.add(exprs.predicate(scope, 2));
            parts.add(new Select(null, random.nextInt(5) == 0, items, table, List.of(), where, List.of(), List.of(), List.of(), 0, null, Set.of()));
        }
        String order = null, limit = null;
        if (random.nextBoolean()) {
            var terms = new ArrayList<String>();
            for (int i = 1; i <= width; i++) terms.add(i + exprs.pick("", " DESC"));
            Collections.shuffle(terms, random);
            order = String.join(", ", terms);
            if (random.nextBoolean()) limit = String.valueOf(random.nextInt(6));
        }
        return new Query.Union(parts, all, order, limit, done());
    }

    Select derivedOrCte(Finish finish) {
        String table = table();
        boolean cte = random.nextBoolean();
        features.add(cte ? "cte" : "derived");
        var innerScope = scope(table, null);
        String inner = "SELECT id AS c0, a AS c1, s AS c2, d AS c3 FROM " + table + (random.nextBoolean() ? " WHERE " + exprs.predicate(innerScope, 1).sql() : "");
        // a CTE may shadow a real table's name: the statement must read the CTE, not the table
        String name = cte && random.nextInt(4) == 0 ? "tp" : "x";
        if (!name.equals("x")) features.add("cte-shadowing-table");
        String with = cte ? "WITH " + name + " AS (" + inner + ")" : null;
        String from = cte ? (name.equals("x") ? "x" : name + " AS x") : "(" + inner + ") AS x";
        var scope = List.of(new Ref("x.c0", RqgSchema.Type.INT), new Ref("x.c1", RqgSchema.Type.INT), new Ref("x.c2", RqgSchema.Type.STRING),
                new Ref("x.c3", RqgSchema.Type.DECIMAL));
        var where = new ArrayList<Expr>();
        if (random.nextBoolean()) where.add(exprs.predicate(scope, 1));
        var items = new ArrayList<Item>();
        var groupBy = new ArrayList<Expr>();
        if (random.nextBoolean()) {
            groupBy.add(Expr.leaf("x.c1"));
            items.add(new Item(Expr.leaf("x.c1"), null));
            items.add(new Item(exprs.aggregated(scope, List.of(Expr.leaf("x.c1")), 1), "sd"));
        } else {
            for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) items.add(new Item(exprs.value(scope, 1), null));
        }
        var s = finish.finish(random.nextInt(5) == 0, items, from, List.of(), where, groupBy, List.of(), scope);
        return new Select(with, s.distinct(), s.items(), s.from(), s.joins(), s.where(), s.groupBy(), s.having(), s.orderBy(), s.tieBreak(),
                s.limit(), s.features());
    }

    Select window() {
        String table = table();
        features.add("window");
        String part = random.nextBoolean() ? "PARTITION BY " + exprs.pick("a", "k", "s") + " " : "";
        String fn = switch (random.nextInt(6)) {
            case 0 -> "ROW_NUMBER() OVER (" + part + "ORDER BY id)";
            case 1 -> "RANK() OVER (" + part + "ORDER BY a)";
            case 2 -> "SUM(d) OVER (" + part.strip() + ")";
            case 3 -> "COUNT(*) OVER (" + part.strip() + ")";
            case 4 -> "LAG(a) OVER (" + part + "ORDER BY id)";
            default -> "MAX(a) OVER (" + part + "ORDER BY id)";
        };
        var items = new ArrayList<>(List.of(new Item(Expr.leaf("id"), null), new Item(Expr.leaf(fn), "w")));
        if (random.nextBoolean()) items.add(1, new Item(exprs.value(scope(table, null), 1), null));
        var where = new ArrayList<Expr>();
        if (random.nextBoolean()) where.add(exprs.predicate(scope(table, null), 1));
        var order = new ArrayList<String>();
        String limit = null;
        if (random.nextBoolean()) {
            order.add("id");
            if (random.nextBoolean()) limit = String.valueOf(random.nextInt(8));
        }
        return new Select(null, false, items, table, List.of(), where, List.of(), List.of(), order, order.size(), limit, done());
    }

    Query.Dml dml() {
        String table = table();
        var scope = scope(table, null);
        String head;
        if (random.nextBoolean()) {
            features.add("update");
            head = "UPDATE " + table + " SET " + switch (random.nextInt(5)) {
                case 0 -> "a = a + 1";
                case 1 -> "d = NULL, s = 'upd'";
                case 2 -> "dt = '2024-06-01', a = " + exprs.number(scope, 1).sql();
                case 3 -> "s = " + exprs.string(scope, 1).sql();
                default -> "d = d * 2";
            };
        } else {
            features.add("delete");
            head = "DELETE FROM " + table;
        }
        var where = new ArrayList<Expr>();
        for (int i = 0, n = random.nextInt(3); i < n; i++) where.add(exprs.predicate(scope, 2));
        if (random.nextInt(4) == 0) {
            features.add("dml-subquery");
            String other = table;
            while (other.equals(table)) other = table();
            where.add(Expr.leaf(random.nextBoolean()
                    ? "a IN (SELECT " + other + ".a FROM " + other + " WHERE " + other + ".id < " + (3 + random.nextInt(15)) + ")"
                    : "EXISTS (SELECT 1 FROM " + other + " WHERE " + other + ".k = " + table + ".id)"));
        }
        return new Query.Dml(head, table, where, done());
    }

    /** {@code table}'s columns, named through {@code alias} (or bare when null). */
    List<Ref> scope(String table, String alias) {
        return schema.table(table).columns().stream().map(c -> new Ref(alias == null ? c.name() : alias + "." + c.name(), c.type())).toList();
    }

    private String table() {
        return RqgSchema.TABLES.get(random.nextInt(RqgSchema.TABLES.size()));
    }

    private Set<String> done() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(features));
    }
}
