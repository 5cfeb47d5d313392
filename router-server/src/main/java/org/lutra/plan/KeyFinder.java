package org.lutra.plan;

import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.expression.Parenthesis;

import org.lutra.sql.KeyMatch;
import org.lutra.sql.SqlTemplate;
import org.lutra.sql.ValueRef;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds what a WHERE clause pins the routing column to. Only top-level AND conjuncts count: under
 * an OR or a NOT the column may take other values, so such statements broadcast.
 */
final class KeyFinder {
    private static final String IN_MARKER = "__LUTRA_IN_LIST__";

    private final String column;
    private final String tableName;
    private final String alias;

    KeyFinder(String column, String tableName, String alias) {
        this.column = column;
        this.tableName = tableName;
        this.alias = alias;
    }

    /** The key match, or null if the statement must broadcast. May build an IN template from {@code statement}. */
    KeyMatch find(Expression where, Statement statement) {
        if (where == null) return null;
        var conjuncts = new ArrayList<Expression>();
        flatten(where, conjuncts);
        for (var e : conjuncts) {
            if (e instanceof EqualsTo eq) {
                ValueRef v = isRoutingColumn(eq.getLeftExpression()) ? valueRef(eq.getRightExpression())
                        : isRoutingColumn(eq.getRightExpression()) ? valueRef(eq.getLeftExpression()) : null;
                if (v != null) return new KeyMatch.Equals(v);
            }
        }
        for (var e : conjuncts) {
            if (e instanceof InExpression in && !in.isNot() && isRoutingColumn(in.getLeftExpression())
                    && in.getRightExpression() instanceof ExpressionList<?> list) {
                var refs = new ArrayList<ValueRef>();
                for (Object item : list) {
                    ValueRef v = item instanceof Expression x ? valueRef(x) : null;
                    if (v == null) return null;
                    refs.add(v);
                }
                return new KeyMatch.In(refs, statement == null ? null : template(in, list, statement));
            }
        }
        return range(conjuncts);
    }

    /** The first lower and the first upper bound the conjuncts put on the routing column, or null. */
    private KeyMatch range(List<Expression> conjuncts) {
        ValueRef low = null, high = null;
        boolean lowInclusive = false, highInclusive = false;
        for (var e : conjuncts) {
            if (e instanceof Between b && !b.isNot() && isRoutingColumn(b.getLeftExpression())) {
                ValueRef l = valueRef(b.getBetweenExpressionStart());
                ValueRef h = valueRef(b.getBetweenExpressionEnd());
                if (low == null && l != null) { low = l; lowInclusive = true; }
                if (high == null && h != null) { high = h; highInclusive = true; }
            } else if (e instanceof ComparisonOperator c && !(e instanceof EqualsTo) && !(e instanceof NotEqualsTo)) {
                boolean columnLeft = isRoutingColumn(c.getLeftExpression());
                boolean columnRight = isRoutingColumn(c.getRightExpression());
                if (columnLeft == columnRight) continue;
                ValueRef v = valueRef(columnLeft ? c.getRightExpression() : c.getLeftExpression());
                if (v == null) continue;
                // normalize to "column OP value"
                boolean greater = (c instanceof GreaterThan || c instanceof GreaterThanEquals) == columnLeft;
                boolean inclusive = c instanceof GreaterThanEquals || c instanceof MinorThanEquals;
                if (greater && low == null) { low = v; lowInclusive = inclusive; }
                if (!greater && high == null) { high = v; highInclusive = inclusive; }
            }
        }
        return low == null && high == null ? null : new KeyMatch.Range(low, lowInclusive, high, highInclusive);
    }

    private static void flatten(Expression e, List<Expression> out) {
        if (e instanceof AndExpression and) {
            flatten(and.getLeftExpression(), out);
            flatten(and.getRightExpression(), out);
        } else if (e instanceof Parenthesis p) {
            flatten(p.getExpression(), out);
        } else if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1 && p.getFirst() instanceof Expression inner) {
            flatten(inner, out);
        } else {
            out.add(e);
        }
    }

    private boolean isRoutingColumn(Expression e) {
        if (!(e instanceof Column c) || !unquote(c.getColumnName()).equalsIgnoreCase(column)) return false;
        if (c.getTable() == null || c.getTable().getName() == null) return true;
        String qualifier = unquote(c.getTable().getName());
        return qualifier.equalsIgnoreCase(tableName) || alias != null && qualifier.equalsIgnoreCase(alias);
    }

    /**
     * A literal or parameter as a ValueRef; null for anything the router cannot evaluate. A number keeps MySQL's kind of
     * literal, which decides how a column stores it ({@code org.lutra.catalog.StoredValue}): an integer is a Long (or an
     * exact decimal beyond a long), {@code 12.6} an exact decimal, {@code 1.5e1} a double.
     */
    static ValueRef valueRef(Expression e) {
        return switch (e) {
            case JdbcParameter p -> new ValueRef.Param(p.getIndex() - 1);
            case LongValue l -> new ValueRef.Literal(integer(l.getStringValue()));
            case DoubleValue d -> new ValueRef.Literal(d.toString().matches("(?s).*[eE].*") ? (Object) Double.parseDouble(d.toString())
                    : new BigDecimal(d.toString()));
            case StringValue s when s.getPrefix() == null -> new ValueRef.Literal(Literals.unescape(s.getValue(), '\''));
            case NullValue n -> new ValueRef.Literal(null);
            case SignedExpression s when s.getSign() == '-' && valueRef(s.getExpression()) instanceof ValueRef.Literal(Object v)
                    && negated(v) != null -> new ValueRef.Literal(negated(v));
            case SignedExpression s when s.getSign() == '+' -> valueRef(s.getExpression());
            default -> null;
        };
    }

    private static Object integer(String digits) {
        BigDecimal exact = new BigDecimal(digits);
        return exact.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0 ? (Object) exact.longValueExact() : exact;
    }

    /** {@code -v} for a number literal, null for anything else; -9223372036854775808 becomes the long it is. */
    private static Object negated(Object v) {
        return switch (v) {
            case Long l -> -l;
            case BigDecimal d -> d.negate().compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) == 0 ? (Object) Long.MIN_VALUE : d.negate();
            case Double d -> -d;
            case null, default -> null;
        };
    }

    /** Cuts the statement's text around the IN list, so each partition can get its own items. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static SqlTemplate template(InExpression in, ExpressionList<?> list, Statement statement) {
        Expression original = in.getRightExpression();
        in.setRightExpression(new ParenthesedExpressionList<>(new Column(IN_MARKER)));
        String text = statement.toString();
        in.setRightExpression(original);
        String marker = "(" + IN_MARKER + ")";
        int at = text.indexOf(marker);
        var items = new ArrayList<String>();
        for (Object item : (List) list) items.add(item.toString());
        return new SqlTemplate(text.substring(0, at + 1), items, ", ", text.substring(at + marker.length() - 1));
    }

    static String unquote(String name) {
        return name.replace("`", "").replace("\"", "");
    }
}
