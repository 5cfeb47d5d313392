package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.SubqueryRounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * UPDATE and DELETE holding subqueries (in WHERE, and in SET's values). One MariaDB 11.4 evaluates them as if
 * materialized before the first row changes, the target table too (no error 1093 for a single-table write), so:
 * <ul>
 * <li>where every subquery reads only rows each partition of the target holds whole (replicated tables, a deployment of
 * one partition) or rows co-located with the outer row ({@link CoLocatedSubqueries}), the write runs inside each
 * partition as written ({@link #inPlace});</li>
 * <li>else, where each subquery is uncorrelated, they run first and the write gets their values
 * ({@link Plan.WriteAfterSubqueries}): the same rows as one MariaDB's materialized subquery;</li>
 * <li>else (correlated over tables not co-located, row subqueries, subqueries in ORDER BY) it is refused.</li>
 * </ul>
 */
final class WriteSubqueries {
    private WriteSubqueries() {}

    /** The values of SET (empty for DELETE); refuses a subquery giving several columns their values. */
    static List<Expression> setValues(List<UpdateSet> sets) throws PlanException {
        var out = new ArrayList<Expression>();
        if (sets == null) return out;
        for (UpdateSet set : sets) {
            for (Object v : set.getValues()) {
                if (!(v instanceof Expression e)) continue;
                if (set.getColumns().size() > 1 && Guards.selectWords(e.toString()) > 0) {
                    throw PlanException.unsupported("row subqueries in SET ((a, b) = (SELECT ...)) yet");
                }
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Whether each partition answers every subquery of the write as one MariaDB would: each reads only tables held whole
     * on every partition of {@code table}, or is co-located with the outer row; and no SELECT stands outside them.
     */
    static boolean inPlace(Statement write, TableDef table, Table target, List<Expression> values, Expression where, Catalog catalog) {
        List<Select> subqueries = SubqueryPlanner.of(values, where);
        if (subqueries.isEmpty()) return false;
        int inside = 0;
        for (Select s : subqueries) inside += Guards.selectWords(s.toString());
        if (inside != Guards.selectWords(write.toString())) return false; // a subquery in ORDER BY or LIMIT
        var outer = Sources.single(table, target.getAlias() == null ? null : KeyFinder.unquote(target.getAlias().getName()));
        for (Select s : subqueries) {
            if (!inPlace(s, table, outer, catalog)) return false;
        }
        return true;
    }

    /** Whether each partition of the target answers {@code sub} as one MariaDB would, for the rows it holds. */
    private static boolean inPlace(Select sub, TableDef table, Sources outer, Catalog catalog) {
        return readsWholeTables(sub, table, catalog) || CoLocatedSubqueries.colocated(sub, outer, catalog);
    }

    /** Every table {@code sub} names is on each of {@code target}'s partitions whole: replicated there, or both on one partition. */
    private static boolean readsWholeTables(Select sub, TableDef target, Catalog catalog) {
        java.util.Set<String> names;
        try {
            names = new TableFinder().getTables((Statement) sub);
        } catch (RuntimeException e) {
            return false;
        }
        int[] mine = target.partitioning().partitions();
        for (String name : names) {
            if (name.contains(".")) return false;
            TableDef t = catalog.table(KeyFinder.unquote(name));
            if (t == null) return false;
            int[] theirs = t.partitioning().partitions();
            boolean whole = t.partitioning() instanceof Partitioning.Replicated
                    ? Arrays.stream(mine).allMatch(p -> Arrays.stream(theirs).anyMatch(q -> q == p))
                    : mine.length == 1 && theirs.length == 1 && mine[0] == theirs[0];
            if (!whole) return false;
        }
        return true;
    }

    /**
     * The write with its subqueries run first. Its shape with one value per subquery is planned now, so that what
     * the write itself cannot do (the routing column in SET, ...) is refused before anything runs.
     */
    static Plan.WriteAfterSubqueries plan(Statement write, TableDef table, Table target, List<Expression> values, Expression where, Catalog catalog,
                                          SubqueryPlanner.Inner inner, SubqueryPlanner.Inner locking, Plan.BoundWrite writes) throws PlanException {
        int inside = 0;
        for (Select s : SubqueryPlanner.of(values, where)) inside += Guards.selectWords(s.toString());
        if (inside != Guards.selectWords(write.toString())) {
            throw PlanException.unsupported("subqueries inside UPDATE/DELETE other than in WHERE and SET's values (ORDER BY, LIMIT) yet");
        }
        var outer = Sources.single(table, target.getAlias() == null ? null : KeyFinder.unquote(target.getAlias().getName()));
        // those each partition answers stay in the write (correlated ones over co-located tables); the others run first
        var slots = SubqueryPlanner.forWrite(write, values, where, catalog, s -> inPlace(s, table, outer, catalog), inner, locking);
        if (slots.subqueries().isEmpty()) throw new IllegalStateException("no subquery to run first in " + write);
        writes.write(sample(slots));
        return new Plan.WriteAfterSubqueries(table, slots.pieces(), slots.subqueries(), slots.locking(), writes, slots.params());
    }

    /** The write's text with one value in each slot. */
    private static String sample(SubqueryPlanner.Slots slots) {
        var sql = new StringBuilder();
        for (int i = 0; i < slots.subqueries().size(); i++) {
            sql.append(slots.pieces().get(i));
            SubqueryRounds.Subquery sub = slots.subqueries().get(i);
            sql.append(switch (sub.kind()) {
                case IN -> sub.leftText() + " IN (?)";
                case NOT_IN -> sub.leftText() + " NOT IN (?)";
                case EXISTS, NOT_EXISTS -> "TRUE";
                case SCALAR -> "?";
            });
        }
        return sql.append(slots.pieces().getLast()).toString();
    }
}
