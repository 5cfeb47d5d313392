package org.lutra.merge;

import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;
import java.util.List;

/**
 * The few expressions the router evaluates itself, over rows it computed (aggregated groups):
 * HAVING conditions and select items built from aggregates, such as {@code COUNT(*) > 2} or
 * {@code SUM(x) / COUNT(*)}. Arithmetic follows MariaDB: exact for integers and decimals, a value
 * keeping the digits MariaDB keeps inside an expression ({@link MariaDbDecimals}: a quotient is cut after
 * whole nine-digit words), which {@link #decimals} rounds to for the client; double once a double is
 * involved, NULL in, NULL out; comparisons and logic use SQL's three-valued logic. Text values
 * are refused: comparing them needs the column's collation, which only the shards know.
 */
public sealed interface Expr {
    /** The value, or null for SQL NULL (booleans are 1 / 0 as in MySQL). */
    Value eval(Row row) throws SQLException;

    /**
     * Column {@code index} of the merged row; {@code unsigned}: a BIGINT UNSIGNED value (BIT_OR, BIT_AND, BIT_XOR), which
     * makes integer arithmetic with it unsigned, as in MariaDB.
     */
    record Col(int index, String text, boolean unsigned) implements Expr {
        public Col(int index, String text) {
            this(index, text, false);
        }

        @Override
        public Value eval(Row row) throws SQLException {
            Value v = row.getValues(index);
            if (Values.isNull(v)) return null;
            if (!Values.isNumber(v)) {
                throw Refusal.of("Lutra does not support comparing or computing the non-numeric value of " + text
                        + " after merging partitions yet");
            }
            return v;
        }
    }

    record Literal(Value value) implements Expr {
        @Override
        public Value eval(Row row) {
            return value;
        }
    }

    enum ArithOp { ADD, SUBTRACT, MULTIPLY, DIVIDE }

    /**
     * MariaDB's integer arithmetic ({@code +}, {@code -}, {@code *} of two integers) is exact and range-checked: unsigned where
     * either operand is BIGINT UNSIGNED (a result below 0 or above 2^64 - 1 is 1690), else signed BIGINT (outside
     * -2^63 .. 2^63 - 1 is 1690); a decimal or double operand makes it decimal or double arithmetic, unchecked.
     */
    record Arith(ArithOp op, Expr left, Expr right) implements Expr {
        private static final BigDecimal UNSIGNED_MAX = new BigDecimal(java.math.BigInteger.TWO.pow(64).subtract(java.math.BigInteger.ONE));

        @Override
        public Value eval(Row row) throws SQLException {
            Value va = left.eval(row);
            Value vb = right.eval(row);
            if (va == null || vb == null) return null;
            if (approximate(va) || approximate(vb)) {
                double x = Values.decimal(va).doubleValue();
                double y = Values.decimal(vb).doubleValue();
                double r = switch (op) {
                    case ADD -> x + y;
                    case SUBTRACT -> x - y;
                    case MULTIPLY -> x * y;
                    case DIVIDE -> y == 0 ? Double.NaN : x / y;
                };
                return Double.isNaN(r) ? null : Value.newBuilder().setDoubleValue(r).build();
            }
            BigDecimal a = Values.decimal(va);
            BigDecimal b = Values.decimal(vb);
            BigDecimal r = switch (op) {
                case ADD -> a.add(b);
                case SUBTRACT -> a.subtract(b);
                case MULTIPLY -> MariaDbDecimals.multiply(a, b);
                case DIVIDE -> b.signum() == 0 ? null : MariaDbDecimals.divide(a, b);
            };
            if (r == null) return null;
            boolean integers = op != ArithOp.DIVIDE && integer(left, va) && integer(right, vb);
            if (integers) {
                if (unsigned(left) || unsigned(right)) {
                    if (r.signum() < 0 || r.compareTo(UNSIGNED_MAX) > 0) throw outOfRange("BIGINT UNSIGNED", this);
                } else if (r.toBigInteger().bitLength() >= 64) {
                    throw outOfRange("BIGINT", this);
                }
                if (r.toBigInteger().bitLength() < 64) return Value.newBuilder().setIntValue(r.longValueExact()).build();
            }
            return Value.newBuilder().setDecimalValue(r.toPlainString()).build();
        }

        /**
         * Whether {@code v}, the value of {@code e}, is an integer's: an integer value, or an unsigned one past BIGINT's range
         * (integers within it are integer values, so a decimal there is decimal arithmetic's: SUM(DISTINCT a) - BIT_OR(b) is -20).
         */
        private static boolean integer(Expr e, Value v) {
            return v.getKindCase() == Value.KindCase.INT_VALUE
                    || unsigned(e) && v.getKindCase() == Value.KindCase.DECIMAL_VALUE && v.getDecimalValue().indexOf('.') < 0
                    && new java.math.BigInteger(v.getDecimalValue()).compareTo(java.math.BigInteger.valueOf(Long.MAX_VALUE)) > 0;
        }

        private static boolean approximate(Value v) {
            return v.getKindCase() == Value.KindCase.DOUBLE_VALUE || v.getKindCase() == Value.KindCase.FLOAT_VALUE;
        }
    }

    enum CmpOp { EQ, NE, LT, LE, GT, GE }

    record Compare(CmpOp op, Expr left, Expr right) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value a = left.eval(row);
            Value b = right.eval(row);
            if (a == null || b == null) return null;
            int c = Values.decimal(a).compareTo(Values.decimal(b));
            boolean r = switch (op) {
                case EQ -> c == 0;
                case NE -> c != 0;
                case LT -> c < 0;
                case LE -> c <= 0;
                case GT -> c > 0;
                case GE -> c >= 0;
            };
            return bool(r);
        }
    }

    record And(Expr left, Expr right) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value a = left.eval(row);
            if (a != null && !truth(a)) return bool(false);
            Value b = right.eval(row);
            if (b != null && !truth(b)) return bool(false);
            return a == null || b == null ? null : bool(true);
        }
    }

    record Or(Expr left, Expr right) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value a = left.eval(row);
            if (a != null && truth(a)) return bool(true);
            Value b = right.eval(row);
            if (b != null && truth(b)) return bool(true);
            return a == null || b == null ? null : bool(false);
        }
    }

    record Not(Expr inner) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value a = inner.eval(row);
            return a == null ? null : bool(!truth(a));
        }
    }

    /** {@code -x}; of an unsigned integer, a signed BIGINT (past -2^63 is 1690, as in MariaDB). */
    record Negate(Expr inner) implements Expr {
        private static final BigDecimal SIGNED_MIN = BigDecimal.valueOf(Long.MIN_VALUE);

        @Override
        public Value eval(Row row) throws SQLException {
            Value a = inner.eval(row);
            if (a == null) return null;
            if (unsigned(inner) && (a.getKindCase() == Value.KindCase.INT_VALUE
                    || a.getKindCase() == Value.KindCase.DECIMAL_VALUE && a.getDecimalValue().indexOf('.') < 0)) {
                BigDecimal negated = Values.decimal(a).negate();
                if (negated.compareTo(SIGNED_MIN) < 0) throw outOfRange("BIGINT", this);
                return Value.newBuilder().setIntValue(negated.longValueExact()).build();
            }
            return switch (a.getKindCase()) {
                case INT_VALUE -> a.getIntValue() == Long.MIN_VALUE ? Value.newBuilder().setDecimalValue(Values.decimal(a).negate().toPlainString()).build()
                        : Value.newBuilder().setIntValue(-a.getIntValue()).build();
                case DOUBLE_VALUE -> Value.newBuilder().setDoubleValue(-a.getDoubleValue()).build();
                case FLOAT_VALUE -> Value.newBuilder().setDoubleValue(-(double) a.getFloatValue()).build();
                default -> Value.newBuilder().setDecimalValue(Values.decimal(a).negate().toPlainString()).build();
            };
        }
    }

    record IsNull(Expr inner, boolean not) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            return bool((inner.eval(row) == null) != not);
        }
    }

    record Between(Expr value, Expr low, Expr high, boolean not) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value r = new And(new Compare(CmpOp.GE, value, low), new Compare(CmpOp.LE, value, high)).eval(row);
            return not && r != null ? bool(!truth(r)) : r;
        }
    }

    record In(Expr value, List<Expr> items, boolean not) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value v = value.eval(row);
            if (v == null) return null;
            boolean sawNull = false;
            for (Expr e : items) {
                Value x = e.eval(row);
                if (x == null) sawNull = true;
                else if (Values.decimal(x).compareTo(Values.decimal(v)) == 0) return bool(!not);
            }
            return sawNull ? null : bool(not);
        }
    }

    /**
     * The client's parameter {@code index} (0-based among those of the expression, in text order): ORMs bind
     * the constants of a HAVING clause (Criteria's {@code cb.gt(cb.count(e), 2L)} becomes {@code HAVING count(*) > ?}).
     * Evaluated only once {@link #bind bound} to an execution's values.
     */
    record Param(int index, String text) implements Expr {
        @Override
        public Value eval(Row row) {
            throw new IllegalStateException("parameter " + index + " of " + text + " evaluated unbound");
        }
    }

    /** {@code e} with its {@link Param}s replaced by {@code params}' values (numbers or NULL: a text value is refused, as a text column is). */
    static Expr bind(Expr e, List<Value> params) throws SQLException {
        return switch (e) {
            case Param p -> {
                Value v = params.get(p.index());
                if (Values.isNull(v)) yield new Literal(null);
                if (!Values.isNumber(v)) {
                    throw Refusal.of("Lutra does not support comparing the non-numeric parameter " + p.text()
                            + " with a value computed after merging partitions yet");
                }
                yield new Literal(v);
            }
            case Col c -> c;
            case Literal l -> l;
            case Arith a -> new Arith(a.op(), bind(a.left(), params), bind(a.right(), params));
            case Compare c -> new Compare(c.op(), bind(c.left(), params), bind(c.right(), params));
            case And a -> new And(bind(a.left(), params), bind(a.right(), params));
            case Or o -> new Or(bind(o.left(), params), bind(o.right(), params));
            case Not n -> new Not(bind(n.inner(), params));
            case Negate n -> new Negate(bind(n.inner(), params));
            case IsNull n -> new IsNull(bind(n.inner(), params), n.not());
            case Between b -> new Between(bind(b.value(), params), bind(b.low(), params), bind(b.high(), params), b.not());
            case In in -> {
                var items = new java.util.ArrayList<Expr>(in.items().size());
                for (Expr x : in.items()) items.add(bind(x, params));
                yield new In(bind(in.value(), params), items, in.not());
            }
        };
    }

    /**
     * The scale MariaDB shows {@code e}'s DECIMAL value with (its {@code decimals}), over input columns {@code columns}:
     * a column's or literal's own, the larger of a sum's or difference's operands', a product's operands' together, a
     * quotient's dividend's plus div_precision_increment (4), at most 38.
     */
    public static int decimals(Expr e, List<org.lutra.protocol.Column> columns) {
        return switch (e) {
            case Col c -> Math.max(0, columns.get(c.index()).getScale());
            case Literal l -> l.value() == null || l.value().getKindCase() != Value.KindCase.DECIMAL_VALUE ? 0
                    : Math.max(0, new BigDecimal(l.value().getDecimalValue()).scale());
            case Negate n -> decimals(n.inner(), columns);
            case Arith a -> Math.min(MariaDbDecimals.MAX_SCALE, switch (a.op()) {
                case ADD, SUBTRACT -> Math.max(decimals(a.left(), columns), decimals(a.right(), columns));
                case MULTIPLY -> decimals(a.left(), columns) + decimals(a.right(), columns);
                case DIVIDE -> decimals(a.left(), columns) + MariaDbDecimals.DIV_PRECISION_INCREMENT;
            });
            default -> 0;
        };
    }

    /** Whether {@code e} reads a column {@code column} accepts. */
    public static boolean reads(Expr e, java.util.function.IntPredicate column) {
        return switch (e) {
            case Col c -> column.test(c.index());
            case Literal l -> false;
            case Param p -> false;
            case Arith a -> reads(a.left(), column) || reads(a.right(), column);
            case Compare c -> reads(c.left(), column) || reads(c.right(), column);
            case And a -> reads(a.left(), column) || reads(a.right(), column);
            case Or o -> reads(o.left(), column) || reads(o.right(), column);
            case Not n -> reads(n.inner(), column);
            case Negate n -> reads(n.inner(), column);
            case IsNull n -> reads(n.inner(), column);
            case Between b -> reads(b.value(), column) || reads(b.low(), column) || reads(b.high(), column);
            case In in -> reads(in.value(), column) || in.items().stream().anyMatch(x -> reads(x, column));
        };
    }

    /** Whether integer arithmetic with {@code e} is unsigned: an unsigned column, or a sum, difference or product with one. */
    static boolean unsigned(Expr e) {
        return switch (e) {
            case Col c -> c.unsigned();
            case Arith a -> a.op() != ArithOp.DIVIDE && (unsigned(a.left()) || unsigned(a.right()));
            default -> false;
        };
    }

    /** MariaDB's 1690, as the router reports a shard's (Connector/J's form: class 22 is "Data truncation", 22001). */
    private static SQLException outOfRange(String type, Expr e) {
        return new SQLException("Data truncation: " + type + " value is out of range in '" + text(e) + "'", "22001", 1690);
    }

    /** {@code e} as text, for an error message. */
    private static String text(Expr e) {
        return switch (e) {
            case Col c -> c.text();
            case Literal l -> l.value() == null ? "NULL" : Values.decimal(l.value()).toPlainString();
            case Negate n -> "-" + text(n.inner());
            case Arith a -> text(a.left()) + switch (a.op()) {
                case ADD -> " + ";
                case SUBTRACT -> " - ";
                case MULTIPLY -> " * ";
                case DIVIDE -> " / ";
            } + text(a.right());
            default -> e.toString();
        };
    }

    /** WHERE/HAVING truth: only a non-zero, non-NULL value keeps the row. */
    static boolean isTrue(Value v) {
        return v != null && truth(v);
    }

    private static boolean truth(Value v) {
        return Values.decimal(v).signum() != 0;
    }

    private static Value bool(boolean b) {
        return Value.newBuilder().setIntValue(b ? 1 : 0).build();
    }
}
