package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.exec.SubqueryRounds;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

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

    /**
     * The locking reads a write running its subqueries in place needs first ({@link Plan.CopiesLockedFirst}): for each
     * subquery reading REPLICATED tables, the subquery itself as a locking read where the router sends it to the tables'
     * first partition alone (uncorrelated, one SELECT, its tables all REPLICATED with one first partition), else each
     * REPLICATED table it reads locked whole there — more rows than one MariaDB would lock, never fewer. Empty where the
     * write runs on nothing but those first partitions.
     */
    static List<Plan.CopyLock> copyLocks(Statement write, TableDef table, List<Expression> values, Expression where, Catalog catalog,
                                         SubqueryPlanner.InnerAttempt locking) throws PlanException {
        String text = write.toString();
        int[] mine = table.partitioning().partitions();
        var out = new ArrayList<Plan.CopyLock>();
        var whole = new java.util.LinkedHashSet<String>();
        int from = 0;
        for (Select sub : SubqueryPlanner.of(values, where)) {
            String subText = sub.toString();
            int at = text.indexOf(subText, from);
            if (at >= 0) from = at + subText.length();
            var tables = tables(sub, catalog);
            var replicated = tables.stream().filter(t -> t.partitioning() instanceof Partitioning.Replicated).toList();
            if (replicated.stream().allMatch(t -> mine.length == 1 && mine[0] == t.partitioning().partitions()[0])) continue;
            Plan.Query exact = at >= 0 && replicated.size() == tables.size() && oneFirstPartition(replicated) ? exactLock(sub, catalog, locking) : null;
            if (exact != null) {
                out.add(new Plan.CopyLock(exact, ParamCounter.count(text.substring(0, at))));
            } else {
                for (TableDef t : replicated) whole.add(t.name());
            }
        }
        for (String name : whole) out.add(wholeTable(catalog.table(name), locking));
        return out;
    }

    /**
     * Every row of {@code t} shared-locked: {@code SELECT COUNT(*) FROM t FORCE INDEX (PRIMARY)}, a scan of the clustered
     * index, where the rows' locks are (a scan of a covering secondary index would lock its own records only, which a
     * {@code FOR UPDATE} by the primary key does not hold). Without a PRIMARY KEY the clustered index has no name to force.
     */
    private static Plan.CopyLock wholeTable(TableDef t, SubqueryPlanner.InnerAttempt locking) throws PlanException {
        if (!hasPrimaryKey(t)) {
            return new Plan.CopyLock(null, 0, "Lutra does not support a subquery inside UPDATE/DELETE that reads the REPLICATED table " + t.name() + " (without a"
                    + " PRIMARY KEY) correlated with the outer row, or through nested subqueries or a UNION, at an isolation level where"
                    + " InnoDB reads it with shared locks: the router locks the rows of its first partition's copy, where locking reads"
                    + " of them lock, and cannot name that table's clustered index to lock them all");
        }
        var all = new net.sf.jsqlparser.statement.select.PlainSelect()
                .addSelectItems(new net.sf.jsqlparser.expression.Function("COUNT", new net.sf.jsqlparser.statement.select.AllColumns()))
                .withFromItem(new Table("`" + t.name().replace("`", "``") + "`")
                        .withHint(new net.sf.jsqlparser.expression.MySQLIndexHint("FORCE", "INDEX", List.of("`PRIMARY`"))));
        return new Plan.CopyLock(locking.plan(all).orThrow(), 0);
    }

    private static boolean hasPrimaryKey(TableDef t) {
        try {
            return org.lutra.catalog.UniqueKeys.of(t).stream().anyMatch(org.lutra.catalog.UniqueKeys.Key::primary);
        } catch (org.lutra.catalog.SchemaException e) {
            return false;
        }
    }

    /** {@code sub} as a locking read, or null where it is not one the router can read as InnoDB locks it. */
    private static Plan.Query exactLock(Select sub, Catalog catalog, SubqueryPlanner.InnerAttempt locking) throws PlanException {
        if (!(sub instanceof net.sf.jsqlparser.statement.select.PlainSelect p) || Guards.selectWords(sub.toString()) != 1
                || Correlation.correlated(p, catalog)) {
            return null;
        }
        return locking.plan(sub) instanceof Attempt.Planned<Plan.Query> read ? read.plan() : null;
    }

    private static boolean oneFirstPartition(List<TableDef> tables) {
        return tables.stream().map(t -> t.partitioning().partitions()[0]).distinct().count() == 1;
    }

    /** The tables {@code sub} names, nested subqueries' too (all in the catalog: {@link #inPlace} saw to that). */
    private static List<TableDef> tables(Select sub, Catalog catalog) {
        var out = new ArrayList<TableDef>();
        for (String name : new net.sf.jsqlparser.util.TablesNamesFinder<Void>().getTables((Statement) sub)) {
            TableDef t = catalog.table(KeyFinder.unquote(name));
            if (t != null && !out.contains(t)) out.add(t);
        }
        return out;
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
                                          SubqueryPlanner.Inner inner, SubqueryPlanner.InnerAttempt locking, Plan.BoundWrite writes) throws PlanException {
        int inside = 0;
        for (Select s : SubqueryPlanner.of(values, where)) inside += Guards.selectWords(s.toString());
        if (inside != Guards.selectWords(write.toString())) {
            throw PlanException.unsupported("subqueries inside UPDATE/DELETE other than in WHERE and SET's values (ORDER BY, LIMIT) yet");
        }
        var outer = Sources.single(table, target.getAlias() == null ? null : KeyFinder.unquote(target.getAlias().getName()));
        if (write instanceof net.sf.jsqlparser.statement.update.Update update
                && SubqueryPlanner.semiJoins(where).stream().anyMatch(s -> !inPlace(s, table, outer, catalog))) {
            AssignmentOrder.requireIndependent(update);
        }
        // those each partition answers stay in the write (correlated ones over co-located tables); the others run first
        var slots = SubqueryPlanner.forWrite(write, catalog, s -> inPlace(s, table, outer, catalog), inner, locking);
        if (slots.subqueries().isEmpty()) throw new IllegalStateException("no subquery to run first in " + write);
        writes.write(sample(slots));
        return new Plan.WriteAfterSubqueries(table, slots.pieces(), slots.subqueries(), slots.locking(), writes, slots.params(),
                write instanceof net.sf.jsqlparser.statement.delete.Delete);
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
