package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.exec.Plan;
import org.lutra.exec.SubqueryRounds;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;


/**
 * Plans a SELECT whose select list, WHERE or HAVING clause holds uncorrelated subqueries (IN, NOT
 * IN, EXISTS, NOT EXISTS, scalar): each subquery gets its own plan, and the outer statement
 * becomes a text with one slot per subquery that {@link SubqueryRounds} fills with the values at
 * run time. A scalar subquery that is a select item of its own keeps its label, and its column
 * gets the subquery's own type, as MySQL gives it. Correlated subqueries (a column of the outer
 * query inside) are refused here: they would need the outer rows first ({@link
 * CoLocatedSubqueries} runs those whose tables live with the outer table's rows).
 */
final class SubqueryPlanner {
    /** Plans a subquery's SELECT (any shape the planner handles). */
    interface Inner {
        Plan.Query plan(Select select) throws PlanException;
    }

    /**
     * Plans a subquery's SELECT a way that may not apply to it (materialized, read with locks, run first): its plan, or why
     * not (a refusal) as a value; an error of the statement (an unknown table) thrown ({@link Planner#subqueryAttempt}) or,
     * for a way of many, a reason too ({@link Planner#subqueryWay}).
     */
    interface InnerAttempt {
        Attempt<Plan.Query> plan(Select select) throws PlanException;
    }

    /** @param clause where it stands, for refusals; @param column the result column a scalar select item fills, or -1 */
    private record Found(SubqueryRounds.Kind kind, Expression node, Select select, String clause, int column) {}

    private SubqueryPlanner() {}

    static boolean hasSubquery(PlainSelect select) {
        return !find(select).isEmpty();
    }

    /**
     * The scalar subqueries of the select list, WHERE and HAVING that may return more than one row
     * (MySQL's 1242): 0 when none, 2 when one of them is correlated, else 1.
     */
    static int scalars(PlainSelect select, Catalog catalog) {
        int found = 0;
        for (Found f : find(select)) {
            if (f.kind() != SubqueryRounds.Kind.SCALAR) continue;
            if (f.select() instanceof PlainSelect p && atMostOneRow(p)) continue;
            if (CoLocatedSubqueries.severalRows(f.select())) {
                found = 1; // reads no table: run first, it raises 1242 once a row is returned
                continue;
            }
            if (!(f.select() instanceof PlainSelect p) || Correlation.correlated(p, catalog)) return 2;
            found = 1;
        }
        return found;
    }

    /** Whether the select list, WHERE or HAVING compares with ANY, SOME or ALL of a subquery. */
    private static boolean hasAnyComparison(PlainSelect select) {
        var found = new boolean[1];
        var visitor = new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.AnyComparisonExpression any, S context) {
                found[0] = true;
                return null;
            }
        };
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof Expression e) e.accept(visitor, null);
        }
        if (select.getWhere() != null) select.getWhere().accept(visitor, null);
        if (select.getHaving() != null) select.getHaving().accept(visitor, null);
        return found[0];
    }

    private static final java.util.Set<String> AGGREGATES = java.util.Set.of("COUNT", "SUM", "MIN", "MAX", "AVG", "GROUP_CONCAT",
            "BIT_AND", "BIT_OR", "BIT_XOR", "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP");

    /** LIMIT 0 or 1, or only aggregates and no GROUP BY: one row at most, whatever the data. */
    private static boolean atMostOneRow(PlainSelect p) {
        if (p.getLimit() != null && p.getLimit().getOffset() == null
                && p.getLimit().getRowCount() instanceof net.sf.jsqlparser.expression.LongValue n && n.getValue() <= 1) {
            return true;
        }
        if (p.getGroupBy() != null || p.getHaving() != null) return false;
        for (var item : p.getSelectItems()) {
            if (!(item.getExpression() instanceof net.sf.jsqlparser.expression.Function fn)
                    || !AGGREGATES.contains(fn.getName().toUpperCase(Locale.ROOT))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Why {@code select}'s subqueries cannot run first, asked before {@link #plan} is tried (which refuses with the same
     * reason): ANY, SOME or ALL beside them, a correlated one, parameters or a row left of IN, a subquery where they are
     * not looked for (ON, GROUP BY, ORDER BY); empty where none holds. Reads {@code select} without changing it.
     */
    static java.util.Optional<PlanException> notApplicable(PlainSelect select, Catalog catalog) {
        if (hasAnyComparison(select)) {
            // not found as a subquery to run first, it would stay in the outer statement and run inside each partition
            return java.util.Optional.of(PlanException.unsupported("ANY, SOME and ALL subqueries beside other subqueries over several partitions yet"));
        }
        var found = find(select);
        var correlated = correlatedOne(found, catalog);
        if (correlated.isPresent()) return correlated;
        int outside = Guards.selectWords(select.toString());
        for (Found f : found) {
            if (f.node() instanceof InExpression in) {
                var left = leftOfIn(in);
                if (left.isPresent()) return left;
            }
            outside -= Guards.selectWords(f.select().toString());
        }
        if (outside > 1) return java.util.Optional.of(PlanException.unsupported("subqueries yet")); // Guards.requireNoSubquery's words
        return java.util.Optional.empty();
    }

    /** Why the left side of {@code in} cannot take a subquery's values in a slot: parameters, or a row; or empty. */
    private static java.util.Optional<PlanException> leftOfIn(InExpression in) {
        if (ParamCounter.count(in.getLeftExpression().toString()) > 0) return java.util.Optional.of(PlanException.unsupported("parameters left of IN (subquery) yet"));
        if (in.getLeftExpression() instanceof net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<?> l && l.size() > 1) {
            return java.util.Optional.of(PlanException.unsupported("row subqueries ((a, b) IN (SELECT ...)) yet"));
        }
        return java.util.Optional.empty();
    }

    /** The plan of {@code statement}, whose subqueries run first; rewrites a tree of its own ({@link PrivateTree}). */
    static Attempt<Plan.Query> plan(PlainSelect statement, Catalog catalog, InnerAttempt inner, SubqueryRounds.OuterPlanner outer) throws PlanException {
        var notApplicable = notApplicable(statement, catalog);
        if (notApplicable.isPresent()) return Attempt.notApplicable(notApplicable.get());
        PlainSelect select = PrivateTree.of(statement);
        var found = find(select);
        keepLabels(select);
        // a WHERE scalar of several rows stays in the statement as a subquery of no table where the statement then runs
        // inside each partition (one table, CoLocatedSubqueries): each raises 1242 only for a row that evaluates it, as one
        // MariaDB does. Not with LIMIT: a partition's LIMIT reads rows the merged LIMIT never reaches (1242 there, rows
        // on MariaDB); nor over joins; nor beside IN or EXISTS subqueries: bound as values they change the optimizer's
        // plan (a IN (1, 2) AND a = (SELECT ...) raises 1242 where a IN (SELECT ...) AND a = (SELECT ...) raises nothing).
        // There the error comes at once, as before.
        boolean severalRowsInPlace = found.stream().allMatch(f -> f.kind() == SubqueryRounds.Kind.SCALAR)
                && select.getFromItem() instanceof net.sf.jsqlparser.schema.Table
                && (select.getJoins() == null || select.getJoins().isEmpty()) && select.getLimit() == null && select.getOffset() == null
                && select.getFetch() == null;
        var slotted = slots(found, select::toString, inner, null, 1);
        if (!(slotted instanceof Attempt.Planned<Slots>(var slots))) return slotted.passUp();
        return Attempt.planned(new Plan.Query(new SubqueryRounds(slots.pieces(), slots.subqueries(), outer, severalRowsInPlace ? SubqueryRounds.SeveralRows.IN_PLACE : SubqueryRounds.SeveralRows.FAIL), slots.params()));
    }

    /**
     * The outer text cut around one slot per subquery ({@code pieces.size() == subqueries.size() + 1}) and the
     * subqueries' plans; {@code locking}: the same subqueries planned as locking reads, or null where one cannot be.
     */
    record Slots(List<String> pieces, List<SubqueryRounds.Subquery> subqueries, List<SubqueryRounds.Subquery> locking, int params) {}

    /**
     * An UPDATE's or DELETE's uncorrelated subqueries (in SET's values and WHERE) as slots, to run before the write
     * ({@code Plan.WriteAfterSubqueries}). {@code locking} plans a subquery as a locking read (InnoDB reads a write's
     * subqueries with shared locks at REPEATABLE READ and SERIALIZABLE), or says why the router cannot read it so. Rewrites a tree of its own
     * ({@link PrivateTree#ofWrite}): {@code write} stays as it was.
     */
    static Slots forWrite(net.sf.jsqlparser.statement.Statement write, Catalog catalog,
                          java.util.function.Predicate<Select> inPlace, Inner inner, InnerAttempt locking) throws PlanException {
        var copy = PrivateTree.ofWrite(write);
        var all = new ArrayList<Found>();
        if (copy instanceof net.sf.jsqlparser.statement.update.Update update) {
            for (Expression v : WriteSubqueries.setValues(update.getUpdateSets())) find(v, "SET", all);
        }
        Expression where = switch (copy) {
            case net.sf.jsqlparser.statement.update.Update update -> update.getWhere();
            case net.sf.jsqlparser.statement.delete.Delete delete -> delete.getWhere();
            default -> throw new IllegalStateException(String.valueOf(copy));
        };
        if (where != null) find(where, "WHERE", all);
        int kept = Guards.selectWords(copy.toString());
        var found = new ArrayList<Found>();
        for (Found f : all) {
            if (inPlace.test(f.select())) continue; // left in the write, which runs it inside each partition
            found.add(f);
            kept -= Guards.selectWords(f.select().toString());
        }
        requireUncorrelated(found, catalog);
        return slots(found, copy::toString, select -> Attempt.planned(inner.plan(select)), locking, kept).orThrow();
    }

    /** WHERE's {@code IN (SELECT ...)} and {@code EXISTS (SELECT ...)} subqueries (not negated), in text order, not looking inside them. */
    static List<Select> semiJoins(Expression where) {
        var found = new ArrayList<Found>();
        if (where != null) find(where, "WHERE", found);
        return found.stream().filter(f -> f.kind() == SubqueryRounds.Kind.IN || f.kind() == SubqueryRounds.Kind.EXISTS).map(Found::select).toList();
    }

    /** The subqueries of an UPDATE's SET values and a WHERE clause, in text order, not looking inside them. */
    static List<Select> of(List<Expression> values, Expression where) {
        var found = new ArrayList<Found>();
        for (Expression v : values) find(v, "SET", found);
        if (where != null) find(where, "WHERE", found);
        return found.stream().map(Found::select).toList();
    }

    private static void requireUncorrelated(List<Found> found, Catalog catalog) throws PlanException {
        var correlated = correlatedOne(found, catalog);
        if (correlated.isPresent()) throw correlated.get();
    }

    private static java.util.Optional<PlanException> correlatedOne(List<Found> found, Catalog catalog) {
        for (Found f : found) {
            if (f.select() instanceof PlainSelect p && Correlation.correlated(p, catalog)) {
                return java.util.Optional.of(PlanException.unsupported("correlated subqueries in " + f.clause() + " on tables not co-located "
                        + "with the outer table yet (" + f.select() + ")"));
            }
        }
        return java.util.Optional.empty();
    }

    /** The slots, or why not: a subquery {@code inner} gives no plan, or a shape the slots do not take. */
    private static Attempt<Slots> slots(List<Found> found, java.util.function.Supplier<String> printed, InnerAttempt inner, InnerAttempt locking,
                                        int ownSelects) throws PlanException {
        var subqueries = new ArrayList<SubqueryRounds.Subquery>();
        var lockingSubqueries = locking == null ? null : new ArrayList<SubqueryRounds.Subquery>();
        var slots = new ArrayList<String>();
        for (int i = 0; i < found.size(); i++) {
            Found f = found.get(i);
            var planned = inner.plan(f.select());
            if (!(planned instanceof Attempt.Planned<Plan.Query>(var plan))) return planned.passUp();
            Plan.Query locked = null;
            if (lockingSubqueries != null) {
                // a subquery the router cannot read as InnoDB locks it: decided when run, refused only where the read must lock
                switch (locking.plan(f.select())) {
                    case Attempt.Planned<Plan.Query> p -> locked = p.plan();
                    case Attempt.NotApplicable<Plan.Query> n -> lockingSubqueries = null;
                }
            }
            String left = null;
            String slot;
            switch (f.node()) {
                case InExpression in -> {
                    left = in.getLeftExpression().toString();
                    var notInSlot = leftOfIn(in);
                    if (notInSlot.isPresent()) return Attempt.notApplicable(notInSlot.get());
                    in.setLeftExpression(new Column("__LUTRA_L" + i + "__"));
                    in.setRightExpression(new Column("__LUTRA_R" + i + "__"));
                    slot = null;
                }
                case ExistsExpression e -> {
                    e.setRightExpression(new Column("__LUTRA_E" + i + "__"));
                    slot = null;
                }
                case ParenthesedSelect ps -> {
                    ps.setSelect(new PlainSelect().addSelectItems(new Column("__LUTRA_S" + i + "__")));
                    slot = "(SELECT __LUTRA_S" + i + "__)";
                }
                default -> throw new IllegalStateException(String.valueOf(f.node()));
            }
            subqueries.add(new SubqueryRounds.Subquery(f.kind(), plan.root(), plan.paramCount(), left, f.column(), !f.clause().equals("WHERE")
                    && !f.clause().equals("SET"), f.clause().equals("HAVING")));
            if (lockingSubqueries != null) {
                lockingSubqueries.add(new SubqueryRounds.Subquery(f.kind(), locked.root(), locked.paramCount(), left, f.column(), false, false));
            }
            slots.add(slot);
        }
        String text = printed.get();
        var pieces = new ArrayList<String>();
        int from = 0;
        for (int i = 0; i < found.size(); i++) {
            String slot = switch (found.get(i).kind()) {
                case IN -> "__LUTRA_L" + i + "__ IN __LUTRA_R" + i + "__";
                case NOT_IN -> "__LUTRA_L" + i + "__ NOT IN __LUTRA_R" + i + "__";
                case EXISTS -> "EXISTS __LUTRA_E" + i + "__";
                case NOT_EXISTS -> "NOT EXISTS __LUTRA_E" + i + "__";
                case SCALAR -> slots.get(i);
            };
            int at = text.indexOf(slot, from);
            if (at < 0) return Attempt.notApplicable(PlanException.unsupported("this subquery's shape yet (" + found.get(i).select() + ")"));
            pieces.add(text.substring(from, at));
            from = at + slot.length();
        }
        pieces.add(text.substring(from));
        // subqueries in ON, GROUP BY, ORDER BY are not planned here
        var subquery = Guards.subquery(String.join(" ? ", pieces), ownSelects);
        if (subquery.isPresent()) return Attempt.notApplicable(subquery.get());
        int params = ParamCounter.count(String.join("", pieces)) + subqueries.stream().mapToInt(SubqueryRounds.Subquery::params).sum();
        return Attempt.planned(new Slots(pieces, subqueries, lockingSubqueries, params));
    }

    /**
     * The subqueries of the select list, WHERE and HAVING, in text order, not looking inside them.
     * A scalar subquery that is a whole select item fills a result column of its own, known where
     * no {@code *} stands before it.
     */
    private static List<Found> find(PlainSelect select) {
        var out = new ArrayList<Found>();
        boolean star = false;
        for (int i = 0; i < select.getSelectItems().size(); i++) {
            var item = select.getSelectItems().get(i);
            if (!(item.getExpression() instanceof Expression e) || e instanceof AllColumns) {
                star = true;
                continue;
            }
            int before = out.size();
            find(e, "the select list", out);
            if (!star && out.size() == before + 1 && e instanceof ParenthesedSelect only && out.get(before).node() == only) {
                Found f = out.get(before);
                out.set(before, new Found(f.kind(), f.node(), f.select(), f.clause(), i));
            }
        }
        if (select.getWhere() != null) find(select.getWhere(), "WHERE", out);
        if (select.getHaving() != null) find(select.getHaving(), "HAVING", out);
        return out;
    }

    /**
     * MySQL labels an unaliased select item with its text: an item holding a subquery keeps that
     * label when the subquery becomes a value. ({@link Labels} aliased the items whose client text
     * differs from the printed one already.)
     */
    private static void keepLabels(PlainSelect select) {
        for (var item : select.getSelectItems()) {
            if (item.getAlias() != null || !(item.getExpression() instanceof Expression e) || e instanceof AllColumns) continue;
            var own = new ArrayList<Found>();
            find(e, "", own);
            if (!own.isEmpty()) item.setAlias(new Alias("`" + e.toString().replace("`", "``") + "`", true));
        }
    }

    private static void find(Expression where, String clause, List<Found> out) {
        where.accept(new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(InExpression in, S context) {
                if (in.getRightExpression() instanceof ParenthesedSelect ps) {
                    in.getLeftExpression().accept(this, context);
                    out.add(new Found(in.isNot() ? SubqueryRounds.Kind.NOT_IN : SubqueryRounds.Kind.IN, in, ps.getSelect(), clause, -1));
                    return null;
                }
                return super.visit(in, context);
            }

            @Override
            public <S> Void visit(ExistsExpression e, S context) {
                if (e.getRightExpression() instanceof ParenthesedSelect ps) {
                    out.add(new Found(e.isNot() ? SubqueryRounds.Kind.NOT_EXISTS : SubqueryRounds.Kind.EXISTS, e, ps.getSelect(), clause, -1));
                    return null;
                }
                return super.visit(e, context);
            }

            @Override
            public <S> Void visit(ParenthesedSelect ps, S context) {
                out.add(new Found(SubqueryRounds.Kind.SCALAR, ps, ps.getSelect(), clause, -1));
                return null;
            }

            @Override
            public <S> Void visit(Select select, S context) {
                if (select instanceof ParenthesedSelect ps) return visit(ps, context);
                return null;
            }
        }, null);
    }
}
