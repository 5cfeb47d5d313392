package org.lutra.exec;

import org.lutra.exec.Aggregate.Aggregation;
import org.lutra.exec.Aggregate.Kind;
import org.lutra.merge.RowOrder;
import org.lutra.merge.SortKey;
import org.lutra.merge.Values;
import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;
import java.util.List;

/**
 * One group of {@link Aggregate} being combined: each aggregate's partials added as the group's rows arrive, then the
 * group's output row (the input's layout, each aggregate's column holding its final value).
 */
final class AggregateGroup {
    static final Value NULL = Value.newBuilder().setIsNull(true).build();

    private final List<Aggregation> aggregations;
    private final List<Column> columns;
    /** The order of the DISTINCT aggregates' argument, or null. */
    private final RowOrder distinct;
    private final SortKey distinctKey;
    private final int rowCount;
    private Row first;
    private final Value[] acc;
    private final long[] counts;
    private final Row[] best; // MIN/MAX: the row holding the current extreme
    private final ExactSum[] exact;
    private final java.io.ByteArrayOutputStream[] pieces;
    private final boolean[] binary;
    private final long[] limits;
    private Row lastDistinct;

    AggregateGroup(Row first, List<Aggregation> aggregations, List<Column> columns, RowOrder distinct, SortKey distinctKey, int rowCount) {
        this.aggregations = aggregations;
        this.columns = columns;
        this.distinct = distinct;
        this.distinctKey = distinctKey;
        this.rowCount = rowCount;
        this.first = first;
        this.acc = new Value[aggregations.size()];
        this.counts = new long[aggregations.size()];
        this.best = new Row[aggregations.size()];
        this.exact = new ExactSum[aggregations.size()];
        this.pieces = new java.io.ByteArrayOutputStream[aggregations.size()];
        this.binary = new boolean[aggregations.size()];
        this.limits = new long[aggregations.size()];
        add(first);
    }

    /** The row the group's columns that are no aggregate come from. */
    Row first() {
        return first;
    }

    void add(Row row) {
        if (rowCount >= 0 && first.getValues(rowCount).getIntValue() == 0 && row.getValues(rowCount).getIntValue() > 0) first = row;
        boolean newDistinct = distinct != null && !Values.isNull(row.getValues(distinctKey.column()))
                && (lastDistinct == null || !distinct.same(lastDistinct, row));
        if (newDistinct) lastDistinct = row;
        for (int i = 0; i < acc.length; i++) {
            var a = aggregations.get(i);
            Value v = row.getValues(a.column());
            if (a.exact() >= 0) {
                if (exact[i] == null) exact[i] = new ExactSum();
                exact[i].add(v, row.getValues(a.exact()));
            }
            switch (a.kind()) {
                case COUNT -> counts[i] += v.getIntValue();
                case SUM -> acc[i] = plus(acc[i], v);
                case AVG -> {
                    acc[i] = plus(acc[i], v);
                    counts[i] += row.getValues(a.countColumn()).getIntValue();
                }
                case MIN, MAX -> {
                    if (Values.isNull(v)) break;
                    int w = a.weight() >= 0 ? a.weight() : a.column();
                    if (acc[i] == null) {
                        acc[i] = v;
                        best[i] = row;
                    } else {
                        int c = Values.compare(row.getValues(w), best[i].getValues(w));
                        if (a.kind() == Kind.MIN ? c < 0 : c > 0) {
                            acc[i] = v;
                            best[i] = row;
                        }
                    }
                }
                case COUNT_DISTINCT -> { if (newDistinct) counts[i]++; }
                case SUM_DISTINCT -> { if (newDistinct) acc[i] = plus(acc[i], v); }
                case AVG_DISTINCT -> {
                    if (newDistinct) {
                        acc[i] = plus(acc[i], v);
                        counts[i]++;
                    }
                }
                case BIT_AND -> acc[i] = bits(acc[i], v, (x, y) -> x & y);
                case BIT_OR -> acc[i] = bits(acc[i], v, (x, y) -> x | y);
                case BIT_XOR -> acc[i] = bits(acc[i], v, (x, y) -> x ^ y);
                case GROUP_CONCAT -> {
                    if (Values.isNull(v)) break;
                    if (pieces[i] == null) pieces[i] = new java.io.ByteArrayOutputStream();
                    else pieces[i].writeBytes(a.separator().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    pieces[i].writeBytes(v.getKindCase() == Value.KindCase.BYTES_VALUE ? v.getBytesValue().toByteArray()
                            : v.getStringValue().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    binary[i] |= v.getKindCase() == Value.KindCase.BYTES_VALUE;
                    limits[i] = row.getValues(a.countColumn()).getIntValue();
                }
            }
        }
    }


    Row finish() throws SQLException {
        var out = Row.newBuilder(first);
        for (int i = 0; i < acc.length; i++) {
            var a = aggregations.get(i);
            if (a.kind() == Kind.GROUP_CONCAT) {
                out.setValues(a.column(), concatenated(i));
                continue;
            }
            Value v = switch (a.kind()) {
                case COUNT, COUNT_DISTINCT -> Value.newBuilder().setIntValue(counts[i]).build();
                case AVG -> average(exact[i] == null || exact[i].exact() == null || acc[i] == null ? acc[i]
                        : Value.newBuilder().setDecimalValue(exact[i].exact().toPlainString()).build(), counts[i], columns.get(a.column()));
                case AVG_DISTINCT -> average(acc[i], counts[i], columns.get(a.column()));
                case SUM -> acc[i] == null ? NULL : exact[i] == null ? acc[i] : exact[i].rounded(acc[i], columns.get(a.column()).getScale());
                case SUM_DISTINCT -> acc[i] == null ? NULL : decimal(acc[i]); // of integers: MariaDB's DECIMAL
                default -> acc[i] == null ? NULL : acc[i];
            };
            out.setValues(a.column(), v);
            if ((a.kind() == Kind.MIN || a.kind() == Kind.MAX) && a.weight() >= 0) {
                out.setValues(a.weight(), best[i] == null ? NULL : best[i].getValues(a.weight()));
            }
        }
        return out.build();
    }

    private Value concatenated(int i) throws SQLException {
        if (pieces[i] == null) return NULL;
        byte[] bytes = pieces[i].toByteArray();
        if (bytes.length >= limits[i]) {
            throw Refusal.of("Lutra does not support a GROUP_CONCAT result of group_concat_max_len (" + limits[i]
                    + ") bytes or more over several partitions yet: MySQL would cut it");
        }
        return binary[i] ? Value.newBuilder().setBytesValue(com.google.protobuf.ByteString.copyFrom(bytes)).build()
                : Value.newBuilder().setStringValue(new String(bytes, java.nio.charset.StandardCharsets.UTF_8)).build();
    }

    /** SUM's addition: exact for integers and decimals, double arithmetic once a double is involved. */
    static Value plus(Value acc, Value v) {
        if (Values.isNull(v)) return acc;
        if (acc == null || Values.isNull(acc)) return v;
        boolean approximate = acc.getKindCase() == Value.KindCase.DOUBLE_VALUE || v.getKindCase() == Value.KindCase.DOUBLE_VALUE
                || acc.getKindCase() == Value.KindCase.FLOAT_VALUE || v.getKindCase() == Value.KindCase.FLOAT_VALUE;
        if (approximate) {
            return Value.newBuilder().setDoubleValue(Values.decimal(acc).doubleValue() + Values.decimal(v).doubleValue()).build();
        }
        if (acc.getKindCase() == Value.KindCase.INT_VALUE && v.getKindCase() == Value.KindCase.INT_VALUE) {
            try {
                return Value.newBuilder().setIntValue(Math.addExact(acc.getIntValue(), v.getIntValue())).build();
            } catch (ArithmeticException overflow) {
                // fall through to decimal
            }
        }
        return Value.newBuilder().setDecimalValue(Values.decimal(acc).add(Values.decimal(v)).toPlainString()).build();
    }

    /**
     * A sum of integers as MariaDB's SUM gives it: a DECIMAL (the shards' SUM is one; a DISTINCT sum adds the argument's own
     * integers), which arithmetic over it keeps (SUM(DISTINCT 1) - BIT_AND(-95) is a negative decimal, no BIGINT UNSIGNED 1690).
     */
    private static Value decimal(Value sum) {
        return sum.getKindCase() == Value.KindCase.INT_VALUE ? Value.newBuilder().setDecimalValue(Long.toString(sum.getIntValue())).build() : sum;
    }

    private interface LongOp {
        long apply(long x, long y);
    }

    /** BIT_AND/OR/XOR partials are BIGINT UNSIGNED: combined as 64-bit patterns, sent as the shards send them. */
    private static Value bits(Value acc, Value v, LongOp op) {
        if (acc == null) return v;
        long r = op.apply(Values.decimal(acc).toBigInteger().longValue(), Values.decimal(v).toBigInteger().longValue());
        return r >= 0 ? Value.newBuilder().setIntValue(r).build()
                : Value.newBuilder().setDecimalValue(Long.toUnsignedString(r)).build();
    }

    /** MySQL's AVG: exact sum / count with the argument's scale plus div_precision_increment (4) digits, or double division. */
    static Value average(Value sum, long count, Column column) {
        if (sum == null || Values.isNull(sum) || count == 0) return NULL;
        if (sum.getKindCase() == Value.KindCase.DOUBLE_VALUE || sum.getKindCase() == Value.KindCase.FLOAT_VALUE) {
            return Value.newBuilder().setDoubleValue(Values.decimal(sum).doubleValue() / count).build();
        }
        int scale = Math.max(column.getScale(), 4);
        return Value.newBuilder().setDecimalValue(Values.decimal(sum).divide(BigDecimal.valueOf(count), scale, RoundingMode.HALF_UP).toPlainString()).build();
    }
}
