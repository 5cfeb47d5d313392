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
 * Random statements over {@link RqgSchema}'s tables whose parts combine freely, in the shapes of
 * SQLancer and sqllogictest ({@code SELECT DISTINCT + cor0.a * - k AS a FROM th AS cor0 GROUP BY ...}):
 * select lists of columns, expressions and constants with aliases that may shadow column names;
 * DISTINCT with and without GROUP BY; aggregates (DISTINCT ones, of constants) beside constants;
 * GROUP BY columns, expressions, positions and aliases; HAVING with and without GROUP BY and
 * aggregates; WHERE of three-valued predicates; joins of two to twenty tables; subqueries,
 * correlated or not; UNION; derived tables and CTEs; window functions; ORDER BY and LIMIT;
 * UPDATE and DELETE. Every ORDER BY that a LIMIT follows is total, so every answer has exactly
 * one right form.
 */
public final class QueryGenerator {
    private static final List<String> ALIASES = List.of("id", "k", "a", "d", "s", "dt", "c0", "c1", "c2", "x");

    private final Random random;
    private final RqgSchema schema;
    private final Set<String> features = new LinkedHashSet<>();
    private final Exprs exprs;
    private final Exprs inner;
    private final Shapes shapes;

    public QueryGenerator(long seed, RqgSchema schema) {
        this.random = new Random(seed);
        this.schema = schema;
        var subqueries = new Subqueries(random, schema, features);
        this.exprs = new Exprs(random, features, subqueries);
        this.inner = new Exprs(random, features, null);
        subqueries.exprs = inner;
        this.shapes = new Shapes(random, schema, features, exprs);
    }

    public Query next() {
        features.clear();
        int r = random.nextInt(100);
        Query q;
        if (r < 16) q = plain();
        else if (r < 26) q = aggregate();
        else if (r < 44) q = grouped();
        else if (r < 49) q = havingWithoutGroupBy();
        else if (r < 60) q = shapes.join(this::finish);
        else if (r < 68) q = shapes.manyTables(this::finish);
        else if (r < 75) q = shapes.union();
        else if (r < 80) q = shapes.derivedOrCte(this::finish);
        else if (r < 84) q = shapes.window();
        else if (r < 88) q = noFrom();
        else if (r < 93) q = plain();
        else q = shapes.dml();
        return q;
    }

    /** A SELECT of {@link #next()}'s kinds that the oracles can partition: one FROM, no LIMIT, no window functions. */
    public Select nextForOracles() {
        features.clear();
        int r = random.nextInt(20);
        Select s = r < 8 ? plain() : r < 10 ? havingWithoutGroupBy() : r < 13 ? grouped() : r < 15 ? aggregate() : r < 16 ? shapes.manyTables(this::finish)
                : shapes.join(this::finish);
        return s.unordered();
    }

    /** A predicate over {@code select}'s FROM, for the oracles to partition its rows with. */
    public Expr predicateFor(Select select) {
        return exprs.predicate(scopeOf(select), 2);
    }

    /** A predicate on {@code select}'s groups for HAVING: over its aggregates and group keys. */
    public Expr havingPredicateFor(Select select) {
        var keys = select.groupBy().stream().filter(k -> !k.sql().matches("\\d+")).toList();
        return Expr.of("$ " + exprs.pick(">", "<", ">=", "=", "<>", "<=") + " $", exprs.aggregated(scopeOf(select), keys, 1), exprs.numberLeaf(List.of()));
    }

    /** A numeric expression over {@code select}'s FROM (an aggregate's argument). */
    public Expr numberFor(Select select) {
        return exprs.number(scopeOf(select), 2);
    }

    /** A select of one table (sometimes aliased): columns, expressions and constants, DISTINCT sometimes. */
    private Select plain() {
        String table = table();
        var from = from(table);
        var scope = scope(table, from.alias());
        features.add(schema.table(table).routing() == null ? "scan-replicated" : "scan");
        var items = new ArrayList<Item>();
        if (random.nextInt(12) == 0) {
            items.add(new Item(Expr.leaf("*"), null));
        } else {
            for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) items.add(item(exprs.value(scope, random.nextInt(4)), items));
        }
        boolean distinct = random.nextInt(4) == 0 && !items.getFirst().expr().sql().equals("*");
        if (distinct) features.add("distinct");
        return finish(distinct, items, from.sql(), List.of(), where(scope, 3), List.of(), List.of(), scope);
    }

    /** Aggregates without GROUP BY, beside constants: one row even over no rows. */
    private Select aggregate() {
        String table = table();
        var from = from(table);
        var scope = scope(table, from.alias());
        features.add("aggregate-no-group-by");
        var items = new ArrayList<Item>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
            Expr e = random.nextInt(4) == 0 ? constant() : exprs.aggregated(scope, List.of(), random.nextInt(3));
            items.add(item(e, items));
        }
        if (items.stream().noneMatch(i -> i.expr().hasAggregate())) items.add(item(exprs.aggregate(scope), items));
        var having = new ArrayList<Expr>();
        if (random.nextInt(4) == 0) {
            features.add("having-no-group-by");
            having.add(Expr.of("$ " + exprs.pick(">", "<", ">=", "=", "<>") + " $", exprs.aggregated(scope, List.of(), 1), exprs.numberLeaf(List.of())));
        }
        boolean distinct = random.nextInt(5) == 0;
        if (distinct) features.add("distinct");
        return finish(distinct, items, from.sql(), List.of(), where(scope, 2), List.of(), having, scope);
    }

    /** GROUP BY columns, expressions, positions or aliases; items that name the keys or not; DISTINCT and HAVING sometimes. */
    private Select grouped() {
        String table = table();
        var from = from(table);
        var scope = scope(table, from.alias());
        var keys = new ArrayList<Expr>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
            int r = random.nextInt(10);
            Expr key = r < 6 ? Expr.leaf(exprs.pick(scope).sql()) : r < 9 ? exprs.value(scope, 1) : constant();
            if (keys.stream().noneMatch(k -> k.sql().equals(key.sql()))) keys.add(key);
        }
        String routing = schema.table(table).routing();
        features.add(keys.stream().anyMatch(k -> routing != null && k.sql().replaceAll("^\\w+\\.", "").equals(routing)) ? "group-by-routing" : "group-by");
        var keyScope = new ArrayList<Ref>();
        for (Expr k : keys) if (k.children().isEmpty() && scope.stream().anyMatch(s -> s.sql().equals(k.sql()))) {
            keyScope.add(scope.stream().filter(s -> s.sql().equals(k.sql())).findFirst().orElseThrow());
        }
        var items = new ArrayList<Item>();
        var groupBy = new ArrayList<Expr>();
        var positional = new java.util.IdentityHashMap<Item, Integer>(); // item -> its GROUP BY term, a position once the list is final
        for (Expr k : keys) {
            if (random.nextInt(3) > 0) {
                items.add(item(k, items));
                String alias = items.getLast().alias();
                int how = random.nextInt(6);
                if (how == 0) {
                    features.add("group-by-position");
                    positional.put(items.getLast(), groupBy.size());
                }
                if (how == 1 && alias != null) features.add("group-by-alias");
                groupBy.add(how == 1 && alias != null ? Expr.leaf(alias) : k);
            } else {
                features.add("group-key-not-selected");
                groupBy.add(k);
            }
        }
        for (int i = 0, n = random.nextInt(3); i < n; i++) {
            int r = random.nextInt(10);
            Expr e = r < 6 ? exprs.aggregated(scope, keys, random.nextInt(3)) : r < 8 ? constant()
                    : keyScope.isEmpty() ? constant() : exprs.number(keyScope, 1);
            items.add(random.nextInt(items.size() + 1), item(e, items));
        }
        if (items.isEmpty()) items.add(item(constant(), items));
        for (int i = 0; i < items.size(); i++) {
            Integer term = positional.get(items.get(i));
            if (term != null) groupBy.set(term, Expr.leaf(String.valueOf(i + 1)));
        }
        var having = new ArrayList<Expr>();
        if (random.nextInt(3) == 0) {
            features.add("having");
            having.add(switch (random.nextInt(3)) {
                case 0 -> Expr.of("$ " + exprs.pick(">", "<", ">=", "=", "<>") + " $", exprs.aggregated(scope, keys, 1), exprs.numberLeaf(List.of()));
                case 1 -> keyScope.isEmpty() ? Expr.leaf("COUNT(*) > 1") : exprs.predicate(keyScope, 1);
                default -> aliasPredicate(items);
            });
        }
        boolean distinct = random.nextInt(3) == 0;
        if (distinct) features.add("distinct-group-by");
        return finish(distinct, items, from.sql(), List.of(), where(scope, 2), groupBy, having, scope);
    }

    /** HAVING without GROUP BY and without aggregates: MySQL filters rows with it. */
    private Select havingWithoutGroupBy() {
        String table = table();
        var from = from(table);
        var scope = scope(table, from.alias());
        features.add("having-no-aggregate");
        var items = new ArrayList<Item>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) items.add(item(random.nextInt(3) == 0 ? constant() : exprs.value(scope, 1), items));
        // with DISTINCT, MariaDB may apply such a HAVING to the rows left after removing duplicates, a column outside the
        // select items then read from whichever row of its duplicates it kept (and ONLY_FULL_GROUP_BY does not reject it):
        // an answer that depends on the rows' order, which no other placement of the rows has to repeat
        boolean distinct = random.nextInt(4) == 0;
        Expr having = distinct || random.nextBoolean() ? aliasPredicate(items) : exprs.predicate(scope, 1);
        return finish(distinct, items, from.sql(), List.of(), where(scope, 2), List.of(), List.of(having), scope);
    }

    private Select noFrom() {
        features.add("no-from");
        var items = new ArrayList<Item>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) items.add(item(exprs.value(List.of(), 2), items));
        return new Select(null, random.nextInt(4) == 0, items, null, List.of(), List.of(), List.of(), List.of(), List.of(), 0, null, done());
    }

    /** ORDER BY (total, by positions after any other terms) and LIMIT, or neither, then the statement. */
    private Select finish(boolean distinct, List<Item> items, String from, List<String> joins, List<Expr> where, List<Expr> groupBy,
                          List<Expr> having, List<Ref> scope) {
        var order = new ArrayList<String>();
        int tie = 0;
        String limit = null;
        if (random.nextInt(5) < 2) {
            features.add("order-by");
            boolean grouped = !groupBy.isEmpty() || items.stream().anyMatch(i -> i.expr().hasAggregate());
            for (int i = 0, n = random.nextInt(3); i < n; i++) {
                int r = random.nextInt(4);
                Item it = items.get(random.nextInt(items.size()));
                // a term naming no column is a constant (MariaDB reads some, as ORDER BY + -34, as an unknown column '???')
                boolean column = scope.stream().anyMatch(c -> it.expr().sql().contains(c.sql()));
                String term = r == 0 || it.expr().sql().equals("*") ? null
                        : r == 1 ? (it.alias() != null && column ? it.alias() : null)
                        : r == 2 ? (!distinct && !grouped ? exprs.pick(scope).sql() : null)
                        : column ? it.expr().sql() : null;
                if (term != null) order.add(term + exprs.pick("", " DESC", " ASC"));
            }
            if (items.stream().noneMatch(i -> i.expr().sql().equals("*"))) {
                tie = Select.POSITIONS;
                int r = random.nextInt(5);
                if (r >= 2) {
                    features.add(r == 4 ? "limit-offset" : "limit");
                    limit = r == 4 ? random.nextInt(6) + " OFFSET " + random.nextInt(8) : String.valueOf(random.nextInt(8));
                }
            }
        }
        return new Select(null, distinct, items, from, joins, where, groupBy, having, order, tie, limit, done());
    }

    // ---- parts ----

    private List<Expr> where(List<Ref> scope, int max) {
        var out = new ArrayList<Expr>();
        for (int i = 0, n = random.nextInt(max + 1); i < n; i++) out.add(exprs.predicate(scope, 2));
        return out;
    }

    private Item item(Expr e, List<Item> before) {
        if (random.nextInt(10) < 5) return new Item(e, null);
        String alias = ALIASES.get(random.nextInt(ALIASES.size()));
        if (before.stream().anyMatch(i -> alias.equals(i.alias()))) return new Item(e, null);
        if (alias.length() <= 2 && !alias.startsWith("c") && !alias.equals("x")) features.add("alias-shadows-column");
        return new Item(e, alias);
    }

    /** A predicate on a select-list alias (HAVING may name them), or a constant one. */
    private Expr aliasPredicate(List<Item> items) {
        var aliased = items.stream().filter(i -> i.alias() != null).toList();
        if (aliased.isEmpty()) return Expr.leaf(exprs.pick("1 = 1", "NULL", "0", "TRUE"));
        features.add("having-alias");
        return Expr.leaf(aliased.get(random.nextInt(aliased.size())).alias() + " " + exprs.pick("IS NULL", "IS NOT NULL", "> 0", "< 3", "= 1"));
    }

    /** An expression naming no column: a literal, NULL, arithmetic of them. */
    private Expr constant() {
        features.add("constant-item");
        return exprs.number(List.of(), random.nextInt(3));
    }

    private record From(String sql, String alias) {}

    private From from(String table) {
        int r = random.nextInt(4);
        if (r == 0) return new From(table + " AS cor0", "cor0");
        if (r == 1) return new From(table + " t", "t");
        return new From(table, null);
    }

    /** One table's columns, qualified (by the alias, or the table's name) and bare, as sqllogictest mixes {@code cor0.col2} and {@code col2}. */
    private List<Ref> scope(String table, String alias) {
        var out = new ArrayList<Ref>();
        for (var c : schema.table(table).columns()) {
            out.add(new Ref(alias == null ? c.name() : alias + "." + c.name(), c.type()));
            if (random.nextBoolean()) out.add(new Ref(alias == null ? table + "." + c.name() : c.name(), c.type()));
        }
        return out;
    }

    /** The columns of a generated select's FROM, as its predicates may name them. */
    private List<Ref> scopeOf(Select select) {
        String from = select.from() + " " + String.join(" ", select.joins());
        var m = java.util.regex.Pattern.compile("\\b(th|tr|tl|tc|tp|te|j\\d+)(?:\\s+(?:AS\\s+)?(cor0|t|t1|t2|t3)\\b)?").matcher(from);
        var tables = new ArrayList<String[]>();
        while (m.find()) tables.add(new String[]{m.group(1), m.group(2)});
        if (tables.size() == 1) return scope(tables.getFirst()[0], tables.getFirst()[1]);
        var out = new ArrayList<Ref>();
        for (String[] t : tables) out.addAll(shapes.scope(t[0], t[1]));
        return out;
    }

    private String table() {
        return RqgSchema.TABLES.get(random.nextInt(RqgSchema.TABLES.size()));
    }

    private Set<String> done() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(features));
    }
}
