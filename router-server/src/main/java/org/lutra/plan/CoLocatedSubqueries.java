package org.lutra.plan;

import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether every subquery of a statement can run inside each partition together with the outer
 * query, so that the statement is pushed down whole: a subquery whose tables are all replicated
 * on the outer table's partitions, or whose one partitioned table is placed like the outer table
 * and tied to it by equal routing columns ({@code f.source = u.id}: the correlated rows live on
 * the outer row's partition). Then correlated subqueries, in WHERE or the select list, answer as
 * on one MySQL.
 */
final class CoLocatedSubqueries {
    private CoLocatedSubqueries() {}

    /** True when the statement has subqueries and all of them are co-located with the outer tables. */
    static boolean all(PlainSelect select, Sources outer, Catalog catalog) {
        var subqueries = find(select);
        if (subqueries.isEmpty()) return false;
        for (Select s : subqueries) {
            if (severalRows(s)) continue;
            if (!(s instanceof PlainSelect p) || !colocated(p, outer, catalog)) return false;
        }
        return true;
    }

    /**
     * The router's stand-in for a scalar that returned several rows ({@link org.lutra.exec.SubqueryRounds#SEVERAL_ROWS}):
     * it reads no table, so each partition raises MySQL's 1242 exactly where it evaluates it.
     */
    static boolean severalRows(Select s) {
        String text = org.lutra.exec.SubqueryRounds.SEVERAL_ROWS;
        return s.toString().equalsIgnoreCase(text.substring(1, text.length() - 1));
    }

    /** Whether {@code sub} runs inside each partition of the outer table's rows with them (as {@link #all} asks of each). */
    static boolean colocated(Select sub, Sources outer, Catalog catalog) {
        return sub instanceof PlainSelect p && colocated(p, outer, catalog);
    }

    private static List<Select> find(PlainSelect select) {
        var out = new ArrayList<Select>();
        var visitor = new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(ParenthesedSelect ps, S context) {
                out.add(ps.getSelect());
                return null;
            }

            @Override
            public <S> Void visit(Select s, S context) {
                if (s instanceof ParenthesedSelect ps) return visit(ps, context);
                out.add(s);
                return null;
            }

            // x = ANY (SELECT ...), x > ALL (...): the adapter does not look inside, and a subquery not found is not checked
            @Override
            public <S> Void visit(AnyComparisonExpression any, S context) {
                out.add(any.getSelect() instanceof ParenthesedSelect ps ? ps.getSelect() : any.getSelect());
                return null;
            }
        };
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof Expression e) e.accept(visitor, null);
        }
        if (select.getWhere() != null) select.getWhere().accept(visitor, null);
        if (select.getHaving() != null) select.getHaving().accept(visitor, null);
        if (select.getJoins() != null) for (Join j : select.getJoins()) for (Expression e : j.getOnExpressions()) e.accept(visitor, null);
        return out;
    }

    private static boolean colocated(PlainSelect sub, Sources outer, Catalog catalog) {
        if (sub.toString().toUpperCase(Locale.ROOT).replaceFirst("^\\s*SELECT\\b", "").matches("(?s).*\\bSELECT\\b.*")) return false; // nested
        Partitioning placement = outer.drivingTable().partitioning();
        var items = new ArrayList<Object>();
        items.add(sub.getFromItem());
        if (sub.getJoins() != null) for (Join j : sub.getJoins()) items.add(j.getRightItem());
        var inner = new ArrayList<Sources.Source>();
        for (Object item : items) {
            if (!(item instanceof Table t)) return false;
            if (t.getSchemaName() != null) return false;
            TableDef def = catalog.table(KeyFinder.unquote(t.getName()));
            if (def == null) return false;
            inner.add(new Sources.Source(def, t.getAlias() == null ? null : KeyFinder.unquote(t.getAlias().getName())));
        }
        var innerSources = new Sources(inner, 0);
        var conjuncts = new ArrayList<Expression>();
        flatten(sub.getWhere(), conjuncts);
        for (var s : inner) {
            Partitioning p = s.table().partitioning();
            if (p instanceof Partitioning.Replicated r) {
                for (int part : placement.partitions()) {
                    if (java.util.Arrays.stream(r.partitions()).noneMatch(x -> x == part)) return false;
                }
                continue;
            }
            if (placement instanceof Partitioning.Replicated || !JoinPlacement.samePlacement(placement, p)) return false;
            if (!tied(s, conjuncts, innerSources, outer)) return false;
        }
        return true;
    }

    /** A top-level equality between this inner table's routing column and a partitioned outer table's. */
    private static boolean tied(Sources.Source s, List<Expression> conjuncts, Sources inner, Sources outer) {
        for (Expression e : conjuncts) {
            if (!(e instanceof EqualsTo eq) || !(eq.getLeftExpression() instanceof Column a) || !(eq.getRightExpression() instanceof Column b)) continue;
            for (var pair : List.of(List.of(a, b), List.of(b, a))) {
                Column mine = pair.get(0);
                Column theirs = pair.get(1);
                if (inner.sourceOf(mine) != s || !KeyFinder.unquote(mine.getColumnName()).equalsIgnoreCase(s.table().partitioning().column())) continue;
                // the other side must name an outer table: qualified by an outer name that no inner table answers to
                if (theirs.getTable() == null || theirs.getTable().getName() == null) continue;
                String q = KeyFinder.unquote(theirs.getTable().getName());
                if (inner.all().stream().anyMatch(x -> x.answersTo(q))) continue;
                if (outer.isRoutingColumn(theirs)) return true;
            }
        }
        return false;
    }

    private static void flatten(Expression e, List<Expression> out) {
        if (e == null) return;
        if (e instanceof AndExpression and) {
            flatten(and.getLeftExpression(), out);
            flatten(and.getRightExpression(), out);
        } else if (e instanceof Parenthesis p) {
            flatten(p.getExpression(), out);
        } else {
            out.add(e);
        }
    }
}
