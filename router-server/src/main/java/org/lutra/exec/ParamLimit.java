package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * LIMIT whose offset or count are the client's parameters (ORMs bind page bounds: Hibernate sends
 * {@code LIMIT ?, ?}), applied once over the merged rows as {@link Limit} is. The values are read
 * at each execution; the operators below see the client's parameters without them, plus, when the
 * shards were given a LIMIT of their own ({@code LIMIT ?} in their SQL, at the end), offset + count
 * as its value. MySQL's rule for the values: non-negative integers.
 */
public final class ParamLimit implements Operator {
    /** A LIMIT bound: the literal {@code value}, or the client's parameter {@code param} (0-based) when that is >= 0. */
    public record Bound(long value, int param) {
        public static Bound literal(long value) {
            return new Bound(value, -1);
        }

        public static Bound param(int index) {
            return new Bound(0, index);
        }

        long resolve(List<Value> params) throws SQLException {
            if (param < 0) return value;
            Value v = params.get(param);
            long n;
            if (v.hasIntValue()) n = v.getIntValue();
            else if (v.hasDecimalValue() && v.getDecimalValue().matches("\\d{1,18}")) n = Long.parseLong(v.getDecimalValue());
            else if (v.hasBoolValue()) n = v.getBoolValue() ? 1 : 0;
            else throw new SQLException("Incorrect arguments to LIMIT (a parameter of LIMIT must be an integer)", "HY000", 1210);
            if (n < 0) throw new SQLException("Incorrect arguments to LIMIT (" + n + ")", "HY000", 1210);
            return n;
        }
    }

    private final Operator input;
    private final Bound offset;
    private final Bound count;
    private final boolean shardsLimited;

    /** Whether the SQL below ends in {@code LIMIT ?}: the shards' offset + count, a parameter this operator adds. */
    public enum ShardSql { ENDS_IN_LIMIT, UNLIMITED }

    public ParamLimit(Operator input, Bound offset, Bound count, ShardSql below) {
        this.input = input;
        this.offset = offset;
        this.count = count;
        this.shardsLimited = below == ShardSql.ENDS_IN_LIMIT;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        long skip = offset.resolve(ctx.params());
        long take = count.resolve(ctx.params());
        var below = new ArrayList<Value>(ctx.params().size());
        for (int i = 0; i < ctx.params().size(); i++) {
            if (i != offset.param() && i != count.param()) below.add(ctx.params().get(i));
        }
        if (shardsLimited) below.add(Value.newBuilder().setIntValue(skip > Long.MAX_VALUE - take ? Long.MAX_VALUE : skip + take).build());
        return new Limit.Limited(input.open(ctx.withParams(below)), skip, take);
    }

    @Override
    public String describe() {
        return "Limit " + (count.param() >= 0 ? "?" : count.value()) + " offset " + (offset.param() >= 0 ? "?" : offset.value());
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }
}
