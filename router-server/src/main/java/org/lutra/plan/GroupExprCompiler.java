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
import java.util.function.BinaryOperator;

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

    /**
     * {@code e} as the router evaluates it on merged groups; not applicable: a construct the router does not evaluate (the
     * first one met, in text order: its refusal), or a name that is the statement's error (ambiguous).
     */
    Attempt<Expr> compile(Expression e) {
        return switch (e) {
            case JdbcParameter p when having -> Attempt.planned(new Expr.Param(params++, "?"));
            case Parenthesis p -> compile(p.getExpression());
            case ParenthesedExpressionList<?> p when p.size() == 1 -> compile((Expression) p.getFirst());
            case LongValue l -> Attempt.planned(new Expr.Literal(Value.newBuilder().setIntValue(l.getValue()).build()));
            case DoubleValue d -> Attempt.planned(new Expr.Literal(Value.newBuilder().setDecimalValue(new BigDecimal(d.toString()).toPlainString()).build()));
            case NullValue n -> Attempt.planned(new Expr.Literal(null));
            case SignedExpression s when s.getSign() == '-' -> compile(s.getExpression()).map(Expr.Negate::new);
            case SignedExpression s when s.getSign() == '+' -> compile(s.getExpression());
            case Addition a -> both(a, (l, r) -> new Expr.Arith(Expr.ArithOp.ADD, l, r));
            case Subtraction a -> both(a, (l, r) -> new Expr.Arith(Expr.ArithOp.SUBTRACT, l, r));
            case Multiplication a -> both(a, (l, r) -> new Expr.Arith(Expr.ArithOp.MULTIPLY, l, r));
            case Division a -> both(a, (l, r) -> new Expr.Arith(Expr.ArithOp.DIVIDE, l, r));
            case EqualsTo c -> both(c, (l, r) -> new Expr.Compare(Expr.CmpOp.EQ, l, r));
            case NotEqualsTo c -> both(c, (l, r) -> new Expr.Compare(Expr.CmpOp.NE, l, r));
            case MinorThan c -> both(c, (l, r) -> new Expr.Compare(Expr.CmpOp.LT, l, r));
            case MinorThanEquals c -> both(c, (l, r) -> new Expr.Compare(Expr.CmpOp.LE, l, r));
            case GreaterThan c -> both(c, (l, r) -> new Expr.Compare(Expr.CmpOp.GT, l, r));
            case GreaterThanEquals c -> both(c, (l, r) -> new Expr.Compare(Expr.CmpOp.GE, l, r));
            case AndExpression a -> both(a, Expr.And::new);
            case OrExpression o -> both(o, Expr.Or::new);
            case NotExpression n -> compile(n.getExpression()).map(Expr.Not::new);
            case IsNullExpression n -> compile(n.getLeftExpression()).map(x -> new Expr.IsNull(x, n.isNot()));
            case Between b -> compile(b.getLeftExpression()).then(x -> compile(b.getBetweenExpressionStart()).then(low ->
                    compile(b.getBetweenExpressionEnd()).map(high -> new Expr.Between(x, low, high, b.isNot()))));
            // the value before the list, as the text has them: HAVING's '?' are numbered in the order compiled
            case InExpression in when in.getRightExpression() instanceof ExpressionList<?> list && in.getOldOracleJoinSyntax() == 0 ->
                    compile(in.getLeftExpression()).then(x -> all(list).map(items -> new Expr.In(x, items, in.isNot())));
            case Function f when AggregateFunctions.isAggregate(f) -> {
                if (ParamCounter.count(f.toString()) > 0) {
                    // the shards would compute it as a hidden select item: its '?' would move before WHERE's
                    yield Attempt.notApplicable(PlanException.unsupported("parameters inside aggregates in HAVING or over aggregates over several partitions yet (" + f + ")"));
                }
                if (java.util.Set.of("MIN", "MAX", "SUM", "AVG").contains(f.getName().toUpperCase(java.util.Locale.ROOT)) && f.getParameters() != null
                        && PartialAggregates.carriesHiddenDigits(f.getParameters())) {
                    // MariaDB computes on with the aggregate's hidden digits (MAX(1 / a) / SUM(a) divides 0.111111111;
                    // -70 + AVG(b / -90) adds SUM(b / -90)'s nine decimals / COUNT), the shards and the merged sum show
                    // them rounded to the scale (0.1111)
                    yield Attempt.notApplicable(PlanException.unsupported("MIN, MAX, SUM or AVG of a division inside an expression or HAVING"
                            + " over several partitions yet (" + f + ")"));
                }
                if (f.getName().equalsIgnoreCase("AVG") && f.getParameters() != null && f.getParameters().size() == 1) {
                    // AVG's value inside an expression keeps the digits of MariaDB's SUM / COUNT (the same division),
                    // not the AVG as the client is shown it
                    yield aggregate(f, "SUM").then(sum -> aggregate(f, "COUNT").map(count -> new Expr.Arith(Expr.ArithOp.DIVIDE, sum, count)));
                }
                int column = columns.find(f);
                boolean unsigned = f.getName().toUpperCase(java.util.Locale.ROOT).startsWith("BIT_"); // BIT_OR, BIT_AND, BIT_XOR: BIGINT UNSIGNED
                yield (column >= 0 ? Attempt.planned(column) : aggregates.hidden(f)).map(c -> new Expr.Col(c, f.toString(), unsigned));
            }
            case Column c -> columnNamed(c).map(column -> new Expr.Col(column, c.toString()));
            default -> {
                // an item found among the select items is its shard column; one over aggregates (a function of them,
                // COALESCE(SUM(a), 0)) has no shard column to read: its item's place holds NULL, the router computes it
                int column = columns.find(e);
                if (having && column >= 0) {
                    // MySQL matches no expression in HAVING with a select item: each column in it must name a select item
                    // or a GROUP BY column on its own (`SELECT a % b ... HAVING a % b > 0` is 1054)
                    for (Column c : AggregateFunctions.columnsOutsideAggregates(e)) {
                        var named = columnNamed(c);
                        if (!(named instanceof Attempt.Planned<Integer>)) yield named.passUp();
                    }
                }
                if (column < 0 || AggregateFunctions.hasAggregate(e)) {
                    yield Attempt.notApplicable(PlanException.unsupported("the expression " + e + " in HAVING or over aggregates over several partitions yet"));
                }
                yield Attempt.planned(new Expr.Col(column, e.toString()));
            }
        };
    }

    /**
     * The column a name outside aggregates reads: in HAVING, the select item or GROUP BY key it
     * stands for ({@link ItemNames#having}); in a select item, the same column of the FROM tables
     * as a select item or a group key. Not applicable: a name that is neither (refused), or ambiguous (the statement's error).
     */
    private Attempt<Integer> columnNamed(Column c) {
        if (having) {
            var named = names.having(c, groupExpressions);
            if (!(named instanceof Attempt.Planned<ItemNames.Resolved>(ItemNames.Resolved r))) return named.passUp();
            if (r != null && r.item() >= 0) return Attempt.planned(r.item());
            if (r != null) return Attempt.planned(groupKeys.get(groupExpressions.indexOf(r.expression())).column());
        } else {
            int column = columns.find(c);
            if (column >= 0) return Attempt.planned(column);
            for (int i = 0; i < groupExpressions.size(); i++) {
                if (columns.same(groupExpressions.get(i), c)) return Attempt.planned(groupKeys.get(i).column());
            }
        }
        return Attempt.notApplicable(PlanException.unsupported("the column " + c + " in HAVING or over aggregates over several partitions yet"));
    }

    /** {@code name}(x) for {@code AVG(x)} (DISTINCT as it is), as a hidden aggregate column. */
    private Attempt<Expr> aggregate(Function avg, String name) {
        var f = new Function().withName(name).withParameters(avg.getParameters()).withDistinct(avg.isDistinct());
        int column = columns.find(f);
        return (column >= 0 ? Attempt.planned(column) : aggregates.hidden(f)).map(c -> new Expr.Col(c, f.toString()));
    }

    /** Both sides of {@code b} compiled, left first (the right one is not tried where the left does not apply), made one. */
    private Attempt<Expr> both(BinaryExpression b, BinaryOperator<Expr> make) {
        return compile(b.getLeftExpression()).then(left -> compile(b.getRightExpression()).map(right -> make.apply(left, right)));
    }

    /** Every item compiled in order, up to the first that does not apply. */
    private Attempt<List<Expr>> all(ExpressionList<?> list) {
        var items = new ArrayList<Expr>();
        for (Object x : list) {
            var item = compile((Expression) x);
            if (!(item instanceof Attempt.Planned<Expr>(Expr compiled))) return item.passUp();
            items.add(compiled);
        }
        return Attempt.planned(items);
    }
}
