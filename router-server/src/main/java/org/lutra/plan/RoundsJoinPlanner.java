package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.lutra.catalog.ColumnDef;
import org.lutra.catalog.KeyType;
import org.lutra.exec.JoinInRounds;
import org.lutra.exec.Limit;
import org.lutra.exec.Operator;
import org.lutra.exec.Plan;
import org.lutra.exec.Sort;
import org.lutra.merge.SortKey;
import org.lutra.sql.LockInShareMode;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Plans a join of two tables that are not co-located as a {@link JoinInRounds}: the FROM table is
 * the outer side, read with the WHERE conditions on its columns; the joined table the inner side,
 * read per batch with the batch's keys as an IN list and the conditions on its columns. What it
 * takes: INNER or LEFT JOIN (or a comma join) on one equality of integer columns, each WHERE
 * condition on one table's columns, plain columns (or *) in the select list, ORDER BY those
 * columns and LIMIT. Anything else is left to the caller's refusal.
 */
final class RoundsJoinPlanner {
    /** Plans the statement {@code sql}: the inner reads, when a round runs. */
    interface Planning {
        Plan.Query plan(String sql) throws PlanException;
    }

    /** Plans the outer read when the join is planned: its plan, or why it has none (its refusal, or an error of the statement). */
    interface Reading {
        Attempt<Plan.Query> plan(String sql) throws PlanException;
    }

    private RoundsJoinPlanner() {}

    /**
     * The plan, or why the outer read has none (as {@code reading} says); null when the statement is not a join this
     * planner takes.
     */
    static Attempt<Plan.Query> plan(PlainSelect select, Sources sources, Reading reading, Planning planner) throws PlanException {
        if (sources.all().size() != 2 || select.getJoins().size() != 1) return null;
        Join join = select.getJoins().getFirst();
        boolean left = join.isLeft();
        if (join.isRight() || join.isFull() || join.isNatural() || join.isCross() || join.getUsingColumns() != null && !join.getUsingColumns().isEmpty()) return null;
        if (select.getDistinct() != null || select.getGroupBy() != null || select.getHaving() != null || select.getIntoTables() != null) return null;
        var outer = sources.all().get(0);
        var inner = sources.all().get(1);
        // the join condition: one equality between a column of each side
        var on = new ArrayList<Expression>();
        for (Expression e : join.getOnExpressions()) flatten(e, on);
        var where = new ArrayList<Expression>();
        if (select.getWhere() != null) flatten(select.getWhere(), where);
        EqualsTo equality = null;
        for (var list : List.of(on, where)) {
            for (Expression e : list) {
                if (equality == null && e instanceof EqualsTo eq && eq.getLeftExpression() instanceof Column a && eq.getRightExpression() instanceof Column b
                        && sources.sourceOf(a) != null && sources.sourceOf(b) != null && sources.sourceOf(a) != sources.sourceOf(b)
                        && (list == on || !left)) {
                    equality = eq;
                }
            }
        }
        if (equality == null || on.size() > (on.contains(equality) ? 1 : 0)) return null;
        where.remove(equality);
        Column outerKey = sources.sourceOf((Column) equality.getLeftExpression()) == outer ? (Column) equality.getLeftExpression() : (Column) equality.getRightExpression();
        Column innerKey = outerKey == equality.getLeftExpression() ? (Column) equality.getRightExpression() : (Column) equality.getLeftExpression();
        if (!integer(sources.columnOf(outerKey)) || !integer(sources.columnOf(innerKey))) return null;
        // WHERE: each condition on one side; their parameters follow them
        var outerConditions = new ArrayList<String>();
        var innerConditions = new ArrayList<String>();
        var outerParams = new ArrayList<Integer>();
        var innerParams = new ArrayList<Integer>();
        int param = 0;
        for (Expression e : where) {
            Set<Sources.Source> sides = sides(e, sources);
            if (sides == null || sides.size() > 1 || hasSubquery(e)) return null;
            boolean onInner = sides.contains(inner);
            if (onInner && left) return null; // WHERE on the inner side of a LEFT JOIN also filters the NULL-extended rows
            int n = ParamCounter.count(e.toString());
            for (int k = 0; k < n; k++) (onInner ? innerParams : outerParams).add(param++);
            (onInner ? innerConditions : outerConditions).add("(" + e + ")");
        }
        // the select list: columns only
        var picks = new ArrayList<JoinInRounds.Pick>();
        var pickColumns = new ArrayList<Column>();
        for (var item : select.getSelectItems()) {
            Object e = item.getExpression();
            if (e instanceof AllTableColumns t) {
                var s = t.getTable() == null ? null : sources.all().stream().filter(x -> x.answersTo(KeyFinder.unquote(t.getTable().getName()))).findFirst().orElse(null);
                if (s == null) return null;
                addAll(s, s == inner, picks, pickColumns);
            } else if (e instanceof AllColumns) {
                addAll(outer, false, picks, pickColumns);
                addAll(inner, true, picks, pickColumns);
            } else if (e instanceof Column c && item.getAlias() == null && sources.sourceOf(c) != null) {
                var s = sources.sourceOf(c);
                picks.add(new JoinInRounds.Pick(s == inner, index(s, KeyFinder.unquote(c.getColumnName()))));
                pickColumns.add(c);
            } else {
                return null;
            }
        }
        if (ParamCounter.count(String.valueOf(select.getOrderByElements())) + ParamCounter.count(String.valueOf(select.getLimit())) > 0) return null;
        // a locking read locks the rows of both tables (they are in its FROM): each round locks its own
        String lock = LockInShareMode.clause(select);
        lock = lock == null ? "" : " " + lock;
        String outerSql = "SELECT " + qualifier(outer) + ".* FROM " + table(outer) + (outerConditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", outerConditions)) + lock;
        var outerRead = reading.plan(outerSql);
        if (!(outerRead instanceof Attempt.Planned<Plan.Query>(var outerPlan))) return outerRead;
        String innerPrefix = "SELECT " + qualifier(inner) + ".* FROM " + table(inner) + " WHERE " + innerKey + " IN (";
        String innerSuffix = ")" + (innerConditions.isEmpty() ? "" : " AND " + String.join(" AND ", innerConditions)) + lock;
        JoinInRounds.InnerPlanner innerPlanner = keys -> planner.plan(innerPrefix + String.join(", ", Collections.nCopies(keys, "?")) + innerSuffix).root();
        Operator root = new JoinInRounds(outerPlan.root(), ints(outerParams), index(outer, KeyFinder.unquote(outerKey.getColumnName())), innerPlanner,
                ints(innerParams), index(inner, KeyFinder.unquote(innerKey.getColumnName())), left ? JoinInRounds.Kind.LEFT : JoinInRounds.Kind.INNER, picks);
        if (select.getOrderByElements() != null) {
            var keys = new ArrayList<SortKey>();
            for (OrderByElement o : select.getOrderByElements()) {
                int column = -1;
                if (o.getExpression() instanceof LongValue p && p.getValue() >= 1 && p.getValue() <= picks.size()) column = (int) p.getValue() - 1;
                if (o.getExpression() instanceof Column c) {
                    for (int i = 0; i < pickColumns.size() && column < 0; i++) {
                        Column pc = pickColumns.get(i);
                        if (sources.sourceOf(pc) == sources.sourceOf(c) && KeyFinder.unquote(pc.getColumnName()).equalsIgnoreCase(KeyFinder.unquote(c.getColumnName()))) column = i;
                    }
                }
                if (column < 0) return null;
                // text orders by its collation, which the router learns only from weights the shards send: not here
                if (textual(sources, pickColumns.get(column))) return null;
                keys.add(new SortKey(column, !o.isAsc(), -1));
            }
            root = new Sort(root, keys);
        }
        if (select.getLimit() != null || select.getOffset() != null) {
            var l = select.getLimit();
            Expression offset = l != null && l.getOffset() != null ? l.getOffset() : select.getOffset() != null ? select.getOffset().getOffset() : null;
            if (l == null || !(l.getRowCount() instanceof LongValue count) || offset != null && !(offset instanceof LongValue)) return null;
            root = new Limit(root, offset == null ? 0 : ((LongValue) offset).getValue(), count.getValue());
        }
        return Attempt.planned(new Plan.Query(root, param));
    }

    private static void addAll(Sources.Source s, boolean inner, List<JoinInRounds.Pick> picks, List<Column> columns) {
        for (int i = 0; i < s.table().columns().size(); i++) {
            picks.add(new JoinInRounds.Pick(inner, i));
            columns.add(new Column(new Table(Sources.quote(s.qualifier())), Sources.quote(s.table().columns().get(i).name())));
        }
    }

    private static int index(Sources.Source s, String column) {
        for (int i = 0; i < s.table().columns().size(); i++) {
            if (s.table().columns().get(i).name().equalsIgnoreCase(column)) return i;
        }
        throw new IllegalStateException(column);
    }

    private static boolean integer(ColumnDef c) {
        return c != null && c.keyType() == KeyType.LONG && c.typeName().toUpperCase(java.util.Locale.ROOT).matches("(TINY|SMALL|MEDIUM|BIG)?INT(EGER)?\\b.*")
                && !c.typeName().matches("(?i)TINYINT\\s*\\(\\s*1\\s*\\).*");
    }

    /** The tables an expression's columns belong to; null if one of them is unknown. */
    private static Set<Sources.Source> sides(Expression e, Sources sources) {
        var out = new HashSet<Sources.Source>();
        boolean[] unknown = {false};
        e.accept(new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Column c, S context) {
                var s = sources.sourceOf(c);
                if (s == null) unknown[0] = true; else out.add(s);
                return null;
            }
        }, null);
        return unknown[0] ? null : out;
    }

    private static boolean hasSubquery(Expression e) {
        return e.toString().toUpperCase(java.util.Locale.ROOT).matches("(?s).*\\bSELECT\\b.*");
    }

    private static void flatten(Expression e, List<Expression> out) {
        if (e instanceof AndExpression and) {
            flatten(and.getLeftExpression(), out);
            flatten(and.getRightExpression(), out);
        } else if (e instanceof Parenthesis p) {
            flatten(p.getExpression(), out);
        } else {
            out.add(e);
        }
    }

    private static String qualifier(Sources.Source s) {
        return Sources.quote(s.qualifier());
    }

    private static String table(Sources.Source s) {
        return Sources.quote(s.table().name()) + (s.alias() == null ? "" : " " + Sources.quote(s.alias()));
    }

    private static int[] ints(List<Integer> list) {
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    private static boolean textual(Sources sources, Column c) {
        var source = sources.sourceOf(c);
        var def = source == null ? null : source.table().column(KeyFinder.unquote(c.getColumnName()));
        if (def == null) return true;
        String type = def.typeName().toUpperCase(java.util.Locale.ROOT);
        return type.contains("CHAR") || type.contains("TEXT") || type.startsWith("ENUM") || type.startsWith("SET") || type.startsWith("JSON");
    }
}
