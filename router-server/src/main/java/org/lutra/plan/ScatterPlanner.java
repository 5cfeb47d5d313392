package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.MySQLGroupConcat;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.lutra.catalog.Catalog;
import org.lutra.exec.Aggregate;
import org.lutra.exec.Compute;
import org.lutra.exec.Distinct;
import org.lutra.exec.Filter;
import org.lutra.exec.MergeSort;
import org.lutra.exec.Operator;
import org.lutra.exec.ParamLimit;
import org.lutra.exec.Project;
import org.lutra.exec.Route;
import org.lutra.exec.Sort;
import org.lutra.exec.Target;
import org.lutra.merge.Expr;
import org.lutra.merge.SortKey;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the plan of a single-table SELECT over several partitions: rewrites the statement
 * (the tree it is given, which its caller makes its own: {@link PrivateTree}) into the one
 * each shard runs (hidden sort keys and weight strings appended to the select list, partial
 * aggregates in place of AVG and DISTINCT aggregates, LIMIT widened to offset + count) and
 * stacks the operators that merge the shards' answers into the one a single MySQL gives.
 *
 * <p>Three shapes:
 * <ul>
 *   <li>rows: shards sort (ORDER BY as written), the router merge-sorts, limits, drops the
 *       hidden columns. Also used for GROUP BY that includes the routing column (each group then
 *       lives on one partition and the shard's answer for it is final) and for DISTINCT whose
 *       items include it.</li>
 *   <li>distinct rows: rows final on their partition but for a DISTINCT: shards de-duplicate and
 *       sort by the items, the router merge-sorts and de-duplicates again, then sorts and limits.</li>
 *   <li>groups: shards group and sort by the group keys, the router merge-sorts, combines the
 *       partial aggregates group by group, applies HAVING and DISTINCT, sorts by the client's
 *       ORDER BY, limits, projects.</li>
 * </ul>
 * Names in GROUP BY, HAVING and ORDER BY mean what they mean to MySQL ({@link ItemNames}); the
 * shards are told the keys by position. Whatever it cannot merge exactly it refuses with a
 * {@link PlanException} naming the construct.
 */
final class ScatterPlanner {

    private final PlainSelect select;
    private final Sources sources;
    private final Target target;
    private final Catalog catalog;
    /** The shard statement's columns: the client's (visible), then the hidden ones the merge adds (set by build). */
    private ShardColumns columns;
    /** How GROUP BY, HAVING and ORDER BY names resolve against the visible columns and the tables (set by build). */
    private ItemNames names;
    /** The statement's group keys as {@link ItemNames#group} resolved them, and the merge's key for each. */
    private final List<Expression> groupExpressions = new ArrayList<>();
    private final List<SortKey> groupKeys = new ArrayList<>();

    ScatterPlanner(PlainSelect select, Sources sources, Target target, Catalog catalog) {
        this.params = ParamCounter.count(select.toString()) - MergedLimit.params(select);
        this.catalog = catalog;
        this.select = select;
        this.sources = sources;
        this.target = target;
    }

    Operator build() throws PlanException {
        refuseUnmergeable();
        columns = new ShardColumns(select, sources);
        names = new ItemNames(columns.visible(), columns.aliases(), sources);
        // aggregates anywhere make one group of all rows; HAVING alone filters rows (MySQL's extension)
        boolean aggregates = select.getSelectItems().stream().anyMatch(i -> i.getExpression() instanceof Expression x && AggregateFunctions.hasAggregate(x))
                || select.getHaving() != null && AggregateFunctions.hasAggregate(select.getHaving())
                || select.getOrderByElements() != null && select.getOrderByElements().stream().anyMatch(o -> AggregateFunctions.hasAggregate(o.getExpression()));
        if ((select.getGroupBy() != null || aggregates) && !partitionLocalGroups()) return groups();
        if (select.getDistinct() != null && (!holdsRoutingColumn(columns.visible()) || distinctOverAggregates())) return distinctRows();
        return rows();
    }

    // ---- rows: ORDER BY / LIMIT over rows that are final on their partition ------------------------

    private Operator rows() throws PlanException {
        var keys = orderKeys();
        ParamLimit.Bound[] limit = MergedLimit.of(select);
        if (limit != null) MergedLimit.widenOnShards(select, limit);
        Route route = route();
        Operator root = keys.isEmpty() ? route : new MergeSort(route, keys);
        root = MergedLimit.apply(root, limit, true);
        return project(root);
    }

    /** A DISTINCT over groups whose items hold aggregates: the router removes its duplicates, never MariaDB (see distinctRows). */
    private boolean distinctOverAggregates() {
        return select.getGroupBy() != null && columns.visible().stream().anyMatch(AggregateFunctions::hasAggregate);
    }

    /**
     * SELECT DISTINCT over rows that are final on their partition but for the DISTINCT (no grouping,
     * or groups that each live on one partition), whose items do not hold the routing column or are aggregates: each
     * shard removes its own duplicates and sorts by the items that vary, the router merges and
     * removes the duplicates between partitions, then orders and limits. The shards get DISTINCT
     * as DISTINCT, not as GROUP BY: MySQL evaluates a GROUP BY's constant subquery even where no
     * row matches, a DISTINCT's only for the rows it returns. Groups of aggregates go without DISTINCT.
     */
    private Operator distinctRows() throws PlanException {
        var keys = new ArrayList<SortKey>();
        var varying = new ArrayList<SortKey>();
        for (int i = 0; i < columns.visible().size(); i++) {
            Expression item = columns.visible().get(i);
            SortKey key = columns.withWeight(SortKey.asc(i), item);
            keys.add(key);
            if (!Constants.sameOnEveryRow(item, catalog)) varying.add(key);
        }
        var orderKeys = orderKeys();
        ParamLimit.Bound[] limit = MergedLimit.of(select);
        // Groups whose items hold aggregates go to the router as they are: MariaDB 11.4 answers a DISTINCT over such items
        // wrongly (duplicates kept, or distinct rows lost: SELECT DISTINCT AVG(a), COUNT(NULL) / SUM(k) ... GROUP BY id),
        // and the router removes the duplicates anyway.
        if (distinctOverAggregates()) select.setDistinct(null);
        select.setOrderByElements(positions(varying));
        select.setLimit(null);
        select.setOffset(null);
        Route route = route();
        Operator root = varying.isEmpty() ? route : new MergeSort(route, varying);
        root = new Distinct(root, keys);
        if (!orderKeys.isEmpty()) root = new Sort(root, orderKeys);
        root = MergedLimit.apply(root, limit, false);
        return project(root);
    }

    /** The client's ORDER BY over final rows: each term the column of the select item it names or equals, else a hidden copy. */
    private List<SortKey> orderKeys() throws PlanException {
        var keys = new ArrayList<SortKey>();
        if (select.getOrderByElements() == null) return keys;
        for (OrderByElement o : select.getOrderByElements()) {
            ItemNames.Resolved r = names.order(o.getExpression());
            int column = r.item() >= 0 ? r.item() : columns.columnOf(r.expression());
            keys.add(columns.withWeight(new SortKey(column, !o.isAsc(), -1), columns.expressionOf(column)));
        }
        return keys;
    }

    /** ORDER BY the shard's columns of {@code keys}, ascending (the router merges by their weights), or null for none. */
    static List<OrderByElement> positions(List<SortKey> keys) {
        var order = new ArrayList<OrderByElement>();
        for (SortKey k : keys) order.add(new OrderByElement().withExpression(new LongValue(k.column() + 1)).withAsc(true));
        return order.isEmpty() ? null : order;
    }

    /**
     * GROUP BY whose keys include the routing column: no group spans two partitions, and each
     * shard's groups are final. Not WITH ROLLUP: its super-aggregate rows sum over groups of every partition.
     */
    private boolean partitionLocalGroups() throws PlanException {
        if (target.table().partitioning().column() == null || select.getGroupBy() == null) return false;
        if (select.getGroupBy().isMysqlWithRollup()) return false;
        var keys = new ArrayList<Expression>();
        for (Object g : select.getGroupBy().getGroupByExpressionList()) keys.add(names.group((Expression) g).expression());
        return holdsRoutingColumn(keys);
    }

    private boolean holdsRoutingColumn(List<Expression> keys) {
        for (Expression k : keys) {
            if (k instanceof Column c && sources.isRoutingColumn(c) && !nullExtended(sources.sourceOf(c))) return true;
        }
        return false;
    }

    /**
     * Whether an outer join may give {@code s}'s columns NULL (the right side of a LEFT JOIN, the tables
     * before a RIGHT JOIN): every partition makes such NULLs, so its routing column no longer tells the
     * partitions' rows apart.
     */
    private boolean nullExtended(Sources.Source s) {
        var joins = select.getJoins();
        if (joins == null) return false;
        int index = -1;
        for (int i = 0; i < sources.all().size(); i++) if (sources.all().get(i) == s) index = i;
        for (int j = 0; j < joins.size(); j++) {
            if (joins.get(j).isLeft() && index == j + 1 || joins.get(j).isRight() && index <= j) return true;
        }
        return false;
    }

    // ---- groups: aggregates merged by the router ---------------------------------------------------

    private Operator groups() throws PlanException {
        GroupByElement groupBy = select.getGroupBy();
        if (groupBy != null && groupBy.getGroupingSets() != null && !groupBy.getGroupingSets().isEmpty()) {
            throw PlanException.unsupported("GROUPING SETS over several partitions yet");
        }
        boolean rollup = groupBy != null && groupBy.isMysqlWithRollup();
        if (rollup) ScatterGroups.requireRollupItems(select, groupBy, names, columns);
        if (groupBy != null) {
            for (Object g : groupBy.getGroupByExpressionList()) {
                ItemNames.Resolved r = names.group((Expression) g);
                int column = r.item() >= 0 ? r.item() : columns.columnOf(r.expression());
                groupExpressions.add(r.expression());
                groupKeys.add(columns.withWeight(SortKey.asc(column), columns.expressionOf(column)));
            }
        }
        var aggregates = new PartialAggregates(columns);
        var computed = new ArrayList<Compute.Item>();
        for (int i = 0; i < columns.visible().size(); i++) {
            Expression e = columns.visible().get(i);
            if (!AggregateFunctions.hasAggregate(e)) continue;
            if (e instanceof Function f && f.getName().equalsIgnoreCase("GROUP_CONCAT") && !f.isDistinct()
                    && (f.getOrderByElements() == null || f.getOrderByElements().isEmpty())) {
                aggregates.groupConcat(f, i);
            } else if (e instanceof Function f && AggregateFunctions.isAggregate(f)) {
                aggregates.inPlace(f, i);
            } else if (e instanceof MySQLGroupConcat gc) {
                aggregates.groupConcat(gc, i);
            } else {
                var item = columns.itemAt(i);
                String label = item.getAlias() != null ? item.getAlias().getName() : Sources.quote(e.toString());
                item.setExpression(new NullValue());
                item.setAlias(new Alias(label, true));
                computed.add(new Compute.Item(i, compiler(aggregates, false).compile(e), e.toString()));
            }
        }
        var havingCompiler = compiler(aggregates, true);
        Expr having = select.getHaving() == null ? null : havingCompiler.compile(select.getHaving());
        String havingText = select.getHaving() == null ? null : select.getHaving().toString();
        List<SortKey> distinctRows = select.getDistinct() == null ? null : ScatterGroups.distinctOverGroups(columns, groupKeys, aggregates);
        var orderKeys = new ArrayList<SortKey>();
        if (select.getOrderByElements() != null) {
            for (OrderByElement o : select.getOrderByElements()) {
                ItemNames.Resolved r = names.order(o.getExpression());
                Expression e = r.expression();
                int column = r.item() >= 0 ? r.item() : columns.find(e);
                if (column < 0 && e instanceof Function f && AggregateFunctions.isAggregate(f)) {
                    column = aggregates.hidden(f);
                } else if (column < 0) {
                    if (AggregateFunctions.hasAggregate(e)) throw PlanException.unsupported("ORDER BY an expression over aggregates over several partitions yet (" + e + ")");
                    column = columns.columnOf(e); // a non-aggregated expression: its value in the group's first row
                }
                var key = new SortKey(column, !o.isAsc(), weightOf(column, aggregates));
                Expression value = columns.expressionOf(column);
                if (key.weightColumn() < 0 && !isGroupKey(column) && aggregates.at(column) == null && !AggregateFunctions.hasAggregate(value)) {
                    key = columns.withWeight(key, value); // a value of the group's first row: text by its weight too
                }
                orderKeys.add(key);
            }
        }
        ParamLimit.Bound[] limit = MergedLimit.of(select); // with the HAVING clause still there: its '?' come before LIMIT's
        // the router evaluates HAVING, so the shards' statement goes without it and its parameters (the Filter takes them)
        select.setHaving(null);
        params -= havingCompiler.params();
        // the shards group by the columns the router merges on (also by a DISTINCT aggregate's argument), named by
        // position: a name could mean another column in the shard's select list, a literal would be read as a position
        var mergeKeys = new ArrayList<>(groupKeys);
        SortKey distinctKey = null;
        if (aggregates.distinctArgument() != null) {
            distinctKey = columns.withWeight(SortKey.asc(aggregates.distinctColumn()), aggregates.distinctArgument());
            mergeKeys.add(distinctKey);
        }
        var shardGroups = new ExpressionList<Expression>();
        for (SortKey k : mergeKeys) shardGroups.add(new LongValue(k.column() + 1));
        select.setGroupByElement(shardGroups.isEmpty() ? null : new GroupByElement().withGroupByExpressions(shardGroups));
        select.setDistinct(null);
        select.setOrderByElements(positions(mergeKeys));
        select.setLimit(null);
        select.setOffset(null);
        // without group keys every partition answers one row, where none matches too (its items over a row of NULLs):
        // select items outside aggregates are taken from a row that counts rows
        int rowCount = mergeKeys.isEmpty() && columns.visible().stream().anyMatch(e -> !AggregateFunctions.hasAggregate(e)) ? countAll() : -1;
        Route route = route();
        Operator root = mergeKeys.isEmpty() ? route : new MergeSort(route, mergeKeys);
        if (rollup && (distinctKey != null || aggregates.all().stream().anyMatch(a -> a.kind() == Aggregate.Kind.GROUP_CONCAT))) {
            throw PlanException.unsupported("WITH ROLLUP together with DISTINCT aggregates or GROUP_CONCAT over several partitions yet");
        }
        root = groupKeys.isEmpty() ? Aggregate.scalar(root, aggregates.all(), distinctKey, distinctKey != null ? ScatterGroups.noRows(select, columns, target) : null, rowCount)
                : rollup ? Aggregate.withRollup(root, groupKeys, aggregates.all(), distinctKey) : new Aggregate(root, groupKeys, aggregates.all(), distinctKey);
        if (!computed.isEmpty()) root = new Compute(root, computed);
        if (having != null) root = new Filter(root, having, havingText, havingCompiler.params());
        if (distinctRows != null) root = new Distinct(new Sort(root, distinctRows), distinctRows);
        if (!orderKeys.isEmpty()) root = new Sort(root, orderKeys);
        root = MergedLimit.apply(root, limit, false);
        return project(root);
    }

    /** The column of the shards' COUNT(*): the client's own, else a hidden one. */
    private int countAll() {
        var countAll = new Function("COUNT", new AllColumns());
        int column = columns.find(countAll);
        return column >= 0 ? column : columns.hidden(countAll);
    }

    private GroupExprCompiler compiler(PartialAggregates aggregates, boolean having) {
        return new GroupExprCompiler(columns, aggregates, names, groupExpressions, groupKeys, having);
    }

    private boolean isGroupKey(int column) {
        return groupKeys.stream().anyMatch(k -> k.column() == column);
    }

    /** For ORDER BY after aggregation: the weight column of a group key or MIN/MAX, if the column has one. */
    private int weightOf(int column, PartialAggregates aggregates) {
        for (SortKey k : groupKeys) if (k.column() == column) return k.weightColumn();
        var a = aggregates.at(column);
        return a == null ? -1 : a.weight();
    }

    // ---- shared ------------------------------------------------------------------------------------

    private void refuseUnmergeable() throws PlanException {
        if (select.getOrderByElements() != null) {
            for (var o : select.getOrderByElements()) {
                if (o.getNullOrdering() != null) throw PlanException.unsupported("NULLS FIRST / NULLS LAST");
                if (ParamCounter.count(o.toString()) > 0) throw PlanException.unsupported("parameters in ORDER BY over several partitions yet");
            }
        }
        if (select.getGroupBy() != null && ParamCounter.count(select.getGroupBy().toString()) > 0) {
            throw PlanException.unsupported("parameters in GROUP BY over several partitions yet");
        }
        if (select.getDistinct() != null && select.getDistinct().getOnSelectItems() != null && !select.getDistinct().getOnSelectItems().isEmpty()) {
            throw PlanException.unsupported("DISTINCT ON");
        }
        if (select.getMySqlSqlCalcFoundRows()) throw PlanException.unsupported("SQL_CALC_FOUND_ROWS");
        if (select.getIntoTables() != null || select.getMySqlSelectIntoClause() != null) throw PlanException.unsupported("SELECT ... INTO");
    }

    /** How many '?' the statement has outside its LIMIT: the shard SQL must have them once each, in order. */
    private int params;

    private Route route() throws PlanException {
        // an item the merge repeats (a DISTINCT key sorted by, a select item with its sort weight) would repeat its '?'
        // (the LIMIT's own '?' are the router's: ParamLimit rewrites them, so they are left out of the count)
        if (ParamCounter.count(select.toString()) - MergedLimit.params(select) != params) {
            throw PlanException.unsupported("parameters in select items that the merge over several partitions repeats (DISTINCT, "
                    + "ORDER BY an item) yet");
        }
        var driving = sources.drivingSource();
        KeyMatch keys = target.keys() == null ? null
                : new KeyFinder(driving.table().partitioning().column(), driving.table().name(), driving.alias()).find(select.getWhere(), select);
        return new Route(target, select.toString(), keys instanceof KeyMatch.In in ? in.template() : null);
    }

    private Operator project(Operator root) {
        if (!columns.anyHidden()) return root;
        int[] keep = new int[columns.visible().size()];
        for (int i = 0; i < keep.length; i++) keep[i] = i;
        return new Project(root, keep, null);
    }
}
