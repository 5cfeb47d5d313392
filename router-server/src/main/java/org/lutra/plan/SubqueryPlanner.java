package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.exec.SubqueryRounds;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;


/**
 * Plans a SELECT whose WHERE clause holds uncorrelated subqueries (IN, NOT IN, EXISTS, NOT
 * EXISTS, scalar): each subquery gets its own plan, and the outer statement becomes a text with
 * one slot per subquery that {@link SubqueryRounds} fills with the values at run time.
 * Correlated subqueries (a column of the outer query inside) are refused: they would need the
 * outer rows first.
 */
final class SubqueryPlanner {
    /** Plans a subquery's SELECT (any shape the planner handles). */
    interface Inner {
        Plan.Query plan(Select select) throws PlanException;
    }

    private record Found(SubqueryRounds.Kind kind, Expression node, Select select) {}

    private SubqueryPlanner() {}

    static boolean hasWhereSubquery(PlainSelect select) {
        return select.getWhere() != null && !find(select.getWhere()).isEmpty();
    }

    static Plan.Query plan(PlainSelect select, Catalog catalog, Inner inner, SubqueryRounds.OuterPlanner outer) throws PlanException {
        var found = find(select.getWhere());
        var subqueries = new ArrayList<SubqueryRounds.Subquery>();
        var slots = new ArrayList<String>();
        for (int i = 0; i < found.size(); i++) {
            Found f = found.get(i);
            if (f.select() instanceof PlainSelect p && correlated(p, catalog)) {
                throw PlanException.unsupported("correlated subqueries over several partitions yet (" + f.select() + ")");
            }
            Plan.Query plan = inner.plan(f.select());
            String left = null;
            String slot;
            switch (f.node()) {
                case InExpression in -> {
                    left = in.getLeftExpression().toString();
                    if (ParamCounter.count(left) > 0) throw PlanException.unsupported("parameters left of IN (subquery) yet");
                    if (in.getLeftExpression() instanceof net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<?> l && l.size() > 1) {
                        throw PlanException.unsupported("row subqueries ((a, b) IN (SELECT ...)) yet");
                    }
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
            subqueries.add(new SubqueryRounds.Subquery(f.kind(), plan.root(), plan.paramCount(), left));
            slots.add(slot);
        }
        String text = select.toString();
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
            if (at < 0) throw PlanException.unsupported("this subquery's shape yet (" + found.get(i).select() + ")");
            pieces.add(text.substring(from, at));
            from = at + slot.length();
        }
        pieces.add(text.substring(from));
        Guards.requireNoSubquery(String.join(" ? ", pieces), 1); // subqueries outside WHERE are not planned here
        int params = ParamCounter.count(String.join("", pieces)) + subqueries.stream().mapToInt(SubqueryRounds.Subquery::params).sum();
        return new Plan.Query(new SubqueryRounds(pieces, subqueries, outer), params);
    }

    /** The subqueries of a WHERE clause, in text order, not looking inside them. */
    private static List<Found> find(Expression where) {
        var out = new ArrayList<Found>();
        where.accept(new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(InExpression in, S context) {
                if (in.getRightExpression() instanceof ParenthesedSelect ps) {
                    in.getLeftExpression().accept(this, context);
                    out.add(new Found(in.isNot() ? SubqueryRounds.Kind.NOT_IN : SubqueryRounds.Kind.IN, in, ps.getSelect()));
                    return null;
                }
                return super.visit(in, context);
            }

            @Override
            public <S> Void visit(ExistsExpression e, S context) {
                if (e.getRightExpression() instanceof ParenthesedSelect ps) {
                    out.add(new Found(e.isNot() ? SubqueryRounds.Kind.NOT_EXISTS : SubqueryRounds.Kind.EXISTS, e, ps.getSelect()));
                    return null;
                }
                return super.visit(e, context);
            }

            @Override
            public <S> Void visit(ParenthesedSelect ps, S context) {
                out.add(new Found(SubqueryRounds.Kind.SCALAR, ps, ps.getSelect()));
                return null;
            }

            @Override
            public <S> Void visit(Select select, S context) {
                if (select instanceof ParenthesedSelect ps) return visit(ps, context);
                return null;
            }
        }, null);
        return out;
    }

    /** Whether a column of {@code select} (outside its own nested subqueries) belongs to none of its own tables. */
    static boolean correlated(PlainSelect select, Catalog catalog) {
        var names = new HashSet<String>();
        var tables = new ArrayList<org.lutra.catalog.TableDef>();
        var items = new ArrayList<Object>();
        items.add(select.getFromItem());
        if (select.getJoins() != null) for (Join j : select.getJoins()) items.add(j.getRightItem());
        for (Object item : items) {
            if (!(item instanceof Table t)) return true; // derived tables: not analysed, treated as correlated (refused)
            String name = KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT);
            names.add(name);
            if (t.getAlias() != null) names.add(KeyFinder.unquote(t.getAlias().getName()).toLowerCase(Locale.ROOT));
            var def = catalog.table(name);
            if (def == null) return true;
            tables.add(def);
        }
        var aliases = new HashSet<String>();
        for (var item : select.getSelectItems()) {
            if (item.getAlias() != null) aliases.add(KeyFinder.unquote(item.getAlias().getName()).toLowerCase(Locale.ROOT));
        }
        boolean[] outer = {false};
        var visitor = new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Column c, S context) {
                String column = KeyFinder.unquote(c.getColumnName());
                if (c.getTable() != null && c.getTable().getName() != null) {
                    if (!names.contains(KeyFinder.unquote(c.getTable().getName()).toLowerCase(Locale.ROOT))) outer[0] = true;
                } else if (tables.stream().noneMatch(t -> t.column(column) != null) && !aliases.contains(column.toLowerCase(Locale.ROOT))) {
                    outer[0] = true;
                }
                return null;
            }

            @Override
            public <S> Void visit(ParenthesedSelect ps, S context) {
                return null; // its own subqueries are checked when they are planned
            }
        };
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof Expression e) e.accept(visitor, null);
        }
        for (Expression e : expressions(select)) e.accept(visitor, null);
        return outer[0];
    }

    private static List<Expression> expressions(PlainSelect select) {
        var out = new ArrayList<Expression>();
        if (select.getWhere() != null) out.add(select.getWhere());
        if (select.getHaving() != null) out.add(select.getHaving());
        if (select.getJoins() != null) for (Join j : select.getJoins()) out.addAll(j.getOnExpressions());
        if (select.getGroupBy() != null) for (Object g : select.getGroupBy().getGroupByExpressionList()) out.add((Expression) g);
        if (select.getOrderByElements() != null) for (var o : select.getOrderByElements()) out.add(o.getExpression());
        return out;
    }

}
