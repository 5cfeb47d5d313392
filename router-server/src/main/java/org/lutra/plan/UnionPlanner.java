package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperation;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.UnionOp;
import org.lutra.catalog.Catalog;
import org.lutra.exec.Limit;
import org.lutra.exec.Operator;
import org.lutra.exec.Plan;
import org.lutra.exec.Project;
import org.lutra.exec.Sort;
import org.lutra.exec.Union;
import org.lutra.merge.SortKey;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;

/**
 * Plans {@code SELECT ... UNION [ALL] SELECT ...}: every branch gets its own plan (one partition
 * or several, as it needs), a {@link Union} runs them in turn, and an ORDER BY / LIMIT on the
 * whole union is applied by the router. For UNION (distinct) and for ORDER BY, each branch also
 * returns {@code WEIGHT_STRING(item AS CHAR(512))} per select item; MySQL compares a union's text
 * in the collation it derives across the branches, which a probe asks of a backend when the union
 * runs ({@link UnionProbes}), and text of a branch whose item has another collation is weighed
 * again in the union's.
 */
final class UnionPlanner {
    /** Plans one branch: a plain SELECT, through the planner's usual path. */
    interface BranchPlanner {
        /** The branch's plan, or the refusal of the planner that plans it; an error of the statement (an unknown table) is thrown. */
        Attempt<Plan.Query> plan(PlainSelect select) throws PlanException;
    }

    private UnionPlanner() {}

    /**
     * The union merged by the router, or why it cannot be: a set operation other than UNION, UNION mixed with UNION ALL,
     * a shape of branch, ORDER BY or LIMIT the merge does not take, or a branch its own planner refuses (the first of these
     * met, in the order the statement is read). An error of the statement (branches with different numbers of columns, an
     * ORDER BY position past the last column, an unknown table in a branch) is thrown.
     */
    static Attempt<Plan.Query> plan(SetOperationList list, Catalog catalog, BranchPlanner branches) throws PlanException {
        boolean distinct = false;
        boolean all = false;
        for (SetOperation op : list.getOperations()) {
            if (!(op instanceof UnionOp)) return Attempt.notApplicable(PlanException.unsupported(op + " (only UNION and UNION ALL)"));
            if (op.isAll()) all = true; else distinct = true;
        }
        if (distinct && all) return Attempt.notApplicable(PlanException.unsupported("UNION and UNION ALL mixed in one statement yet"));
        if (list.getWithItemsList() != null && !list.getWithItemsList().isEmpty()) return Attempt.notApplicable(PlanException.unsupported("WITH (common table expressions) yet"));
        boolean ordered = list.getOrderByElements() != null && !list.getOrderByElements().isEmpty();
        boolean weighted = distinct || ordered;
        var plans = new ArrayList<Operator>();
        var paramCounts = new ArrayList<Integer>();
        int visible = -1;
        List<String> names = null;
        var probed = new ArrayList<String>();
        for (Select branch : list.getSelects()) {
            var notPlain = plainNotApplicable(branch);
            if (notPlain.isPresent()) return Attempt.notApplicable(notPlain.get());
            PlainSelect select = Planner.alone(plainOf(branch));
            if (weighted) {
                int n = select.getSelectItems().size();
                if (visible >= 0 && n != visible) {
                    throw new PlanException("21000", 1222, "The used SELECT statements have a different number of columns");
                }
                visible = n;
                if (names == null) names = names(select);
            }
            probed.add(UnionProbes.branch(select));
            if (weighted) {
                var star = weightsNotApplicable(select);
                if (star.isPresent()) return Attempt.notApplicable(star.get());
                addWeights(select);
            }
            switch (branches.plan(select)) {
                case Attempt.Planned<Plan.Query> planned -> {
                    plans.add(planned.plan().root());
                    paramCounts.add(planned.plan().paramCount());
                }
                case Attempt.NotApplicable<Plan.Query> refused -> {
                    return refused;
                }
            }
        }
        var duplicates = distinct ? Union.Duplicates.REMOVED : Union.Duplicates.KEPT;
        var collations = UnionProbes.of(list, probed, duplicates, catalog);
        Operator root = new Union(plans, paramCounts.stream().mapToInt(Integer::intValue).toArray(), duplicates, weighted ? visible : -1, collations);
        if (ordered) {
            var keys = new ArrayList<SortKey>();
            for (OrderByElement o : list.getOrderByElements()) {
                int column = column(o.getExpression(), names, visible);
                if (column < 0) {
                    return Attempt.notApplicable(PlanException.unsupported("ORDER BY on a UNION by anything but a position or a column name of the first"
                            + " SELECT (" + o.getExpression() + ")"));
                }
                keys.add(new SortKey(column, !o.isAsc(), visible + column));
            }
            root = new Sort(root, keys);
        }
        if (list.getLimit() != null || list.getOffset() != null) {
            var limit = list.getLimit();
            Expression offset = limit != null && limit.getOffset() != null ? limit.getOffset() : list.getOffset() != null ? list.getOffset().getOffset() : null;
            if (limit == null || !(limit.getRowCount() instanceof LongValue count) || offset != null && !(offset instanceof LongValue)) {
                return Attempt.notApplicable(PlanException.unsupported("LIMIT with parameters or OFFSET alone on a UNION yet"));
            }
            root = new Limit(root, offset == null ? 0 : ((LongValue) offset).getValue(), count.getValue());
        }
        if (weighted) {
            int[] keep = new int[visible];
            for (int i = 0; i < visible; i++) keep[i] = i;
            root = new Project(root, keep, null);
        }
        int params = paramCounts.stream().mapToInt(Integer::intValue).sum();
        return new Attempt.Planned<>(new Plan.Query(root, params));
    }

    /** Why {@code branch} is not a SELECT the union plans as a branch of its own: a nested set operation, ORDER BY or LIMIT outside its parentheses. */
    static java.util.Optional<PlanException> plainNotApplicable(Select branch) {
        if (branch instanceof PlainSelect) return java.util.Optional.empty();
        if (branch instanceof ParenthesedSelect p && p.getSelect() instanceof PlainSelect) {
            if (p.getOrderByElements() != null || p.getLimit() != null) {
                return java.util.Optional.of(PlanException.unsupported("ORDER BY or LIMIT outside a parenthesized UNION branch yet"));
            }
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(PlanException.unsupported("nested set operations in a UNION yet (" + branch + ")"));
    }

    /** The SELECT of a branch {@link #plainNotApplicable} takes. */
    private static PlainSelect plainOf(Select branch) {
        return branch instanceof ParenthesedSelect p ? (PlainSelect) p.getSelect() : (PlainSelect) branch;
    }

    /** The label each select item of the first branch gives its column: its alias, else a column's name, else its text. */
    private static List<String> names(PlainSelect select) {
        var out = new ArrayList<String>();
        for (var item : select.getSelectItems()) {
            if (item.getAlias() != null) out.add(KeyFinder.unquote(item.getAlias().getName()));
            else if (item.getExpression() instanceof Column c) out.add(KeyFinder.unquote(c.getColumnName()));
            else out.add(String.valueOf(item.getExpression()));
        }
        return out;
    }

    /** Why a branch's columns cannot be weighed ({@link #addWeights}): a {@code *} among them. */
    static java.util.Optional<PlanException> weightsNotApplicable(PlainSelect select) {
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof AllColumns) {
                return java.util.Optional.of(PlanException.unsupported("SELECT * in a UNION with ORDER BY or without ALL yet: name the columns"));
            }
        }
        return java.util.Optional.empty();
    }

    /** Each select item's weight as a column after the visible ones ({@link #weightsNotApplicable} asked first). */
    private static void addWeights(PlainSelect select) {
        var weights = new ArrayList<Expression>();
        for (var item : select.getSelectItems()) weights.add(weightString((Expression) item.getExpression()));
        for (Expression w : weights) select.addSelectItems(w);
    }

    /**
     * {@code WEIGHT_STRING(e AS CHAR(512))} in the server's other spelling, {@code WEIGHT_STRING(e, 0, 512, 64)} (result length
     * 0: as long as needed; 512 characters; flag 64, MY_STRXFRM_PAD_WITH_SPACE, the padding AS CHAR asks for), which the SQL
     * parser reads: a branch that runs in rounds (its subqueries first) is planned again from its text.
     */
    private static Expression weightString(Expression e) {
        var f = new net.sf.jsqlparser.expression.Function();
        f.setName("WEIGHT_STRING");
        f.setParameters(new net.sf.jsqlparser.expression.operators.relational.ExpressionList<>(e, new LongValue(0),
                new LongValue(ShardColumns.EXPRESSION_TEXT_LENGTH), new LongValue(64)));
        return f;
    }

    /** The union's column {@code e} orders by, or -1 where it names none the merge can find (refused by the caller). */
    private static int column(Expression e, List<String> names, int visible) throws PlanException {
        if (e instanceof LongValue p) {
            if (p.getValue() < 1 || p.getValue() > visible) throw new PlanException("42S22", 1054, "Unknown column '" + p + "' in 'order clause'");
            return (int) p.getValue() - 1;
        }
        if (e instanceof Column c && c.getTable() == null) {
            String name = KeyFinder.unquote(c.getColumnName());
            for (int i = 0; i < names.size(); i++) if (names.get(i).equalsIgnoreCase(name)) return i;
        }
        return -1;
    }
}
