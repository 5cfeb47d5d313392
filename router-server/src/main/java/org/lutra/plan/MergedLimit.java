package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.lutra.exec.Operator;
import org.lutra.exec.ParamLimit;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

/**
 * LIMIT over several partitions: the bounds the router applies once to the merged rows (literals
 * or the client's parameters), and the shards' own LIMIT where their rows are final (offset +
 * count each).
 */
final class MergedLimit {
    private MergedLimit() {}

    /**
     * {offset, count} of the LIMIT, or null. A bound may be one of the client's parameters (ORMs bind
     * page bounds): those are the statement's last parameters (LIMIT ends it, and parameters in ORDER BY and
     * GROUP BY are refused), in the order the text has them. Called while HAVING is still in the
     * statement: the bounds index the client's parameters, HAVING's included. Not applicable: a bound the merge does not
     * apply (OFFSET without LIMIT, an expression).
     */
    static Attempt<ParamLimit.Bound[]> of(PlainSelect select) {
        Limit l = select.getLimit();
        if (l == null && select.getOffset() == null) return Attempt.planned(null);
        if (l == null || l.getRowCount() == null || l.isLimitAll() || l.isLimitNull()) {
            return Attempt.notApplicable(PlanException.unsupported("OFFSET without LIMIT over several partitions yet"));
        }
        boolean offsetFirst = l.getOffset() != null; // LIMIT offset, count; else LIMIT count [OFFSET offset]
        Expression offsetExpression = l.getOffset() != null ? l.getOffset() : select.getOffset() != null ? select.getOffset().getOffset() : null;
        Expression countExpression = l.getRowCount();
        int params = ParamCounter.count(select.toString());
        int limitParams = (offsetExpression instanceof JdbcParameter ? 1 : 0) + (countExpression instanceof JdbcParameter ? 1 : 0);
        int next = params - limitParams;
        Expression first = offsetFirst ? offsetExpression : countExpression;
        Expression second = offsetFirst ? countExpression : offsetExpression;
        var firstBound = bound(first, first instanceof JdbcParameter ? next++ : -1);
        var secondBound = second == null ? ParamLimit.Bound.literal(0) : bound(second, second instanceof JdbcParameter ? next : -1);
        if (firstBound == null || secondBound == null) {
            return Attempt.notApplicable(PlanException.unsupported("LIMIT with expressions over several partitions yet (" + l + ")"));
        }
        return Attempt.planned(offsetFirst ? new ParamLimit.Bound[] {firstBound, secondBound} : new ParamLimit.Bound[] {secondBound, firstBound});
    }

    /** A literal bound or a parameter's; null for an expression. */
    private static ParamLimit.Bound bound(Expression e, int param) {
        if (e instanceof LongValue v) return ParamLimit.Bound.literal(v.getValue());
        if (e instanceof JdbcParameter) return ParamLimit.Bound.param(param);
        return null;
    }

    private static boolean literal(ParamLimit.Bound[] limit) {
        return limit[0].param() < 0 && limit[1].param() < 0;
    }

    /** The shards' own LIMIT: offset + count rows each, a literal or (with parameters) one of the router's. */
    static void widenOnShards(PlainSelect select, ParamLimit.Bound[] limit) {
        select.setLimit(new Limit().withRowCount(literal(limit) ? new LongValue(limit[0].value() + limit[1].value()) : new JdbcParameter()));
        select.setOffset(null);
    }

    static Operator apply(Operator root, ParamLimit.Bound[] limit, boolean shardsLimited) {
        if (limit == null) return root;
        if (literal(limit)) return new org.lutra.exec.Limit(root, limit[0].value(), limit[1].value());
        return new ParamLimit(root, limit[0], limit[1], shardsLimited ? ParamLimit.ShardSql.ENDS_IN_LIMIT : ParamLimit.ShardSql.UNLIMITED);
    }

    /** The '?' of the statement's LIMIT and OFFSET. */
    static int params(PlainSelect select) {
        return (select.getLimit() == null ? 0 : ParamCounter.count(select.getLimit().toString()))
                + (select.getOffset() == null ? 0 : ParamCounter.count(select.getOffset().toString()));
    }
}
