package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.lutra.catalog.Catalog;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

/** Whether a subquery reads a column of an enclosing query (is correlated), as the subquery planners ask it. */
final class Correlation {
    private Correlation() {}

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
            // an aliased table answers to its alias only: t.a then names an outer t (MySQL's scoping)
            names.add(t.getAlias() != null ? KeyFinder.unquote(t.getAlias().getName()).toLowerCase(Locale.ROOT) : name);
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
