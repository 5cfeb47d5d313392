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
import java.util.Optional;

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
 * shards are told the keys by position. Whatever it cannot merge exactly makes the merge not applicable
 * ({@link Attempt.NotApplicable}), with the refusal that names the construct: {@link #build} answers it as a value, each
 * step passing up the first one its parts meet; an error of the statement its items show (an ORDER BY position past the
 * select list, an ambiguous name) is answered the same way, as the reason to give when an execution needs several partitions.
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

    /** The operators that merge the partitions' answers, or why the merge does not apply (a refusal, or the statement's error). */
    Attempt<Operator> build() {
        var unmergeable = unmergeable();
        if (unmergeable.isPresent()) return Attempt.notApplicable(unmergeable.get());
        var shardColumns = ShardColumns.of(select, sources);
        if (!(shardColumns instanceof Attempt.Planned<ShardColumns>(ShardColumns c))) return shardColumns.passUp();
        columns = c;
        names = new ItemNames(columns.visible(), columns.aliases(), sources);
        // aggregates anywhere make one group of all rows; HAVING alone filters rows (MySQL's extension)
        boolean aggregates = select.getSelectItems().stream().anyMatch(i -> i.getExpression() instanceof Expression x && AggregateFunctions.hasAggregate(x))
                || select.getHaving() != null && AggregateFunctions.hasAggregate(select.getHaving())
                || select.getOrderByElements() != null && select.getOrderByElements().stream().anyMatch(o -> AggregateFunctions.hasAggregate(o.getExpression()));
        if (select.getGroupBy() != null || aggregates) {
            var local = partitionLocalGroups();
            if (!(local instanceof Attempt.Planned<Boolean>(Boolean partitionLocal))) return local.passUp();
            if (!partitionLocal) return groups();
        }
        if (select.getDistinct() != null && (!holdsRoutingColumn(columns.visible()) || distinctOverAggregates())) return distinctRows();
        return rows();
    }

    // ---- rows: ORDER BY / LIMIT over rows that are final on their partition ------------------------

    private Attempt<Operator> rows() {
        var orderKeys = orderKeys();
        if (!(orderKeys instanceof Attempt.Planned<List<SortKey>>(List<SortKey> keys))) return orderKeys.passUp();
        var having = havingNamesOnlyTheStatementsColumns();
        if (having instanceof Attempt.NotApplicable<?>) return having.passUp();
        var merged = MergedLimit.of(select);
        if (!(merged instanceof Attempt.Planned<ParamLimit.Bound[]>(ParamLimit.Bound[] limit))) return merged.passUp();
        if (limit != null) MergedLimit.widenOnShards(select, limit);
        return route().map(route -> {
            Operator root = keys.isEmpty() ? route : new MergeSort(route, keys);
            return project(MergedLimit.apply(root, limit, true));
        });
    }

    /**
     * A HAVING the shards evaluate (no aggregates for the router to merge) also sees the columns the router adds to their
     * select lists (ORDER BY's): a name there that only such a column answers is MariaDB's 1054, so the merge does not apply.
     */
    private Attempt<Boolean> havingNamesOnlyTheStatementsColumns() {
        if (select.getHaving() == null || !columns.anyHidden()) return Attempt.planned(true);
        var group = new ArrayList<Expression>();
        if (select.getGroupBy() != null && select.getGroupBy().getGroupByExpressionList() != null) {
            for (Object g : select.getGroupBy().getGroupByExpressionList()) group.add((Expression) g);
        }
        return names.havingColumns(select.getHaving(), group);
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
    private Attempt<Operator> distinctRows() {
        var keys = new ArrayList<SortKey>();
        var varying = new ArrayList<SortKey>();
        for (int i = 0; i < columns.visible().size(); i++) {
            Expression item = columns.visible().get(i);
            SortKey key = columns.withWeight(SortKey.asc(i), item);
            keys.add(key);
            if (!Constants.sameOnEveryRow(item, catalog)) varying.add(key);
        }
        var order = orderKeys();
        if (!(order instanceof Attempt.Planned<List<SortKey>>(List<SortKey> orderKeys))) return order.passUp();
        var having = havingNamesOnlyTheStatementsColumns();
        if (having instanceof Attempt.NotApplicable<?>) return having.passUp();
        var merged = MergedLimit.of(select);
        if (!(merged instanceof Attempt.Planned<ParamLimit.Bound[]>(ParamLimit.Bound[] limit))) return merged.passUp();
        // Groups whose items hold aggregates go to the router as they are: MariaDB 11.4 answers a DISTINCT over such items
        // wrongly (duplicates kept, or distinct rows lost: SELECT DISTINCT AVG(a), COUNT(NULL) / SUM(k) ... GROUP BY id),
        // and the router removes the duplicates anyway.
        if (distinctOverAggregates()) select.setDistinct(null);
        select.setOrderByElements(positions(varying));
        select.setLimit(null);
        select.setOffset(null);
        return route().map(route -> {
            Operator root = varying.isEmpty() ? route : new MergeSort(route, varying);
            root = new Distinct(root, keys);
            if (!orderKeys.isEmpty()) root = new Sort(root, orderKeys);
            return project(MergedLimit.apply(root, limit, false));
        });
    }

    /** The client's ORDER BY over final rows: each term the column of the select item it names or equals, else a hidden copy. */
    private Attempt<List<SortKey>> orderKeys() {
        var keys = new ArrayList<SortKey>();
        if (select.getOrderByElements() == null) return Attempt.planned(keys);
        for (OrderByElement o : select.getOrderByElements()) {
            var found = names.order(o.getExpression()).then(this::column);
            if (!(found instanceof Attempt.Planned<Integer>(Integer column))) return found.passUp();
            keys.add(columns.withWeight(new SortKey(column, !o.isAsc(), -1), columns.expressionOf(column)));
        }
        return Attempt.planned(keys);
    }

    /** The column of a resolved key: its select item's, else one that equals it, else a hidden copy (not applicable: one with parameters). */
    private Attempt<Integer> column(ItemNames.Resolved r) {
        return r.item() >= 0 ? Attempt.planned(r.item()) : columns.columnOf(r.expression());
    }

    /** ORDER BY the shard's columns of {@code keys}, ascending (the router merges by their weights), or null for none. */
    static List<OrderByElement> positions(List<SortKey> keys) {
        var order = new ArrayList<OrderByElement>();
        for (SortKey k : keys) order.add(new OrderByElement().withExpression(new LongValue(k.column() + 1)).withAsc(true));
        return order.isEmpty() ? null : order;
    }

    /**
     * GROUP BY whose keys include the routing column: no group spans two partitions, and each
     * shard's groups are final. Not WITH ROLLUP: its super-aggregate rows sum over groups of every partition. Nor under LIMIT
     * where a select item computes over BIT_AND/BIT_OR/BIT_XOR: each shard would compute it for its first offset + count
     * groups, where MariaDB computes it only for the groups it sends, so an item out of range (1690) on a group MariaDB never
     * sends would fail the statement; the router merges those groups and computes the item after LIMIT.
     */
    private Attempt<Boolean> partitionLocalGroups() {
        if (target.table().partitioning().column() == null || select.getGroupBy() == null) return Attempt.planned(false);
        if (select.getGroupBy().isMysqlWithRollup()) return Attempt.planned(false);
        if ((select.getLimit() != null || select.getOffset() != null) && columns.visible().stream().anyMatch(AggregateFunctions::computesOverUnsigned)) {
            return Attempt.planned(false);
        }
        var keys = new ArrayList<Expression>();
        for (Object g : select.getGroupBy().getGroupByExpressionList()) {
            var key = names.group((Expression) g);
            if (!(key instanceof Attempt.Planned<ItemNames.Resolved>(ItemNames.Resolved r))) return key.passUp();
            keys.add(r.expression());
        }
        return Attempt.planned(holdsRoutingColumn(keys));
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

    private Attempt<Operator> groups() {
        GroupByElement groupBy = select.getGroupBy();
        if (groupBy != null && groupBy.getGroupingSets() != null && !groupBy.getGroupingSets().isEmpty()) {
            return Attempt.notApplicable(PlanException.unsupported("GROUPING SETS over several partitions yet"));
        }
        boolean rollup = groupBy != null && groupBy.isMysqlWithRollup();
        if (rollup) {
            var noRollup = ScatterGroups.rollupNotApplicable(select, groupBy, names, columns);
            if (noRollup.isPresent()) return Attempt.notApplicable(noRollup.get());
        }
        if (groupBy != null) {
            for (Object g : groupBy.getGroupByExpressionList()) {
                var resolved = names.group((Expression) g);
                if (!(resolved instanceof Attempt.Planned<ItemNames.Resolved>(ItemNames.Resolved r))) return resolved.passUp();
                var found = column(r);
                if (!(found instanceof Attempt.Planned<Integer>(Integer column))) return found.passUp();
                groupExpressions.add(r.expression());
                groupKeys.add(columns.withWeight(SortKey.asc(column), columns.expressionOf(column)));
            }
        }
        var aggregates = new PartialAggregates(columns);
        var computed = new ArrayList<Compute.Item>();
        boolean averagesOfDistinct = select.getHaving() != null && AggregateFunctions.hasAverageOfDistinct(select.getHaving());
        for (int i = 0; i < columns.visible().size(); i++) {
            Expression e = columns.visible().get(i);
            if (!AggregateFunctions.hasAggregate(e)) continue;
            Attempt<?> merged;
            if (e instanceof Function f && f.getName().equalsIgnoreCase("GROUP_CONCAT") && !f.isDistinct()
                    && (f.getOrderByElements() == null || f.getOrderByElements().isEmpty())) {
                merged = aggregates.groupConcat(f, i);
            } else if (e instanceof Function f && AggregateFunctions.isAggregate(f)) {
                merged = aggregates.inPlace(f, i);
            } else if (e instanceof MySQLGroupConcat gc) {
                merged = aggregates.groupConcat(gc, i);
            } else {
                averagesOfDistinct |= AggregateFunctions.hasAverageOfDistinct(e);
                var item = columns.itemAt(i);
                String label = item.getAlias() != null ? item.getAlias().getName() : Sources.quote(e.toString());
                item.setExpression(new NullValue());
                item.setAlias(new Alias(label, true));
                merged = compiler(aggregates, false).compile(e);
                if (merged instanceof Attempt.Planned<?>(Expr value)) computed.add(new Compute.Item(i, value, e.toString()));
            }
            if (merged instanceof Attempt.NotApplicable<?>) return merged.passUp();
        }
        var havingCompiler = compiler(aggregates, true);
        Expr having = null;
        if (select.getHaving() != null) {
            var compiled = havingCompiler.compile(select.getHaving());
            if (!(compiled instanceof Attempt.Planned<Expr>(Expr condition))) return compiled.passUp();
            having = condition;
        }
        String havingText = select.getHaving() == null ? null : select.getHaving().toString();
        List<SortKey> distinctRows = null;
        // rows that hold every group key (one row, without keys) are distinct already: MariaDB drops their DISTINCT, and so
        // computes an item only for the rows it sends
        boolean distinctAlready = !rollup && groupKeys.stream().allMatch(k -> k.column() < columns.visible().size());
        if (select.getDistinct() != null && !distinctAlready) {
            var distinct = ScatterGroups.distinctOverGroups(columns, groupKeys, aggregates);
            if (!(distinct instanceof Attempt.Planned<List<SortKey>>(List<SortKey> keys))) return distinct.passUp();
            distinctRows = keys;
        }
        var orderKeys = new ArrayList<SortKey>();
        if (select.getOrderByElements() != null) {
            for (OrderByElement o : select.getOrderByElements()) {
                var key = ScatterGroups.orderKey(o, names, columns, aggregates, groupKeys);
                if (!(key instanceof Attempt.Planned<SortKey>(SortKey k))) return key.passUp();
                orderKeys.add(k);
            }
        }
        if (averagesOfDistinct && !groupKeys.isEmpty() && (select.getDistinct() != null || !ScatterGroups.inGroupOrder(orderKeys, groupKeys))) {
            // MariaDB sorts such groups (or makes them DISTINCT) through a temporary table, and computes on the average
            // read back from it, rounded to its scale: AVG(DISTINCT 2.5) / COUNT(*) is 2.50000 / 6, cut to 0.416666666
            return Attempt.notApplicable(PlanException.unsupported("AVG(DISTINCT ...) inside an expression or HAVING over groups"
                    + " sorted again or made DISTINCT over several partitions yet"));
        }
        // with the HAVING clause still there: its '?' come before LIMIT's
        var merged = MergedLimit.of(select);
        if (!(merged instanceof Attempt.Planned<ParamLimit.Bound[]>(ParamLimit.Bound[] limit))) return merged.passUp();
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
        var routed = route();
        if (!(routed instanceof Attempt.Planned<Route>(Route route))) return routed.passUp();
        Operator root = mergeKeys.isEmpty() ? route : new MergeSort(route, mergeKeys);
        if (rollup && (distinctKey != null || aggregates.all().stream().anyMatch(a -> a.kind() == Aggregate.Kind.GROUP_CONCAT))) {
            return Attempt.notApplicable(PlanException.unsupported("WITH ROLLUP together with DISTINCT aggregates or GROUP_CONCAT over several partitions yet"));
        }
        root = groupKeys.isEmpty() ? Aggregate.scalar(root, aggregates.all(), distinctKey, distinctKey != null ? ScatterGroups.noRows(select, columns, target) : null, rowCount)
                : rollup ? Aggregate.withRollup(root, groupKeys, aggregates.all(), distinctKey) : new Aggregate(root, groupKeys, aggregates.all(), distinctKey);
        if (groupKeys.isEmpty()) orderKeys.clear(); // one row at most: MariaDB does not sort it, so computes its items only to send it
        root = ScatterGroups.finished(root, computed, having, havingText, havingCompiler.params(), distinctRows, orderKeys, limit);
        return Attempt.planned(project(root));
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

    // ---- shared ------------------------------------------------------------------------------------

    /** The refusal of a clause the merge does not reproduce, seen before it starts; empty where there is none. */
    private Optional<PlanException> unmergeable() {
        if (select.getOrderByElements() != null) {
            for (var o : select.getOrderByElements()) {
                if (o.getNullOrdering() != null) return Optional.of(PlanException.unsupported("NULLS FIRST / NULLS LAST"));
                if (ParamCounter.count(o.toString()) > 0) return Optional.of(PlanException.unsupported("parameters in ORDER BY over several partitions yet"));
            }
        }
        if (select.getGroupBy() != null && ParamCounter.count(select.getGroupBy().toString()) > 0) {
            return Optional.of(PlanException.unsupported("parameters in GROUP BY over several partitions yet"));
        }
        if (select.getDistinct() != null && select.getDistinct().getOnSelectItems() != null && !select.getDistinct().getOnSelectItems().isEmpty()) {
            return Optional.of(PlanException.unsupported("DISTINCT ON"));
        }
        if (select.getMySqlSqlCalcFoundRows()) return Optional.of(PlanException.unsupported("SQL_CALC_FOUND_ROWS"));
        if (select.getIntoTables() != null || select.getMySqlSelectIntoClause() != null) return Optional.of(PlanException.unsupported("SELECT ... INTO"));
        return Optional.empty();
    }

    /** How many '?' the statement has outside its LIMIT: the shard SQL must have them once each, in order. */
    private int params;

    /** The shards' statement as rewritten so far; not applicable: one that repeats a parameter of the client's. */
    private Attempt<Route> route() {
        // an item the merge repeats (a DISTINCT key sorted by, a select item with its sort weight) would repeat its '?'
        // (the LIMIT's own '?' are the router's: ParamLimit rewrites them, so they are left out of the count)
        if (ParamCounter.count(select.toString()) - MergedLimit.params(select) != params) {
            return Attempt.notApplicable(PlanException.unsupported("parameters in select items that the merge over several partitions repeats (DISTINCT, "
                    + "ORDER BY an item) yet"));
        }
        var driving = sources.drivingSource();
        KeyMatch keys = target.keys() == null ? null
                : new KeyFinder(driving.table().partitioning().column(), driving.table().name(), driving.alias()).find(select.getWhere(), select);
        return Attempt.planned(new Route(target, select.toString(), keys instanceof KeyMatch.In in ? in.template() : null));
    }

    private Operator project(Operator root) {
        if (!columns.anyHidden()) return root;
        int[] keep = new int[columns.visible().size()];
        for (int i = 0; i < keep.length; i++) keep[i] = i;
        return new Project(root, keep, null);
    }
}
