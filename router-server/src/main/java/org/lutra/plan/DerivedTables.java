package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithItem;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Materialize;
import org.lutra.exec.Plan;
import org.lutra.sql.Guards;
import org.lutra.sql.LockInShareMode;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Plans a SELECT over several partitions as a {@link Materialize}: every item of its FROM clause
 * — a derived table ({@code (SELECT ...) AS d}), a common table expression, or, where the
 * router's own join operators cannot answer, a table — becomes a temporary table filled by its
 * own plan, and the outer statement reads those instead, on one partition that holds every table
 * they read (so that MySQL there gives the temporary tables the derived tables' column types).
 *
 * <p>A table's SELECT takes the WHERE conditions that read only that table (by its alias), so
 * that only the rows the statement can use are moved; the outer statement keeps its whole WHERE
 * clause, which filters them again to the same rows. A table on the nullable side of an outer
 * join takes none: its NULL-extended rows are the outer statement's to make.
 *
 * <p>Parameters: the statement's text is numbered ({@code ?1, ?2, ...}) before it is cut, so each
 * piece knows which of the statement's parameters its own '?' are, wherever they were copied.
 *
 * <p>Refused: subqueries left in the outer statement (they would read one partition's rows),
 * recursive CTEs, CTEs that read other CTEs. With RIGHT, FULL or NATURAL joins no table takes
 * conditions: each moves whole.
 */
final class DerivedTables {
    private static final Pattern NONDETERMINISTIC = Pattern.compile("\\b(RAND|UUID|UUID_SHORT|SYSDATE|SLEEP|NEXTVAL|LASTVAL)\\s*\\(");

    private DerivedTables() {}

    static boolean applies(PlainSelect select) {
        if (select.getWithItemsList() != null && !select.getWithItemsList().isEmpty()) return true;
        if (select.getFromItem() instanceof ParenthesedSelect) return true;
        if (select.getJoins() != null) {
            for (Join j : select.getJoins()) if (j.getRightItem() instanceof ParenthesedSelect) return true;
        }
        return false;
    }

    /**
     * The statement over its FROM items materialized, or why that does not apply: a shape it does not take (see the class
     * comment), tables that share no partition, or an item its own planner refuses (the first met, in the order of the FROM
     * clause). An error of the statement (a derived table without an alias; an unknown table where {@code inner} gives one) is a
     * reason too.
     *
     * @param text       the statement, as planned (its '?' the statement's parameters in order)
     * @param tables     whether plain tables in FROM are materialized too (else only derived tables and CTEs may appear)
     */
    static Attempt<Plan.Query> attempt(String text, Catalog catalog, SubqueryPlanner.InnerAttempt inner, boolean tables) throws PlanException {
        int params = ParamCounter.count(text);
        var shapeRefused = Attempt.<Plan.Query>notApplicable(PlanException.unsupported("this statement's shape over several partitions yet"));
        PlainSelect select = NumberedText.parsedAgain(NumberedText.numbered(text)).orElse(null) instanceof PlainSelect p ? p : null;
        if (select == null) return shapeRefused;
        var ctes = new LinkedHashMap<String, WithItem<?>>();
        if (select.getWithItemsList() != null) {
            for (WithItem<?> w : select.getWithItemsList()) {
                if (w.isRecursive()) return Attempt.notApplicable(PlanException.unsupported("recursive common table expressions over several partitions yet"));
                if (w.getWithItemList() != null && !w.getWithItemList().isEmpty()) {
                    return Attempt.notApplicable(PlanException.unsupported("column lists of common table expressions (WITH " + w.getAlias().getName()
                            + " (...)) over several partitions yet"));
                }
                ctes.put(KeyFinder.unquote(w.getAlias().getName()).toLowerCase(Locale.ROOT), w);
            }
            select.setWithItemsList(null);
        }
        if (select.getFromItem() == null) return Attempt.notApplicable(PlanException.unsupported("a WITH clause whose statement reads no table over several partitions yet"));
        List<FromItem> items = new ArrayList<>();
        items.add(select.getFromItem());
        var nullable = new HashSet<Integer>();
        boolean unusual = false;
        if (select.getJoins() != null) {
            for (Join j : select.getJoins()) {
                items.add(j.getRightItem());
                unusual |= j.isRight() || j.isFull() || j.isNatural();
                if (j.isLeft()) nullable.add(items.size() - 1);
            }
        }
        // RIGHT, FULL and NATURAL joins: no table takes WHERE conditions (a RIGHT join's nullable side is the
        // left one, a NATURAL join's columns are matched by name): each moves whole, the outer statement filters
        boolean pushdown = !unusual;
        List<Expression> conditions = conjuncts(select.getWhere());
        // for each FROM item's alias, the columns it has: a table's from the catalog, a derived table's unknown (null)
        var columns = new LinkedHashMap<String, Set<String>>();
        for (FromItem item : items) {
            if (item instanceof Table t && t.getSchemaName() == null && !ctes.containsKey(KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT))
                    && catalog.table(KeyFinder.unquote(t.getName())) != null) {
                var names = new HashSet<String>();
                for (var c : catalog.table(KeyFinder.unquote(t.getName())).columns()) names.add(c.name().toLowerCase(Locale.ROOT));
                columns.put(aliasOf(item).toLowerCase(Locale.ROOT), names);
            } else if (item.getAlias() != null || item instanceof Table) {
                columns.put(aliasOf(item).toLowerCase(Locale.ROOT), null);
            }
        }
        var derived = new ArrayList<Materialize.Derived>();
        var read = new HashSet<String>();
        for (int i = 0; i < items.size(); i++) {
            FromItem item = items.get(i);
            String name = "lutra_derived_" + i;
            Select body;
            Alias alias;
            if (item instanceof ParenthesedSelect ps) {
                if (ps.getAlias() == null) return Attempt.notApplicable(new PlanException("42000", 1248, "Every derived table must have its own alias"));
                body = unwrap(ps.getSelect());
                alias = ps.getAlias();
            } else if (item instanceof Table t && t.getSchemaName() == null && ctes.containsKey(KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT))) {
                body = unwrap(ctes.get(KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT)).getSelect());
                alias = t.getAlias() != null ? t.getAlias() : new Alias(t.getName(), true);
            } else if (tables && item instanceof Table t && t.getSchemaName() == null) {
                if (LockInShareMode.clause(select) != null) {
                    // the outer statement reads the table's rows from a temporary table: moved there with the lock, every row its own
                    // conditions select would be locked, not the rows the join reads (NOWAIT and SKIP LOCKED would answer otherwise)
                    return Attempt.notApplicable(PlanException.unsupported("a locking read (" + LockInShareMode.clause(select) + ") of " + t.getName()
                            + " joined with a derived table, a CTE or a table on other partitions: the router would lock other rows than"
                            + " MariaDB locks"));
                }
                alias = t.getAlias() != null ? t.getAlias() : new Alias(t.getName(), true);
                String as = KeyFinder.unquote(alias.getName());
                var own = !pushdown || nullable.contains(i) ? List.<Expression>of() : conditions.stream().filter(c -> readsOnly(c, as, columns)).toList();
                var s = new PlainSelect().addSelectItems(new AllColumns()).withFromItem(new Table(t.getName()).withAlias(t.getAlias()));
                if (!own.isEmpty()) s.setWhere(and(own));
                body = s;
            } else {
                return Attempt.notApplicable(PlanException.unsupported("a derived table or common table expression together with the table " + item
                        + " over several partitions yet"));
            }
            var piece = NumberedText.cut(body.toString());
            Select clean = NumberedText.parsedAgain(piece.sql()).orElse(null);
            if (clean == null) return shapeRefused;
            switch (tableNames(clean)) {
                case Attempt.Planned<Set<String>> names -> read.addAll(names.plan());
                case Attempt.NotApplicable<Set<String>> n -> {
                    return Attempt.notApplicable(n.reason());
                }
            }
            var plan = inner.plan(clean);
            if (!(plan instanceof Attempt.Planned<Plan.Query> rows)) return plan;
            derived.add(new Materialize.Derived(rows.plan().root(), piece.sql(), piece.params(), name));
            Table replacement = new Table("`" + name + "`").withAlias(alias);
            if (i == 0) select.setFromItem(replacement);
            else select.getJoins().get(i - 1).setRightItem(replacement);
        }
        var outer = NumberedText.cut(select.toString());
        var sessionState = Guards.sessionState(outer.sql());
        if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
        Select outerSelect = NumberedText.parsedAgain(outer.sql()).orElse(null);
        if (outerSelect == null) return shapeRefused;
        Set<String> outerNames;
        switch (tableNames(outerSelect)) {
            case Attempt.Planned<Set<String>> names -> outerNames = names.plan();
            case Attempt.NotApplicable<Set<String>> n -> {
                return Attempt.notApplicable(n.reason());
            }
        }
        for (String t : outerNames) {
            if (!t.startsWith("`lutra_derived_")) {
                return Attempt.notApplicable(PlanException.unsupported("a derived table, CTE or join with a subquery on " + t
                        + " outside it over several partitions yet"));
            }
        }
        return switch (commonPartitionOf(read, catalog)) {
            case Attempt.Planned<Integer> partition ->
                    new Attempt.Planned<>(new Plan.Query(new Materialize(partition.plan(), derived, outer.sql(), outer.params()), params));
            case Attempt.NotApplicable<Integer> n -> Attempt.notApplicable(n.reason());
        };
    }

    /**
     * A set operation's branches as statements of their own (their text, and that text parsed), the operations over them,
     * and the partition they run on.
     */
    private record SetOperationShape(SetOperationList list, List<NumberedText.Piece> branches, List<Select> parsed, int partition) {}

    /**
     * Why {@link #setOperations} cannot materialize the branches of {@code text}, asked before it is tried (the refusal it
     * gives): a shape it does not take, a branch that is not a table's, tables that share no partition; empty where it can.
     */
    static java.util.Optional<PlanException> setOperationsNotApplicable(String text, Catalog catalog) {
        return setOperationShape(text, catalog) instanceof Attempt.NotApplicable<SetOperationShape> n ? java.util.Optional.of(n.reason()) : java.util.Optional.empty();
    }

    private static Attempt<SetOperationShape> setOperationShape(String text, Catalog catalog) {
        var shapeRefused = Attempt.<SetOperationShape>notApplicable(PlanException.unsupported("this statement's shape over several partitions yet"));
        var parsed = NumberedText.parsedAgain(NumberedText.numbered(text));
        if (parsed.isEmpty()) return shapeRefused;
        if (!(parsed.get() instanceof SetOperationList list) || list.getWithItemsList() != null && !list.getWithItemsList().isEmpty()) {
            return Attempt.notApplicable(PlanException.unsupported("this set operation's shape over several partitions yet"));
        }
        var branches = new ArrayList<NumberedText.Piece>();
        var parsedBranches = new ArrayList<Select>();
        var read = new HashSet<String>();
        for (Select branch : list.getSelects()) {
            Select body = unwrap(branch);
            if (body instanceof ParenthesedSelect) return Attempt.notApplicable(PlanException.unsupported("ORDER BY or LIMIT outside a parenthesized branch yet"));
            var piece = NumberedText.cut(body.toString());
            var clean = NumberedText.parsedAgain(piece.sql());
            if (clean.isEmpty()) return shapeRefused;
            switch (tableNames(clean.get())) {
                case Attempt.Planned<Set<String>> names -> read.addAll(names.plan());
                case Attempt.NotApplicable<Set<String>> n -> {
                    return Attempt.notApplicable(n.reason());
                }
            }
            branches.add(piece);
            parsedBranches.add(clean.get());
        }
        var partition = commonPartitionOf(read, catalog);
        if (partition instanceof Attempt.NotApplicable<Integer> n) return Attempt.notApplicable(n.reason());
        return new Attempt.Planned<>(new SetOperationShape(list, branches, parsedBranches, ((Attempt.Planned<Integer>) partition).plan()));
    }

    /**
     * A set operation the Union operator cannot merge (INTERSECT, EXCEPT, UNION mixed with UNION
     * ALL, ...): each branch's rows materialized, and the same operations over them in MySQL. Where that does not apply,
     * why: the shape {@link #setOperationsNotApplicable} names, else the first branch its planner refuses.
     */
    static Attempt<Plan.Query> setOperations(String text, Catalog catalog, SubqueryPlanner.InnerAttempt inner) throws PlanException {
        int params = ParamCounter.count(text);
        SetOperationShape shape;
        switch (setOperationShape(text, catalog)) {
            case Attempt.Planned<SetOperationShape> p -> shape = p.plan();
            case Attempt.NotApplicable<SetOperationShape> n -> {
                return Attempt.notApplicable(n.reason());
            }
        }
        var list = shape.list();
        var derived = new ArrayList<Materialize.Derived>();
        var outer = new StringBuilder();
        var operation = new StringBuilder();
        var typesParams = new ArrayList<Integer>();
        for (int i = 0; i < shape.branches().size(); i++) {
            var piece = shape.branches().get(i);
            String name = "lutra_derived_" + i;
            var branch = inner.plan(shape.parsed().get(i));
            if (!(branch instanceof Attempt.Planned<Plan.Query> rows)) return branch;
            derived.add(new Materialize.Derived(rows.plan().root(), piece.sql(), piece.params(), name,
                    "CREATE TEMPORARY TABLE `" + name + "` LIKE `" + SET_OPERATION_TYPES + "`", null, List.of()));
            if (i > 0) {
                outer.append(' ').append(list.getOperations().get(i - 1)).append(' ');
                operation.append(' ').append(list.getOperations().get(i - 1)).append(' ');
            }
            outer.append("SELECT * FROM `").append(name).append('`');
            operation.append('(').append(piece.sql()).append(')');
            for (int p : piece.params()) typesParams.add(p);
        }
        var order = list.getOrderByElements() == null ? List.<OrderByElement>of() : list.getOrderByElements();
        var width = columnCount(shape.parsed().getFirst());
        if (width.isEmpty() && !order.isEmpty()) {
            return Attempt.notApplicable(PlanException.unsupported("ORDER BY on a set operation over SELECT * over several partitions yet"));
        }
        var positions = new ArrayList<String>();
        for (OrderByElement o : order) {
            int position = position(o.getExpression(), shape.parsed().getFirst(), width.orElse(0));
            if (position < 0) {
                return Attempt.notApplicable(PlanException.unsupported("ORDER BY on a set operation by anything but a position or a name of the"
                        + " first SELECT's columns over several partitions yet (" + o.getExpression() + ")"));
            }
            positions.add(position + (o.isAscDescPresent() && !o.isAsc() ? " DESC" : ""));
        }
        if (!positions.isEmpty()) outer.append(" ORDER BY ").append(String.join(", ", positions));
        if (list.getLimit() != null) outer.append(' ').append(list.getLimit());
        if (list.getOffset() != null) outer.append(' ').append(list.getOffset());
        var o = NumberedText.cut(outer.toString());
        // the tables' columns named by position: the first branch's names may repeat or be no column's name (1060, 1166)
        String typesSql = width.map(n -> "WITH lutra_types(" + String.join(", ", java.util.stream.IntStream.rangeClosed(1, n).mapToObj(c -> "c" + c).toList())
                + ") AS (" + operation + ") SELECT * FROM lutra_types").orElse("SELECT * FROM (" + operation + ") AS lutra_types");
        var types = new Materialize.Types(SET_OPERATION_TYPES, typesSql, typesParams.stream().mapToInt(Integer::intValue).toArray());
        return new Attempt.Planned<>(new Plan.Query(Materialize.setOperation(shape.partition(), types, derived, o.sql(), o.params()), params));
    }

    private static final String SET_OPERATION_TYPES = "lutra_set_operation_types";

    /** The number of columns {@code branch} selects; empty where a {@code *} makes it the tables'. */
    private static java.util.Optional<Integer> columnCount(Select branch) {
        if (!(branch instanceof PlainSelect p)) return java.util.Optional.empty();
        for (var item : p.getSelectItems()) {
            if (item.getExpression() instanceof AllColumns) return java.util.Optional.empty();
        }
        return java.util.Optional.of(p.getSelectItems().size());
    }

    /**
     * The 1-based column of a set operation an ORDER BY term names: a position, or a name of the first branch's columns (its
     * alias, else a column's name), the last one that has it; -1 where it is neither.
     */
    private static int position(Expression e, Select first, int width) throws PlanException {
        if (e instanceof LongValue p) {
            if (p.getValue() < 1 || p.getValue() > width) throw new PlanException("42S22", 1054, "Unknown column '" + p + "' in 'order clause'");
            return (int) p.getValue();
        }
        if (!(e instanceof Column c) || c.getTable() != null || !(first instanceof PlainSelect select)) return -1;
        String name = KeyFinder.unquote(c.getColumnName());
        int found = -1;
        for (int i = 0; i < select.getSelectItems().size(); i++) {
            var item = select.getSelectItems().get(i);
            String label = item.getAlias() != null ? KeyFinder.unquote(item.getAlias().getName())
                    : item.getExpression() instanceof Column col ? KeyFinder.unquote(col.getColumnName()) : null;
            if (name.equalsIgnoreCase(label)) {
                if (found >= 0) return -1; // two columns of that name: as MariaDB resolves it, not decided here
                found = i + 1;
            }
        }
        return found;
    }

    static List<Expression> conjuncts(Expression where) {
        var out = new ArrayList<Expression>();
        if (where == null) return out;
        Expression e = where;
        while (e instanceof ParenthesedExpressionList<?> l && l.size() == 1 && l.get(0) instanceof Expression only) e = only;
        if (e instanceof AndExpression and) {
            out.addAll(conjuncts(and.getLeftExpression()));
            out.addAll(conjuncts(and.getRightExpression()));
        } else {
            out.add(e);
        }
        return out;
    }

    static Expression and(List<Expression> conditions) {
        Expression out = new ParenthesedExpressionList<>(conditions.getFirst());
        for (int i = 1; i < conditions.size(); i++) out = new AndExpression(out, new ParenthesedExpressionList<>(conditions.get(i)));
        return out;
    }

    private static String aliasOf(FromItem item) {
        if (item.getAlias() != null) return KeyFinder.unquote(item.getAlias().getName());
        return item instanceof Table t ? KeyFinder.unquote(t.getName()) : "";
    }

    /**
     * Whether {@code condition} reads columns of {@code alias} only — qualified by it, or unqualified
     * and a column of no other FROM item (which must all be known tables) — and one at least, and
     * holds no subquery.
     */
    static boolean readsOnly(Expression condition, String alias, Map<String, Set<String>> columns) {
        String text = Guards.stripQuoted(condition.toString()).toUpperCase(Locale.ROOT);
        if (text.contains("SELECT")) return false;
        // evaluated twice (in the table's SELECT and again outside), a random condition would filter twice
        if (NONDETERMINISTIC.matcher(text).find()) return false;
        var ok = new boolean[] {true, false};
        condition.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Column column, S context) {
                Table t = column.getTable();
                String name = KeyFinder.unquote(column.getColumnName()).toLowerCase(Locale.ROOT);
                boolean mine;
                if (t != null && t.getName() != null) {
                    mine = t.getSchemaName() == null && KeyFinder.unquote(t.getName()).equalsIgnoreCase(alias);
                } else {
                    mine = columns.get(alias.toLowerCase(Locale.ROOT)) != null && columns.get(alias.toLowerCase(Locale.ROOT)).contains(name);
                    for (var e : columns.entrySet()) {
                        if (!e.getKey().equals(alias.toLowerCase(Locale.ROOT)) && (e.getValue() == null || e.getValue().contains(name))) mine = false;
                    }
                }
                if (mine) ok[1] = true; else ok[0] = false;
                return null;
            }
        }, null);
        return ok[0] && ok[1];
    }

    /** {@code ((SELECT ...))} as {@code SELECT ...}, where the parentheses add no ORDER BY or LIMIT of their own. */
    private static Select unwrap(Select s) {
        while (s instanceof ParenthesedSelect p && p.getOrderByElements() == null && p.getLimit() == null && p.getOffset() == null) {
            s = p.getSelect();
        }
        return s;
    }

    /** The tables {@code statement} reads, or why they cannot be listed (JSQLParser's finder meets a node it does not visit). */
    private static Attempt<Set<String>> tableNames(Select statement) {
        try {
            return new Attempt.Planned<>(new TableFinder().getTables((net.sf.jsqlparser.statement.Statement) statement));
        } catch (RuntimeException e) {
            return Attempt.notApplicable(PlanException.unsupported("this statement's shape over several partitions yet (" + e.getMessage() + ")"));
        }
    }

    /** The lowest partition holding every table of {@code names}, or why there is none to run on. */
    private static Attempt<Integer> commonPartitionOf(Set<String> names, Catalog catalog) {
        Set<Integer> common = null;
        for (String name : names) {
            TableDef t = catalog.table(KeyFinder.unquote(name));
            if (t == null) {
                return Attempt.notApplicable(PlanException.unsupported("a derived table or common table expression that reads " + name
                        + " (another CTE, or a table outside the logical database) over several partitions yet"));
            }
            var set = new HashSet<Integer>();
            for (int p : t.partitioning().partitions()) set.add(p);
            if (common == null) common = set; else common.retainAll(set);
        }
        if (common == null) common = new HashSet<>(List.of(catalog.partitions().getFirst().id()));
        if (common.isEmpty()) return Attempt.notApplicable(PlanException.unsupported("derived tables over tables that share no partition yet"));
        return new Attempt.Planned<>(common.stream().min(Integer::compare).get());
    }
}
