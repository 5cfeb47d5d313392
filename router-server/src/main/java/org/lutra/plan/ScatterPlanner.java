package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.ColumnDef;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Aggregate;
import org.lutra.exec.Compute;
import org.lutra.exec.Distinct;
import org.lutra.exec.Filter;
import org.lutra.merge.Expr;
import org.lutra.exec.MergeSort;
import org.lutra.exec.Operator;
import org.lutra.exec.ParamLimit;
import org.lutra.exec.Project;
import org.lutra.exec.Route;
import org.lutra.exec.Sort;
import org.lutra.exec.Target;
import org.lutra.merge.SortKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Builds the plan of a single-table SELECT over several partitions: rewrites the statement
 * each shard runs (hidden sort keys and weight strings appended to the select list, partial
 * aggregates in place of AVG and DISTINCT aggregates, LIMIT widened to offset + count) and
 * stacks the operators that merge the shards' answers into the one a single MySQL gives.
 *
 * <p>Two shapes:
 * <ul>
 *   <li>rows: shards sort (ORDER BY as written), the router merge-sorts, limits, drops the
 *       hidden columns. Also used for GROUP BY / DISTINCT that include the routing column: each
 *       group then lives on one partition and the shard's answer for it is final.</li>
 *   <li>groups: shards group and sort by the group keys, the router merge-sorts, combines the
 *       partial aggregates group by group, sorts by the client's ORDER BY, limits, projects.</li>
 * </ul>
 * Whatever it cannot merge exactly it refuses with a {@link PlanException} naming the construct.
 */
final class ScatterPlanner {
    private static final Set<String> AGGREGATES = Set.of("COUNT", "SUM", "MIN", "MAX", "AVG", "BIT_AND", "BIT_OR", "BIT_XOR",
            "GROUP_CONCAT", "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "JSON_ARRAYAGG",
            "JSON_OBJECTAGG");
    /** Text keys are compared as if padded to this many characters when their declared length is unknown. */
    static final int EXPRESSION_TEXT_LENGTH = 512;

    private final PlainSelect select;
    private final Sources sources;
    private final Target target;
    private final List<SelectItem<?>> items;
    /** The select list's columns as the client sees them: one per expression, one per table column of a '*'. */
    private final List<Expression> visible = new ArrayList<>();
    private final List<String> visibleAliases = new ArrayList<>();
    private int hiddenCount;

    private final Catalog catalog;
    /** How GROUP BY, HAVING and ORDER BY names resolve against {@link #visible} and the tables (set by build). */
    private ItemNames names;

    ScatterPlanner(PlainSelect select, Sources sources, Target target, Catalog catalog) {
        this.params = ParamCounter.count(select.toString()) - limitParams(select);
        this.catalog = catalog;
        this.select = select;
        this.sources = sources;
        this.target = target;
        this.items = new ArrayList<>(select.getSelectItems());
    }

    Operator build() throws PlanException {
        refuseUnmergeable();
        for (var item : items) {
            Object e = item.getExpression();
            if (e instanceof AllColumns || e instanceof AllTableColumns) {
                for (Column c : starColumns(e)) {
                    visible.add(c);
                    visibleAliases.add(null);
                }
            } else {
                visible.add((Expression) e);
                visibleAliases.add(item.getAlias() == null ? null : KeyFinder.unquote(item.getAlias().getName()));
            }
        }
        names = new ItemNames(visible, visibleAliases, sources);
        // aggregates anywhere make one group of all rows; HAVING alone filters rows (MySQL's extension)
        boolean aggregates = items.stream().anyMatch(i -> i.getExpression() instanceof Expression x && hasAggregate(x))
                || select.getHaving() != null && hasAggregate(select.getHaving())
                || select.getOrderByElements() != null && select.getOrderByElements().stream().anyMatch(o -> hasAggregate(o.getExpression()));
        if ((select.getGroupBy() != null || aggregates) && !partitionLocalGroups()) return groups();
        if (select.getDistinct() != null && !holdsRoutingColumn(visible)) return distinctRows();
        return rows();
    }

    // ---- rows: ORDER BY / LIMIT over rows that are final on their partition ------------------------

    private Operator rows() throws PlanException {
        var keys = new ArrayList<SortKey>();
        if (select.getOrderByElements() != null) {
            for (OrderByElement o : select.getOrderByElements()) {
                int column = orderColumn(o.getExpression());
                keys.add(withWeight(new SortKey(column, !o.isAsc(), -1), expressionOf(column)));
            }
        }
        ParamLimit.Bound[] limit = limit();
        if (limit != null) shardLimit(limit);
        Route route = route();
        Operator root = keys.isEmpty() ? route : new MergeSort(route, keys);
        root = applyLimit(root, limit, true);
        return project(root);
    }

    /**
     * SELECT DISTINCT over rows that are final on their partition but for the DISTINCT (no grouping,
     * or groups that each live on one partition), whose items do not hold the routing column: each
     * shard removes its own duplicates and sorts by the items that vary, the router merges and
     * removes the duplicates between partitions, then orders and limits. The shards get DISTINCT
     * as DISTINCT, not as GROUP BY: MySQL evaluates a GROUP BY's constant subquery even where no
     * row matches, a DISTINCT's only for the rows it returns.
     */
    private Operator distinctRows() throws PlanException {
        var keys = new ArrayList<SortKey>();
        var varying = new ArrayList<SortKey>();
        for (int i = 0; i < visible.size(); i++) {
            SortKey key = withWeight(SortKey.asc(i), visible.get(i));
            keys.add(key);
            if (!Constants.sameOnEveryRow(visible.get(i), catalog)) varying.add(key);
        }
        var orderKeys = new ArrayList<SortKey>();
        if (select.getOrderByElements() != null) {
            for (OrderByElement o : select.getOrderByElements()) {
                int column = orderColumn(o.getExpression());
                orderKeys.add(withWeight(new SortKey(column, !o.isAsc(), -1), expressionOf(column)));
            }
        }
        ParamLimit.Bound[] limit = limit();
        select.setOrderByElements(positions(varying));
        select.setLimit(null);
        select.setOffset(null);
        Route route = route();
        Operator root = varying.isEmpty() ? route : new MergeSort(route, varying);
        root = new Distinct(root, keys);
        if (!orderKeys.isEmpty()) root = new Sort(root, orderKeys);
        root = applyLimit(root, limit, false);
        return project(root);
    }

    /** ORDER BY the shard's columns of {@code keys}, ascending (the router merges by their weights), or null for none. */
    private static List<OrderByElement> positions(List<SortKey> keys) {
        var order = new ArrayList<OrderByElement>();
        for (SortKey k : keys) order.add(new OrderByElement().withExpression(new LongValue(k.column() + 1)).withAsc(true));
        return order.isEmpty() ? null : order;
    }

    /** The columns a {@code *} or {@code t.*} item stands for. */
    private List<Column> starColumns(Object e) throws PlanException {
        if (e instanceof AllTableColumns t) {
            var columns = sources.star(KeyFinder.unquote(t.getTable().getName()));
            if (columns == null) throw new PlanException("42S02", 1051, "Unknown table '" + t.getTable().getName() + "'");
            return columns;
        }
        return sources.star();
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
            if (k instanceof Column c && sources.isRoutingColumn(c)) return true;
        }
        return false;
    }

    // ---- groups: aggregates merged by the router ---------------------------------------------------

    /**
     * WITH ROLLUP over several partitions: the router adds the super-aggregate rows, with the
     * rolled-up key columns NULL. That is MySQL's answer only where every select item outside an
     * aggregate is one of the GROUP BY columns itself (MySQL would compute an expression over a
     * rolled-up key from its NULL) and no ORDER BY reorders the rows. The shards group without it.
     */
    private void requireRollupItems(GroupByElement groupBy) throws PlanException {
        if (select.getOrderByElements() != null && !select.getOrderByElements().isEmpty()) {
            throw PlanException.unsupported("WITH ROLLUP together with ORDER BY over several partitions");
        }
        var keys = new ArrayList<String>();
        for (Object g : groupBy.getGroupByExpressionList()) {
            Expression k = names.group((Expression) g).expression();
            if (!(k instanceof Column)) throw PlanException.unsupported("WITH ROLLUP grouped by an expression (" + k + ") over several partitions yet");
            keys.add(k.toString().toLowerCase(java.util.Locale.ROOT));
        }
        for (Expression e : visible) {
            if (hasAggregate(e)) {
                if (hasColumnOutsideAggregates(e)) {
                    throw PlanException.unsupported("WITH ROLLUP with the select item " + e + ", which mixes columns and aggregates, over several partitions yet");
                }
                continue;
            }
            if (!(e instanceof Column) || !keys.contains(e.toString().toLowerCase(java.util.Locale.ROOT))) {
                throw PlanException.unsupported("WITH ROLLUP with the select item " + e + ", which is not a GROUP BY column, over several partitions yet");
            }
        }
        groupBy.setMysqlWithRollup(false); // the shards group; the router rolls up
    }

    private Operator groups() throws PlanException {
        GroupByElement groupBy = select.getGroupBy();
        if (groupBy != null && groupBy.getGroupingSets() != null && !groupBy.getGroupingSets().isEmpty()) {
            throw PlanException.unsupported("GROUPING SETS over several partitions yet");
        }
        boolean rollup = groupBy != null && groupBy.isMysqlWithRollup();
        if (rollup) requireRollupItems(groupBy);
        if (groupBy != null) {
            for (Object g : groupBy.getGroupByExpressionList()) {
                ItemNames.Resolved r = names.group((Expression) g);
                int column = r.item() >= 0 ? r.item() : columnOf(r.expression());
                groupExpressions.add(r.expression());
                groupKeys.add(withWeight(SortKey.asc(column), expressionOf(column)));
            }
        }
        var aggregations = new ArrayList<Aggregate.Aggregation>();
        DistinctArgument distinct = new DistinctArgument();
        var computed = new ArrayList<Compute.Item>();
        for (int i = 0; i < visible.size(); i++) {
            Expression e = visible.get(i);
            if (!hasAggregate(e)) continue;
            if (e instanceof Function f && f.getName().equalsIgnoreCase("GROUP_CONCAT") && !f.isDistinct()
                    && (f.getOrderByElements() == null || f.getOrderByElements().isEmpty())) {
                aggregations.add(groupConcat(f, i));
            } else if (e instanceof Function f && isAggregate(f)) {
                aggregations.add(aggregation(f, i, distinct, true));
            } else if (e instanceof net.sf.jsqlparser.expression.MySQLGroupConcat gc) {
                aggregations.add(groupConcat(gc, i));
            } else {
                var item = itemAt(i);
                String label = item.getAlias() != null ? item.getAlias().getName() : quote(e.toString());
                item.setExpression(new net.sf.jsqlparser.expression.NullValue());
                item.setAlias(new Alias(label, true));
                computed.add(new Compute.Item(i, new ExprCompiler(aggregations, distinct).compile(e), e.toString()));
            }
        }
        var havingCompiler = new ExprCompiler(aggregations, distinct, true);
        Expr having = select.getHaving() == null ? null : havingCompiler.compile(select.getHaving());
        String havingText = select.getHaving() == null ? null : select.getHaving().toString();
        List<SortKey> distinctRows = select.getDistinct() == null ? null : distinctOverGroups(aggregations);
        var orderKeys = new ArrayList<SortKey>();
        if (select.getOrderByElements() != null) {
            for (OrderByElement o : select.getOrderByElements()) {
                ItemNames.Resolved r = names.order(o.getExpression());
                Expression e = r.expression();
                int column = r.item() >= 0 ? r.item() : findColumn(e);
                if (column < 0 && e instanceof Function f && isAggregate(f)) {
                    column = visible.size() + hiddenCount;
                    aggregations.add(aggregation(f, column, distinct, false));
                } else if (column < 0) {
                    if (hasAggregate(e)) throw PlanException.unsupported("ORDER BY an expression over aggregates over several partitions yet (" + e + ")");
                    column = columnOf(e); // a non-aggregated expression: its value in the group's first row
                }
                int weight = weightOf(column, groupKeys, aggregations);
                orderKeys.add(new SortKey(column, !o.isAsc(), weight));
            }
        }
        ParamLimit.Bound[] limit = limit(); // with the HAVING clause still there: its '?' come before LIMIT's
        // the router evaluates HAVING, so the shards' statement goes without it and its parameters (the Filter takes them)
        select.setHaving(null);
        params -= havingCompiler.params;
        // the shards group by the columns the router merges on (also by a DISTINCT aggregate's argument), named by
        // position: a name could mean another column in the shard's select list, a literal would be read as a position
        var mergeKeys = new ArrayList<>(groupKeys);
        SortKey distinctKey = null;
        if (distinct.expression != null) {
            distinctKey = withWeight(SortKey.asc(distinct.column), distinct.expression);
            mergeKeys.add(distinctKey);
        }
        var shardGroups = new ExpressionList<Expression>();
        for (SortKey k : mergeKeys) shardGroups.add(new LongValue(k.column() + 1));
        select.setGroupByElement(shardGroups.isEmpty() ? null : new GroupByElement().withGroupByExpressions(shardGroups));
        select.setDistinct(null);
        select.setOrderByElements(positions(mergeKeys));
        select.setLimit(null);
        select.setOffset(null);
        Route route = route();
        Operator root = mergeKeys.isEmpty() ? route : new MergeSort(route, mergeKeys);
        if (rollup && (distinctKey != null || aggregations.stream().anyMatch(a -> a.kind() == Aggregate.Kind.GROUP_CONCAT))) {
            throw PlanException.unsupported("WITH ROLLUP together with DISTINCT aggregates or GROUP_CONCAT over several partitions yet");
        }
        Operator noRows = groupKeys.isEmpty() && distinctKey != null ? noRows() : null;
        root = new Aggregate(root, groupKeys, aggregations, distinctKey, rollup, noRows);
        if (!computed.isEmpty()) root = new Compute(root, computed);
        if (having != null) root = new Filter(root, having, havingText, havingCompiler.params);
        if (distinctRows != null) root = new Distinct(new Sort(root, distinctRows), distinctRows);
        if (!orderKeys.isEmpty()) root = new Sort(root, orderKeys);
        root = applyLimit(root, limit, false);
        return project(root);
    }

    /** The statement's group keys as {@link ItemNames#group} resolved them, and the merge's keys for them. */
    private final List<Expression> groupExpressions = new ArrayList<>();
    private final List<SortKey> groupKeys = new ArrayList<>();

    /**
     * SELECT DISTINCT over merged groups: what compares each select item as MySQL's DISTINCT
     * would (text by its weight string): a group key's own key, MIN/MAX's weight, numbers as they are.
     */
    private List<SortKey> distinctOverGroups(List<Aggregate.Aggregation> aggregations) throws PlanException {
        var keys = new ArrayList<SortKey>();
        for (int i = 0; i < visible.size(); i++) {
            final int column = i;
            var key = groupKeys.stream().filter(k -> k.column() == column).findFirst().orElse(null);
            var aggregation = aggregations.stream().filter(a -> a.column() == column).findFirst().orElse(null);
            if (key != null) {
                keys.add(key);
            } else if (aggregation != null && aggregation.kind() == Aggregate.Kind.GROUP_CONCAT) {
                throw PlanException.unsupported("SELECT DISTINCT over GROUP_CONCAT over several partitions yet");
            } else if (aggregation != null) {
                keys.add(new SortKey(i, false, aggregation.weight()));
            } else if (hasAggregate(visible.get(i))) {
                keys.add(SortKey.asc(i)); // computed by the router from numbers: a number
            } else {
                keys.add(withWeight(SortKey.asc(i), visible.get(i))); // a value of the group's first row
            }
        }
        return keys;
    }

    /**
     * For scalar aggregates whose shards group by a DISTINCT aggregate's argument (and so return
     * no row where no row matches): the shards' statement over no rows (WHERE ... AND FALSE, not
     * grouped, COUNT(*) added so that it is an aggregate and answers one row), whose row the
     * router combines instead. MySQL computes the other select items over a row of NULLs
     * ({@code -71}, {@code COALESCE(c, 5)}); the shard computes them the same way.
     */
    private Operator noRows() {
        var where = select.getWhere();
        var groupBy = select.getGroupBy();
        var order = select.getOrderByElements();
        int width = visible.size() + hiddenCount;
        var condition = where == null ? new net.sf.jsqlparser.expression.BooleanValue(false)
                : new net.sf.jsqlparser.expression.operators.conditional.AndExpression(new net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<>(where),
                        new net.sf.jsqlparser.expression.BooleanValue(false));
        var count = new SelectItem<>(new Function("COUNT", new AllColumns()));
        select.setWhere(condition);
        select.setGroupByElement(null);
        select.setOrderByElements(null);
        select.getSelectItems().add(count);
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
     * Compiles a HAVING condition or a select item over aggregates into an {@link Expr} the router
     * evaluates on merged groups: aggregates become (hidden) aggregate columns, other columns must
     * be the statement's group keys or select items.
     */
    private final class ExprCompiler {
        private final List<Aggregate.Aggregation> aggregations;
        private final DistinctArgument distinct;
        /**
         * HAVING, rather than a select item: the client's parameters may appear (the Filter binds them),
         * and names resolve as HAVING's do ({@link ItemNames#having}).
         */
        private final boolean having;
        /** The parameters compiled so far: compile visits an expression in text order. */
        int params;

        ExprCompiler(List<Aggregate.Aggregation> aggregations, DistinctArgument distinct) {
            this(aggregations, distinct, false);
        }

        ExprCompiler(List<Aggregate.Aggregation> aggregations, DistinctArgument distinct, boolean having) {
            this.aggregations = aggregations;
            this.distinct = distinct;
            this.having = having;
        }

        Expr compile(Expression e) throws PlanException {
            return switch (e) {
                case JdbcParameter p when having -> new Expr.Param(params++, "?");
                case net.sf.jsqlparser.expression.Parenthesis p -> compile(p.getExpression());
                case net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<?> p when p.size() == 1 ->
                        compile((Expression) p.getFirst());
                case LongValue l -> new Expr.Literal(org.lutra.protocol.Value.newBuilder().setIntValue(l.getValue()).build());
                case net.sf.jsqlparser.expression.DoubleValue d -> new Expr.Literal(org.lutra.protocol.Value.newBuilder()
                        .setDecimalValue(new java.math.BigDecimal(d.toString()).toPlainString()).build());
                case net.sf.jsqlparser.expression.NullValue n -> new Expr.Literal(null);
                case net.sf.jsqlparser.expression.SignedExpression s when s.getSign() == '-' -> new Expr.Negate(compile(s.getExpression()));
                case net.sf.jsqlparser.expression.SignedExpression s when s.getSign() == '+' -> compile(s.getExpression());
                case net.sf.jsqlparser.expression.operators.arithmetic.Addition a -> arith(Expr.ArithOp.ADD, a);
                case net.sf.jsqlparser.expression.operators.arithmetic.Subtraction a -> arith(Expr.ArithOp.SUBTRACT, a);
                case net.sf.jsqlparser.expression.operators.arithmetic.Multiplication a -> arith(Expr.ArithOp.MULTIPLY, a);
                case net.sf.jsqlparser.expression.operators.arithmetic.Division a -> arith(Expr.ArithOp.DIVIDE, a);
                case net.sf.jsqlparser.expression.operators.relational.EqualsTo c -> compare(Expr.CmpOp.EQ, c);
                case net.sf.jsqlparser.expression.operators.relational.NotEqualsTo c -> compare(Expr.CmpOp.NE, c);
                case net.sf.jsqlparser.expression.operators.relational.MinorThan c -> compare(Expr.CmpOp.LT, c);
                case net.sf.jsqlparser.expression.operators.relational.MinorThanEquals c -> compare(Expr.CmpOp.LE, c);
                case net.sf.jsqlparser.expression.operators.relational.GreaterThan c -> compare(Expr.CmpOp.GT, c);
                case net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals c -> compare(Expr.CmpOp.GE, c);
                case net.sf.jsqlparser.expression.operators.conditional.AndExpression a ->
                        new Expr.And(compile(a.getLeftExpression()), compile(a.getRightExpression()));
                case net.sf.jsqlparser.expression.operators.conditional.OrExpression o ->
                        new Expr.Or(compile(o.getLeftExpression()), compile(o.getRightExpression()));
                case net.sf.jsqlparser.expression.NotExpression n -> new Expr.Not(compile(n.getExpression()));
                case net.sf.jsqlparser.expression.operators.relational.IsNullExpression n -> new Expr.IsNull(compile(n.getLeftExpression()), n.isNot());
                case net.sf.jsqlparser.expression.operators.relational.Between b ->
                        new Expr.Between(compile(b.getLeftExpression()), compile(b.getBetweenExpressionStart()), compile(b.getBetweenExpressionEnd()), b.isNot());
                case net.sf.jsqlparser.expression.operators.relational.InExpression in
                        when in.getRightExpression() instanceof ExpressionList<?> list && in.getOldOracleJoinSyntax() == 0 -> {
                    var items = new ArrayList<Expr>();
                    for (Object x : list) items.add(compile((Expression) x));
                    yield new Expr.In(compile(in.getLeftExpression()), items, in.isNot());
                }
                case Function f when isAggregate(f) -> {
                    if (ParamCounter.count(f.toString()) > 0) {
                        // the shards would compute it as a hidden select item: its '?' would move before WHERE's
                        throw PlanException.unsupported("parameters inside aggregates in HAVING or over aggregates over several partitions yet (" + f + ")");
                    }
                    int column = findColumn(f);
                    if (column < 0) {
                        column = visible.size() + hiddenCount;
                        aggregations.add(aggregation(f, column, distinct, false));
                    }
                    yield new Expr.Col(column, f.toString());
                }
                case Column c -> new Expr.Col(columnNamed(c), c.toString());
                default -> {
                    int column = findColumn(e);
                    if (column < 0 || hasAggregate(e) && !(e instanceof Function)) {
                        throw PlanException.unsupported("the expression " + e + " in HAVING or over aggregates over several partitions yet");
                    }
                    yield new Expr.Col(column, e.toString());
                }
            };
        }

        /**
         * The column a name outside aggregates reads: in HAVING, the select item or GROUP BY key it
         * stands for ({@link ItemNames#having}); in a select item, the same column of the FROM tables
         * as a select item or a group key.
         */
        private int columnNamed(Column c) throws PlanException {
            if (having) {
                ItemNames.Resolved r = names.having(c, groupExpressions);
                if (r != null && r.item() >= 0) return r.item();
                if (r != null) return groupKeys.get(groupExpressions.indexOf(r.expression())).column();
            } else {
                int column = findColumn(c);
                if (column >= 0) return column;
                for (int i = 0; i < groupExpressions.size(); i++) {
                    if (same(groupExpressions.get(i), c)) return groupKeys.get(i).column();
                }
            }
            throw PlanException.unsupported("the column " + c + " in HAVING or over aggregates over several partitions yet");
        }

        private Expr arith(Expr.ArithOp op, net.sf.jsqlparser.expression.BinaryExpression b) throws PlanException {
            return new Expr.Arith(op, compile(b.getLeftExpression()), compile(b.getRightExpression()));
        }

        private Expr compare(Expr.CmpOp op, net.sf.jsqlparser.expression.BinaryExpression b) throws PlanException {
            return new Expr.Compare(op, compile(b.getLeftExpression()), compile(b.getRightExpression()));
        }
    }

    /** The argument shared by every DISTINCT aggregate of the statement, and its column. */
    private static final class DistinctArgument {
        Expression expression;
        int column = -1;
    }

    /**
     * Rewrites aggregate {@code f}, whose final value goes to {@code column}, into the partial the
     * shards compute, and says how the router combines it.
     */
    private Aggregate.Aggregation aggregation(Function f, int column, DistinctArgument distinct, boolean inPlace) throws PlanException {
        String name = f.getName().toUpperCase(Locale.ROOT);
        var params = f.getParameters();
        Expression arg = params != null && params.size() == 1 ? (Expression) params.getFirst() : null;
        if (f.isDistinct()) {
            if (arg == null || !Set.of("COUNT", "SUM", "AVG").contains(name)) {
                throw PlanException.unsupported(name + "(DISTINCT ...) with several arguments or of this kind over several partitions yet");
            }
            if (distinct.expression != null && !same(distinct.expression, arg)) {
                throw PlanException.unsupported("DISTINCT aggregates of different arguments in one statement over several partitions yet");
            }
            if (distinct.expression == null) {
                distinct.expression = arg;
                distinct.column = column;
            }
            place(inPlace, column, arg, f); // each DISTINCT aggregate reads x from its own column; the first is the sort key
            var kind = switch (name) {
                case "COUNT" -> Aggregate.Kind.COUNT_DISTINCT;
                case "SUM" -> Aggregate.Kind.SUM_DISTINCT;
                default -> Aggregate.Kind.AVG_DISTINCT;
            };
            return new Aggregate.Aggregation(kind, column, -1, -1, null);
        }
        switch (name) {
            case "COUNT", "SUM", "BIT_AND", "BIT_OR", "BIT_XOR" -> {
                place(inPlace, column, f, f);
                return new Aggregate.Aggregation(Aggregate.Kind.valueOf(name), column, -1, -1, null);
            }
            case "MIN", "MAX" -> {
                place(inPlace, column, f, f);
                int weight = arg != null && !knownNotText(arg) ? hidden(weightString(f, textLength(arg))) : -1;
                return new Aggregate.Aggregation(Aggregate.Kind.valueOf(name), column, -1, weight, null);
            }
            case "AVG" -> {
                if (arg == null) throw PlanException.unsupported("AVG without an argument");
                place(inPlace, column, new Function().withName("SUM").withParameters(arg), f);
                int count = hidden(new Function().withName("COUNT").withParameters(arg));
                return new Aggregate.Aggregation(Aggregate.Kind.AVG, column, count, -1, null);
            }
            default -> throw PlanException.unsupported("the aggregate " + name + "() over several partitions yet");
        }
    }

    /**
     * GROUP_CONCAT without ORDER BY or DISTINCT: each shard concatenates its group's values and the
     * router joins the pieces with the separator (MySQL promises no order without ORDER BY). The
     * shards also return their group_concat_max_len: a joined result longer than that would be cut
     * by MySQL, and is refused instead.
     */
    private Aggregate.Aggregation groupConcat(net.sf.jsqlparser.expression.MySQLGroupConcat gc, int column) throws PlanException {
        if (gc.isDistinct() || gc.getOrderByElements() != null && !gc.getOrderByElements().isEmpty()) {
            throw PlanException.unsupported("GROUP_CONCAT with DISTINCT or ORDER BY over several partitions yet");
        }
        var item = itemAt(column);
        if (item.getAlias() == null) item.setAlias(new Alias(quote(gc.toString()), true));
        int limit = maxLengthColumn >= 0 ? maxLengthColumn : (maxLengthColumn = hidden(new net.sf.jsqlparser.expression.UserVariable("group_concat_max_len").withDoubleAdd(true)));
        String separator = gc.getSeparator() == null ? "," : separator(gc.getSeparator());
        return new Aggregate.Aggregation(Aggregate.Kind.GROUP_CONCAT, column, limit, -1, separator);
    }

    private static final java.util.regex.Pattern SEPARATOR =
            java.util.regex.Pattern.compile("(?is)\\bSEPARATOR\\s+'((?:[^'\\\\]++|\\\\.|'')*+)'\\s*\\)\\s*$");

    /** GROUP_CONCAT(x, ... [SEPARATOR 's']) parsed as a plain function call (no ORDER BY, no DISTINCT). */
    private Aggregate.Aggregation groupConcat(Function f, int column) throws PlanException {
        String text = f.toString();
        var m = SEPARATOR.matcher(text);
        String separator = m.find() ? Literals.unescape(m.group(1), '\'') : ",";
        if (!m.find(0) && text.toUpperCase(Locale.ROOT).contains("SEPARATOR")) {
            throw PlanException.unsupported("this GROUP_CONCAT separator over several partitions yet (" + text + ")");
        }
        var item = itemAt(column);
        if (item.getAlias() == null) item.setAlias(new Alias(quote(text), true));
        int limit = maxLengthColumn >= 0 ? maxLengthColumn : (maxLengthColumn = hidden(new net.sf.jsqlparser.expression.UserVariable("group_concat_max_len").withDoubleAdd(true)));
        return new Aggregate.Aggregation(Aggregate.Kind.GROUP_CONCAT, column, limit, -1, separator);
    }

    private int maxLengthColumn = -1;

    private static String separator(String written) {
        String s = written.strip();
        if (s.toUpperCase(Locale.ROOT).startsWith("SEPARATOR")) s = s.substring("SEPARATOR".length()).strip();
        if (s.length() >= 2 && (s.charAt(0) == '\'' || s.charAt(0) == '"')) return Literals.unescape(s.substring(1, s.length() - 1), s.charAt(0));
        return s;
    }

    /** Puts {@code partial} where the client's aggregate {@code original} was (labelled as the client wrote it), or appends it hidden. */
    private void place(boolean inPlace, int column, Expression partial, Function original) throws PlanException {
        if (!inPlace) {
            hidden(partial);
            return;
        }
        var item = itemAt(column);
        if (partial != original || item.getAlias() == null) {
            String label = item.getAlias() != null ? item.getAlias().getName() : quote(original.toString());
            item.setExpression(partial);
            item.setAlias(new Alias(label, true));
        }
    }

    private SelectItem<Expression> itemAt(int column) throws PlanException {
        int at = 0;
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof AllColumns || item.getExpression() instanceof AllTableColumns) {
                at += starColumns(item.getExpression()).size();
                continue;
            }
            if (at == column) {
                @SuppressWarnings("unchecked") var typed = (SelectItem<Expression>) item;
                return typed;
            }
            at++;
        }
        throw new IllegalStateException("no select item at column " + column);
    }

    // ---- columns -----------------------------------------------------------------------------------

    /** The column a group or order key reads: a select item it equals, else a hidden copy. */
    private int columnOf(Expression e) throws PlanException {
        int found = findColumn(e);
        if (found >= 0) return found;
        if (ParamCounter.count(e.toString()) > 0) {
            throw PlanException.unsupported("parameters in ORDER BY or GROUP BY over several partitions yet (" + e + ")");
        }
        return hidden(e);
    }

    /** The column an ORDER BY term reads: the select item it names ({@link ItemNames#order}) or equals, else a hidden copy. */
    private int orderColumn(Expression written) throws PlanException {
        ItemNames.Resolved r = names.order(written);
        return r.item() >= 0 ? r.item() : columnOf(r.expression());
    }

    private int findColumn(Expression e) {
        for (int i = 0; i < visible.size(); i++) {
            if (same(visible.get(i), e)) return i;
        }
        return -1;
    }

    private boolean same(Expression a, Expression b) {
        if (a instanceof Column x && b instanceof Column y) {
            var sx = sources.sourceOf(x);
            return sx != null && sx == sources.sourceOf(y)
                    && KeyFinder.unquote(x.getColumnName()).equalsIgnoreCase(KeyFinder.unquote(y.getColumnName()));
        }
        return a.toString().equalsIgnoreCase(b.toString());
    }

    /** The expression whose value column {@code column} holds. */
    private Expression expressionOf(int column) {
        if (column < visible.size()) return visible.get(column);
        return hiddenExpressions.get(column - visible.size());
    }

    private final List<Expression> hiddenExpressions = new ArrayList<>();

    /**
     * Appends {@code e} to the shard's select list, after everything the client sees; returns its column.
     * A column gets an alias no statement uses: under its own name it would make that name ambiguous
     * in the shard's HAVING or GROUP BY ({@code SELECT b AS a, a ... HAVING a > 1}: MySQL's 1052).
     */
    private int hidden(Expression e) {
        int column = visible.size() + hiddenCount++;
        hiddenExpressions.add(e);
        if (e instanceof Column) select.addSelectItem(e, new Alias(quote("lutra#" + (column + 1)), true));
        else select.addSelectItems(e);
        return column;
    }

    private SortKey withWeight(SortKey key, Expression e) {
        if (knownNotText(e)) return key;
        if (e instanceof Column c && sources.columnOf(c) != null && sources.columnOf(c).typeName().toUpperCase(Locale.ROOT).matches("(ENUM|SET)\\b.*")) {
            // MySQL orders ENUM and SET by their index (their number), not their text
            return key.withWeight(hidden(new net.sf.jsqlparser.expression.operators.arithmetic.Addition()
                    .withLeftExpression(c).withRightExpression(new LongValue(0))));
        }
        return key.withWeight(hidden(weightString(e, textLength(e))));
    }

    /** For ORDER BY after aggregation: the weight column of a group key or MIN/MAX, if the column has one. */
    private static int weightOf(int column, List<SortKey> groupKeys, List<Aggregate.Aggregation> aggregations) {
        for (SortKey k : groupKeys) if (k.column() == column) return k.weightColumn();
        for (var a : aggregations) if (a.column() == column) return a.weight();
        return -1;
    }

    private static Expression weightString(Expression e, int length) {
        return new WeightString(e, length);
    }

    /** Whether {@code e} certainly is not a character string (so it sorts by value, without a weight string). */
    private boolean knownNotText(Expression e) {
        if (e instanceof LongValue || e instanceof net.sf.jsqlparser.expression.DoubleValue) return true;
        if (e instanceof Function f && Set.of("COUNT", "SUM", "AVG", "BIT_AND", "BIT_OR", "BIT_XOR").contains(f.getName().toUpperCase(Locale.ROOT))) {
            return true;
        }
        if (e instanceof Function f && Set.of("MIN", "MAX").contains(f.getName().toUpperCase(Locale.ROOT))
                && f.getParameters() != null && f.getParameters().size() == 1) {
            return knownNotText((Expression) f.getParameters().getFirst());
        }
        if (!(e instanceof Column c)) return false;
        ColumnDef def = sources.columnOf(c);
        if (def == null) return false;
        String type = def.typeName().toUpperCase(Locale.ROOT).strip();
        return type.matches("(TINY|SMALL|MEDIUM|BIG)?INT(EGER)?\\b.*|DECIMAL\\b.*|NUMERIC\\b.*|DEC\\b.*|FLOAT\\b.*|DOUBLE\\b.*|REAL\\b.*"
                + "|DATE|DATETIME\\b.*|TIMESTAMP\\b.*|TIME\\b.*|YEAR\\b.*|BIT\\b.*|BOOL(EAN)?\\b.*");
    }

    /** The declared length of a CHAR/VARCHAR column, else {@link #EXPRESSION_TEXT_LENGTH}. */
    private int textLength(Expression e) {
        if (e instanceof Column c) {
            ColumnDef def = sources.columnOf(c);
            if (def != null) {
                var m = java.util.regex.Pattern.compile("(?i)^\\s*(?:NATIONAL\\s+)?(?:VAR)?CHAR(?:ACTER)?\\s*\\(\\s*(\\d+)").matcher(def.typeName());
                if (m.find()) return Math.max(1, Integer.parseInt(m.group(1)));
            }
        }
        return EXPRESSION_TEXT_LENGTH;
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

    /**
     * {offset, count} of the LIMIT, or null. A bound may be one of the client's parameters (ORMs bind
     * page bounds): those are the statement's last parameters (LIMIT ends it, and parameters in ORDER BY and
     * GROUP BY are refused above), in the order the text has them. Called while HAVING is still in the
     * statement: the bounds index the client's parameters, HAVING's included.
     */
    private ParamLimit.Bound[] limit() throws PlanException {
        Limit l = select.getLimit();
        if (l == null && select.getOffset() == null) return null;
        if (l == null || l.getRowCount() == null || l.isLimitAll() || l.isLimitNull()) {
            throw PlanException.unsupported("OFFSET without LIMIT over several partitions yet");
        }
        boolean offsetFirst = l.getOffset() != null; // LIMIT offset, count; else LIMIT count [OFFSET offset]
        Expression offsetExpression = l.getOffset() != null ? l.getOffset() : select.getOffset() != null ? select.getOffset().getOffset() : null;
        Expression countExpression = l.getRowCount();
        int params = ParamCounter.count(select.toString());
        int limitParams = (offsetExpression instanceof JdbcParameter ? 1 : 0) + (countExpression instanceof JdbcParameter ? 1 : 0);
        int next = params - limitParams;
        Expression first = offsetFirst ? offsetExpression : countExpression;
        Expression second = offsetFirst ? countExpression : offsetExpression;
        var firstBound = bound(first, first instanceof JdbcParameter ? next++ : -1, l);
        var secondBound = second == null ? ParamLimit.Bound.literal(0) : bound(second, second instanceof JdbcParameter ? next : -1, l);
        return offsetFirst ? new ParamLimit.Bound[] {firstBound, secondBound} : new ParamLimit.Bound[] {secondBound, firstBound};
    }

    private static ParamLimit.Bound bound(Expression e, int param, Limit l) throws PlanException {
        if (e instanceof LongValue v) return ParamLimit.Bound.literal(v.getValue());
        if (e instanceof JdbcParameter) return ParamLimit.Bound.param(param);
        throw PlanException.unsupported("LIMIT with expressions over several partitions yet (" + l + ")");
    }

    private static boolean literal(ParamLimit.Bound[] limit) {
        return limit[0].param() < 0 && limit[1].param() < 0;
    }

    /** The shards' own LIMIT: offset + count rows each, a literal or (with parameters) one of the router's. */
    private void shardLimit(ParamLimit.Bound[] limit) {
        select.setLimit(new Limit().withRowCount(literal(limit) ? new LongValue(limit[0].value() + limit[1].value()) : new JdbcParameter()));
        select.setOffset(null);
    }

    private static Operator applyLimit(Operator root, ParamLimit.Bound[] limit, boolean shardsLimited) {
        if (limit == null) return root;
        if (literal(limit)) return new org.lutra.exec.Limit(root, limit[0].value(), limit[1].value());
        return new ParamLimit(root, limit[0], limit[1], shardsLimited);
    }

    /** The '?' of the statement's LIMIT and OFFSET. */
    private static int limitParams(PlainSelect select) {
        return (select.getLimit() == null ? 0 : ParamCounter.count(select.getLimit().toString()))
                + (select.getOffset() == null ? 0 : ParamCounter.count(select.getOffset().toString()));
    }

    /** How many '?' the statement has outside its LIMIT: the shard SQL must have them once each, in order. */
    private int params;

    private Route route() throws PlanException {
        // an item the merge repeats (a DISTINCT key sorted by, a select item with its sort weight) would repeat its '?'
        // (the LIMIT's own '?' are the router's: ParamLimit rewrites them, so they are left out of the count)
        if (ParamCounter.count(select.toString()) - limitParams(select) != params) {
            throw PlanException.unsupported("parameters in select items that the merge over several partitions repeats (DISTINCT, "
                    + "ORDER BY an item) yet");
        }
        var driving = sources.drivingSource();
        KeyMatch keys = target.keys() == null ? null
                : new KeyFinder(driving.table().partitioning().column(), driving.table().name(), driving.alias()).find(select.getWhere(), select);
        return new Route(target, select.toString(), keys instanceof KeyMatch.In in ? in.template() : null);
    }

    private Operator project(Operator root) {
        if (hiddenCount == 0) return root;
        int[] keep = new int[visible.size()];
        for (int i = 0; i < keep.length; i++) keep[i] = i;
        return new Project(root, keep, null);
    }

    static boolean hasAggregate(Expression e) {
        var found = new boolean[1];
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                if (isAggregate(f)) found[0] = true;
                return super.visit(f, context);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.MySQLGroupConcat groupConcat, S context) {
                found[0] = true;
                return null;
            }
        }, null);
        return found[0];
    }

    /** Whether {@code e} reads a column other than inside an aggregate's argument. */
    static boolean hasColumnOutsideAggregates(Expression e) {
        var found = new boolean[1];
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                return isAggregate(f) ? null : super.visit(f, context);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.MySQLGroupConcat groupConcat, S context) {
                return null;
            }

            @Override
            public <S> Void visit(Column column, S context) {
                found[0] = true;
                return null;
            }
        }, null);
        return found[0];
    }

    static boolean isAggregate(Function f) {
        return f.getMultipartName().size() == 1 && AGGREGATES.contains(f.getName().toUpperCase(Locale.ROOT));
    }

    private static String quote(String name) {
        return Sources.quote(name);
    }
}
