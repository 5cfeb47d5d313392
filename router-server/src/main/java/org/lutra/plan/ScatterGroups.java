package org.lutra.plan;

import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import org.lutra.exec.Aggregate;
import org.lutra.exec.Compute;
import org.lutra.exec.Distinct;
import org.lutra.exec.Filter;
import org.lutra.exec.Operator;
import org.lutra.exec.ParamLimit;
import org.lutra.exec.Project;
import org.lutra.exec.Route;
import org.lutra.exec.Sort;
import org.lutra.exec.Target;
import org.lutra.merge.Expr;
import org.lutra.merge.SortKey;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntPredicate;

/**
 * What {@link ScatterPlanner}'s groups shape needs beyond merging partial aggregates: WITH ROLLUP's conditions, the
 * keys of a SELECT DISTINCT and of the ORDER BY over merged groups, and the partitions' statement over no rows that answers a scalar
 * aggregate where no row matches.
 */
final class ScatterGroups {
    private ScatterGroups() {}

    /**
     * WITH ROLLUP over several partitions: the router adds the super-aggregate rows, with the
     * rolled-up key columns NULL. That is MySQL's answer only where every select item outside an
     * aggregate is one of the GROUP BY columns itself (MySQL would compute an expression over a
     * rolled-up key from its NULL) and no ORDER BY reorders the rows. The shards group without it. Empty where the
     * router rolls up; else the refusal of what it cannot, or the statement's error in a GROUP BY term.
     */
    static Optional<PlanException> rollupNotApplicable(PlainSelect select, GroupByElement groupBy, ItemNames names, ShardColumns columns) {
        if (select.getOrderByElements() != null && !select.getOrderByElements().isEmpty()) {
            return Optional.of(PlanException.unsupported("WITH ROLLUP together with ORDER BY over several partitions yet"));
        }
        var keys = new ArrayList<String>();
        for (Object g : groupBy.getGroupByExpressionList()) {
            var resolved = names.group((Expression) g);
            if (resolved instanceof Attempt.NotApplicable<ItemNames.Resolved> error) return Optional.of(error.reason());
            Expression k = ((Attempt.Planned<ItemNames.Resolved>) resolved).plan().expression();
            if (!(k instanceof Column)) return Optional.of(PlanException.unsupported("WITH ROLLUP grouped by an expression (" + k + ") over several partitions yet"));
            keys.add(k.toString().toLowerCase(Locale.ROOT));
        }
        for (Expression e : columns.visible()) {
            if (AggregateFunctions.hasAggregate(e)) {
                if (AggregateFunctions.hasColumnOutsideAggregates(e)) {
                    return Optional.of(PlanException.unsupported("WITH ROLLUP with the select item " + e + ", which mixes columns and aggregates, over several partitions yet"));
                }
                continue;
            }
            if (!(e instanceof Column) || !keys.contains(e.toString().toLowerCase(Locale.ROOT))) {
                return Optional.of(PlanException.unsupported("WITH ROLLUP with the select item " + e + ", which is not a GROUP BY column, over several partitions yet"));
            }
        }
        groupBy.setMysqlWithRollup(false); // the shards group; the router rolls up
        return Optional.empty();
    }

    /**
     * SELECT DISTINCT over merged groups: what compares each select item as MySQL's DISTINCT
     * would (text by its weight string): a group key's own key, MIN/MAX's weight, numbers as they are. Not applicable:
     * a GROUP_CONCAT among the items.
     */
    static Attempt<List<SortKey>> distinctOverGroups(ShardColumns columns, List<SortKey> groupKeys, PartialAggregates aggregates) {
        var keys = new ArrayList<SortKey>();
        for (int i = 0; i < columns.visible().size(); i++) {
            final int column = i;
            var key = groupKeys.stream().filter(k -> k.column() == column).findFirst().orElse(null);
            var aggregation = aggregates.at(i);
            if (key != null) {
                keys.add(key);
            } else if (aggregation != null && aggregation.kind() == Aggregate.Kind.GROUP_CONCAT) {
                return Attempt.notApplicable(PlanException.unsupported("SELECT DISTINCT over GROUP_CONCAT over several partitions yet"));
            } else if (aggregation != null) {
                keys.add(new SortKey(i, false, aggregation.weight()));
            } else if (AggregateFunctions.hasAggregate(columns.visible().get(i))) {
                keys.add(SortKey.asc(i)); // computed by the router from numbers: a number
            } else {
                keys.add(columns.withWeight(SortKey.asc(i), columns.visible().get(i))); // a value of the group's first row
            }
        }
        return Attempt.planned(keys);
    }

    /**
     * A term of the client's ORDER BY over merged groups: the column of the select item, group key or aggregate it
     * names (an aggregate not selected computed hidden), by its weight where it is text. Not applicable: an expression
     * over aggregates, or what resolving it meets.
     */
    static Attempt<SortKey> orderKey(OrderByElement o, ItemNames names, ShardColumns columns, PartialAggregates aggregates, List<SortKey> groupKeys) {
        var resolved = names.order(o.getExpression());
        if (!(resolved instanceof Attempt.Planned<ItemNames.Resolved>(ItemNames.Resolved r))) return resolved.passUp();
        Expression e = r.expression();
        int column = r.item() >= 0 ? r.item() : columns.find(e);
        if (column < 0) {
            Attempt<Integer> found;
            if (e instanceof Function f && AggregateFunctions.isAggregate(f)) {
                found = aggregates.hidden(f);
            } else if (AggregateFunctions.hasAggregate(e)) {
                return Attempt.notApplicable(PlanException.unsupported("ORDER BY an expression over aggregates over several partitions yet (" + e + ")"));
            } else {
                found = columns.columnOf(e); // a non-aggregated expression: its value in the group's first row
            }
            if (!(found instanceof Attempt.Planned<Integer>(Integer c))) return found.passUp();
            column = c;
        }
        final int sorted = column;
        var groupKey = groupKeys.stream().filter(k -> k.column() == sorted).findFirst();
        var aggregation = aggregates.at(column);
        // a group key's or MIN/MAX's weight column, where it has one
        int weight = groupKey.map(SortKey::weightColumn).orElse(aggregation == null ? -1 : aggregation.weight());
        var key = new SortKey(column, !o.isAsc(), weight);
        Expression value = columns.expressionOf(column);
        if (key.weightColumn() < 0 && groupKey.isEmpty() && aggregation == null && !AggregateFunctions.hasAggregate(value)) {
            key = columns.withWeight(key, value); // a value of the group's first row: text by its weight too
        }
        return Attempt.planned(key);
    }

    /**
     * For scalar aggregates whose shards group by a DISTINCT aggregate's argument (and so return
     * no row where no row matches): the shards' statement over no rows (WHERE ... AND FALSE, not
     * grouped, COUNT(*) added so that it is an aggregate and answers one row), whose row the
     * router combines instead. MySQL computes the other select items over a row of NULLs
     * ({@code -71}, {@code COALESCE(c, 5)}); the shard computes them the same way.
     */
    static Operator noRows(PlainSelect select, ShardColumns columns, Target target) {
        var where = select.getWhere();
        var groupBy = select.getGroupBy();
        var order = select.getOrderByElements();
        int width = columns.width();
        select.setWhere(where == null ? new BooleanValue(false) : new AndExpression(new ParenthesedExpressionList<>(where), new BooleanValue(false)));
        select.setGroupByElement(null);
        select.setOrderByElements(null);
        select.getSelectItems().add(new SelectItem<>(new Function("COUNT", new AllColumns())));
        String sql = select.toString();
        select.getSelectItems().removeLast();
        select.setWhere(where);
        select.setGroupByElement(groupBy);
        select.setOrderByElements(order);
        int[] keep = new int[width];
        for (int i = 0; i < width; i++) keep[i] = i;
        return new Project(new Route(target, sql, null), keep, null);
    }

    /**
     * The merged groups' computed items ({@code computed}), HAVING ({@code having}, null for none; its text and parameter
     * count), DISTINCT ({@code distinctRows}, null for none), ORDER BY and LIMIT (null for none) in MariaDB's order of work: it
     * computes a select item only for the rows it sends, and for the rows HAVING, DISTINCT or ORDER BY reads it on where they
     * read it. So an item that would fail (out of range, say) on a group HAVING drops, a row OFFSET skips or a row after
     * LIMIT's last fails only where MariaDB's fails.
     */
    static Operator finished(Operator groups, List<Compute.Item> computed, Expr having, String havingText, int havingParams,
                             List<SortKey> distinctRows, List<SortKey> orderKeys, ParamLimit.Bound[] limit) {
        var left = new ArrayList<>(computed);
        Operator root = groups;
        if (having != null) {
            root = new Filter(computed(root, taken(left, c -> Expr.reads(having, x -> x == c))), having, havingText, havingParams);
        }
        if (distinctRows != null) root = new Distinct(new Sort(computed(root, taken(left, c -> true)), distinctRows), distinctRows);
        if (!orderKeys.isEmpty()) {
            root = new Sort(computed(root, taken(left, c -> orderKeys.stream().anyMatch(k -> k.column() == c || k.weightColumn() == c))), orderKeys);
        }
        return computed(MergedLimit.apply(root, limit, false), left);
    }

    /** The items of {@code left} whose column {@code read} holds, taken out of it. */
    private static List<Compute.Item> taken(List<Compute.Item> left, IntPredicate read) {
        var taken = left.stream().filter(i -> read.test(i.column())).toList();
        left.removeAll(taken);
        return taken;
    }

    private static Operator computed(Operator root, List<Compute.Item> items) {
        return items.isEmpty() ? root : new Compute(root, items);
    }

    /** Whether ordering by {@code order} keeps the groups in the order grouping made them: a prefix of the keys, one direction. */
    static boolean inGroupOrder(List<SortKey> order, List<SortKey> groupKeys) {
        if (order.size() > groupKeys.size()) return false;
        for (int i = 0; i < order.size(); i++) {
            if (order.get(i).column() != groupKeys.get(i).column() || order.get(i).descending() != order.getFirst().descending()) return false;
        }
        return true;
    }
}
