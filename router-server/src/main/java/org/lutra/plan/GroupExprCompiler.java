package org.lutra.plan;

import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import org.lutra.merge.Expr;
import org.lutra.merge.SortKey;
import org.lutra.protocol.Value;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Compiles a HAVING condition or a select item over aggregates into an {@link Expr} the router
 * evaluates on merged groups: aggregates become (hidden) aggregate columns, names the select items
 * or group keys they stand for; anything else is refused.
 */
final class GroupExprCompiler {
    private final ShardColumns columns;
    private final PartialAggregates aggregates;
    private final ItemNames names;
    /** The statement's group keys as {@link ItemNames#group} resolved them, and the merge's key for each. */
    private final List<Expression> groupExpressions;
    private final List<SortKey> groupKeys;
    /**
     * HAVING, rather than a select item: the client's parameters may appear (the Filter binds them),
     * and names resolve as HAVING's do ({@link ItemNames#having}).
     */
    private final boolean having;
    /** The parameters compiled so far: compile visits an expression in text order. */
    private int params;

    GroupExprCompiler(ShardColumns columns, PartialAggregates aggregates, ItemNames names, List<Expression> groupExpressions,
                      List<SortKey> groupKeys, boolean having) {
        this.columns = columns;
        this.aggregates = aggregates;
        this.names = names;
        this.groupExpressions = groupExpressions;
        this.groupKeys = groupKeys;
        this.having = having;
    }

    int params() {
        return params;
    }

    Expr compile(Expression e) throws PlanException {
        return switch (e) {
            case JdbcParameter p when having -> new Expr.Param(params++, "?");
            case Parenthesis p -> compile(p.getExpression());
            case ParenthesedExpressionList<?> p when p.size() == 1 -> compile((Expression) p.getFirst());
            case LongValue l -> new Expr.Literal(Value.newBuilder().setIntValue(l.getValue()).build());
            case DoubleValue d -> new Expr.Literal(Value.newBuilder().setDecimalValue(new BigDecimal(d.toString()).toPlainString()).build());
            case NullValue n -> new Expr.Literal(null);
            case SignedExpression s when s.getSign() == '-' -> new Expr.Negate(compile(s.getExpression()));
            case SignedExpression s when s.getSign() == '+' -> compile(s.getExpression());
            case Addition a -> arith(Expr.ArithOp.ADD, a);
            case Subtraction a -> arith(Expr.ArithOp.SUBTRACT, a);
            case Multiplication a -> arith(Expr.ArithOp.MULTIPLY, a);
            case Division a -> arith(Expr.ArithOp.DIVIDE, a);
            case EqualsTo c -> compare(Expr.CmpOp.EQ, c);
            case NotEqualsTo c -> compare(Expr.CmpOp.NE, c);
            case MinorThan c -> compare(Expr.CmpOp.LT, c);
            case MinorThanEquals c -> compare(Expr.CmpOp.LE, c);
            case GreaterThan c -> compare(Expr.CmpOp.GT, c);
            case GreaterThanEquals c -> compare(Expr.CmpOp.GE, c);
            case AndExpression a -> new Expr.And(compile(a.getLeftExpression()), compile(a.getRightExpression()));
            case OrExpression o -> new Expr.Or(compile(o.getLeftExpression()), compile(o.getRightExpression()));
            case NotExpression n -> new Expr.Not(compile(n.getExpression()));
            case IsNullExpression n -> new Expr.IsNull(compile(n.getLeftExpression()), n.isNot());
            case Between b -> new Expr.Between(compile(b.getLeftExpression()), compile(b.getBetweenExpressionStart()),
                    compile(b.getBetweenExpressionEnd()), b.isNot());
            case InExpression in when in.getRightExpression() instanceof ExpressionList<?> list && in.getOldOracleJoinSyntax() == 0 -> {
                var items = new ArrayList<Expr>();
                for (Object x : list) items.add(compile((Expression) x));
                yield new Expr.In(compile(in.getLeftExpression()), items, in.isNot());
            }
            case Function f when AggregateFunctions.isAggregate(f) -> {
                if (ParamCounter.count(f.toString()) > 0) {
                    // the shards would compute it as a hidden select item: its '?' would move before WHERE's
                    throw PlanException.unsupported("parameters inside aggregates in HAVING or over aggregates over several partitions yet (" + f + ")");
                }
                if (f.getName().equalsIgnoreCase("AVG") && f.getParameters() != null && f.getParameters().size() == 1) {
                    // AVG's value inside an expression keeps the digits of MariaDB's SUM / COUNT (the same division),
                    // not the AVG as the client is shown it
                    yield new Expr.Arith(Expr.ArithOp.DIVIDE, aggregate(f, "SUM"), aggregate(f, "COUNT"));
                }
                int column = columns.find(f);
                yield new Expr.Col(column >= 0 ? column : aggregates.hidden(f), f.toString());
            }
            case Column c -> new Expr.Col(columnNamed(c), c.toString());
            default -> {
                // an item found among the select items is its shard column; one over aggregates (a function of them,
                // COALESCE(SUM(a), 0)) has no shard column to read: its item's place holds NULL, the router computes it
                int column = columns.find(e);
                if (column < 0 || AggregateFunctions.hasAggregate(e)) {
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
            int column = columns.find(c);
            if (column >= 0) return column;
            for (int i = 0; i < groupExpressions.size(); i++) {
                if (columns.same(groupExpressions.get(i), c)) return groupKeys.get(i).column();
            }
        }
        throw PlanException.unsupported("the column " + c + " in HAVING or over aggregates over several partitions yet");
    }

    /** {@code name}(x) for {@code AVG(x)} (DISTINCT as it is), as a hidden aggregate column. */
    private Expr aggregate(Function avg, String name) throws PlanException {
        var f = new Function().withName(name).withParameters(avg.getParameters()).withDistinct(avg.isDistinct());
        int column = columns.find(f);
        return new Expr.Col(column >= 0 ? column : aggregates.hidden(f), f.toString());
    }

    private Expr arith(Expr.ArithOp op, BinaryExpression b) throws PlanException {
        return new Expr.Arith(op, compile(b.getLeftExpression()), compile(b.getRightExpression()));
    }

    private Expr compare(Expr.CmpOp op, BinaryExpression b) throws PlanException {
        return new Expr.Compare(op, compile(b.getLeftExpression()), compile(b.getRightExpression()));
    }
}
