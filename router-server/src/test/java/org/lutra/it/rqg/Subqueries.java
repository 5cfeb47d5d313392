package org.lutra.it.rqg;

import org.lutra.it.rqg.Exprs.Ref;
import org.lutra.it.rqg.RqgSchema.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Subqueries inside expressions: scalar ones (aggregates, reads by key, some that return several
 * rows and must fail as MySQL's 1242), EXISTS, IN and NOT IN, comparisons with ANY and ALL;
 * correlated with the outer statement's columns or not. They are leaves for the shrinker.
 */
final class Subqueries implements Exprs.Subqueries {
    private final Random random;
    private final RqgSchema schema;
    private final Set<String> features;
    /** Expressions inside a subquery (they hold no further subqueries). */
    Exprs exprs;

    Subqueries(Random random, RqgSchema schema, Set<String> features) {
        this.random = random;
        this.schema = schema;
        this.features = features;
    }

    @Override
    public Expr scalar(List<Ref> outer) {
        String table = table();
        var scope = scope(table);
        Ref correlate = correlation(outer);
        String where = where(scope, correlate);
        return Expr.leaf(switch (random.nextInt(6)) {
            case 0, 1 -> "(SELECT " + exprs.pick("MIN", "MAX", "SUM", "COUNT", "AVG") + "(" + column(scope, Type.INT, Type.DECIMAL) + ") FROM "
                    + table + " AS sq" + where + ")";
            case 2 -> "(SELECT COUNT(*) FROM " + table + " AS sq" + where + ")";
            case 3 -> "(SELECT sq." + exprs.pick("a", "d", "k") + " FROM " + table + " AS sq WHERE sq.id = " + random.nextInt(40) + ")";
            case 4 -> "(SELECT MAX(sq.a) + " + (random.nextInt(9) - 4) + " FROM " + table + " AS sq" + where + ")";
            // often several rows: MySQL's 1242 on both sides, or one row, or none (NULL)
            default -> "(SELECT sq.a FROM " + table + " AS sq WHERE sq.a > " + (4 + random.nextInt(6)) + (correlate == null ? "" : " AND sq.k = " + correlate.sql()) + ")";
        });
    }

    @Override
    public Expr predicate(List<Ref> outer) {
        String table = table();
        var scope = scope(table);
        Ref correlate = correlation(outer);
        String where = where(scope, correlate);
        String value = outer.isEmpty() ? String.valueOf(random.nextInt(10)) : pickInt(outer);
        return Expr.leaf(switch (random.nextInt(6)) {
            case 0, 1 -> (random.nextBoolean() ? "" : "NOT ") + "EXISTS (SELECT 1 FROM " + table + " AS sq" + where + ")";
            case 2 -> value + " IN (SELECT sq." + exprs.pick("a", "k", "id") + " FROM " + table + " AS sq" + where + ")";
            case 3 -> value + " NOT IN (SELECT sq.a FROM " + table + " AS sq" + (random.nextBoolean() ? " WHERE sq.a IS NOT NULL" : where) + ")";
            case 4 -> value + " " + exprs.pick(">", "<", "=", ">=") + " " + exprs.pick("ANY", "ALL", "SOME") + " (SELECT sq.a FROM " + table + " AS sq" + where + ")";
            default -> value + " = (SELECT MIN(sq.k) FROM " + table + " AS sq" + where + ")";
        });
    }

    private String where(List<Ref> scope, Ref correlate) {
        var terms = new ArrayList<String>();
        if (correlate != null) {
            features.add("correlated-subquery");
            terms.add("sq." + exprs.pick("k", "a", "id") + " = " + correlate.sql());
        }
        if (random.nextInt(3) > 0) terms.add(exprs.predicate(scope, 1).sql());
        return terms.isEmpty() ? "" : " WHERE " + String.join(" AND ", terms);
    }

    /** An outer column named with its table or alias (a bare name would mean the subquery's own column), or null. */
    private Ref correlation(List<Ref> outer) {
        if (random.nextInt(3) > 0) return null;
        var qualified = outer.stream().filter(r -> r.sql().contains(".") && r.type() == Type.INT).toList();
        return qualified.isEmpty() ? null : qualified.get(random.nextInt(qualified.size()));
    }

    private String pickInt(List<Ref> outer) {
        var ints = outer.stream().filter(r -> r.type() == Type.INT).toList();
        return ints.isEmpty() ? String.valueOf(random.nextInt(10)) : ints.get(random.nextInt(ints.size())).sql();
    }

    private String column(List<Ref> scope, Type... types) {
        var ok = scope.stream().filter(r -> List.of(types).contains(r.type())).toList();
        return ok.get(random.nextInt(ok.size())).sql();
    }

    private List<Ref> scope(String table) {
        return schema.table(table).columns().stream().map(c -> new Ref("sq." + c.name(), c.type())).toList();
    }

    private String table() {
        return RqgSchema.TABLES.get(random.nextInt(RqgSchema.TABLES.size()));
    }
}
