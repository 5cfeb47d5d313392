package org.lutra.plan;

import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeValue;
import net.sf.jsqlparser.expression.TimestampValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import org.lutra.catalog.Catalog;

import java.util.Locale;

/**
 * Whether a select item has one value on every row of a statement, on every partition: literals,
 * parameters, operators over them, and subqueries that read no outer column (over replicated
 * tables, whose copies agree). The shards need not sort by such an item to bring equal rows
 * together; and must not, where it is a subquery: MySQL evaluates a constant subquery named in
 * ORDER BY or GROUP BY even when no row matches (raising 1242 for one of several rows), a
 * select item's only for the rows it returns. Conservative: a function call, a variable or
 * anything not listed here counts as varying.
 */
final class Constants {
    private Constants() {}

    static boolean sameOnEveryRow(Expression e, Catalog catalog) {
        return switch (e) {
            case LongValue v -> true;
            case DoubleValue v -> true;
            case StringValue v -> true;
            case NullValue v -> true;
            case HexValue v -> true;
            case DateValue v -> true;
            case TimeValue v -> true;
            case TimestampValue v -> true;
            case JdbcParameter p -> true;
            case SignedExpression s -> sameOnEveryRow(s.getExpression(), catalog);
            case Parenthesis p -> sameOnEveryRow(p.getExpression(), catalog);
            case NotExpression n -> sameOnEveryRow(n.getExpression(), catalog);
            case IsNullExpression n -> sameOnEveryRow(n.getLeftExpression(), catalog);
            case CastExpression c -> sameOnEveryRow(c.getLeftExpression(), catalog);
            case BinaryExpression b -> sameOnEveryRow(b.getLeftExpression(), catalog) && sameOnEveryRow(b.getRightExpression(), catalog);
            case ParenthesedExpressionList<?> list when list.size() == 1 -> sameOnEveryRow((Expression) list.getFirst(), catalog);
            case CaseExpression c -> (c.getSwitchExpression() == null || sameOnEveryRow(c.getSwitchExpression(), catalog))
                    && (c.getElseExpression() == null || sameOnEveryRow(c.getElseExpression(), catalog))
                    && c.getWhenClauses().stream().allMatch(w -> sameOnEveryRow(w, catalog));
            case WhenClause w -> sameOnEveryRow(w.getWhenExpression(), catalog) && sameOnEveryRow(w.getThenExpression(), catalog);
            case ParenthesedSelect ps -> uncorrelated(ps.getSelect(), catalog);
            default -> false;
        };
    }

    private static boolean uncorrelated(Select s, Catalog catalog) {
        if (s instanceof SetOperationList union) return union.getSelects().stream().allMatch(b -> uncorrelated(b, catalog));
        if (s instanceof ParenthesedSelect ps) return uncorrelated(ps.getSelect(), catalog);
        if (!(s instanceof PlainSelect p)) return false;
        if (p.getFromItem() == null) {
            return p.getWhere() == null && p.getSelectItems().stream()
                    .allMatch(i -> i.getExpression() instanceof Expression x && sameOnEveryRow(x, catalog));
        }
        // nested subqueries could read the outermost row; non-deterministic functions differ between partitions
        if (p.toString().toUpperCase(Locale.ROOT).replaceFirst("^\\s*SELECT\\b", "").matches("(?s).*\\bSELECT\\b.*")) return false;
        return !callsFunctions(p) && !Correlation.correlated(p, catalog);
    }

    /** Whether {@code p} calls a function other than an aggregate (RAND(), NOW(), ...: not the same everywhere). */
    private static boolean callsFunctions(PlainSelect p) {
        boolean[] found = {false};
        var visitor = new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                if (!AggregateFunctions.isAggregate(f)) found[0] = true;
                return super.visit(f, context);
            }
        };
        for (var item : p.getSelectItems()) {
            if (item.getExpression() instanceof Expression x) x.accept(visitor, null);
        }
        if (p.getWhere() != null) p.getWhere().accept(visitor, null);
        if (p.getHaving() != null) p.getHaving().accept(visitor, null);
        if (p.getOrderByElements() != null) for (var o : p.getOrderByElements()) o.getExpression().accept(visitor, null);
        return found[0];
    }
}
