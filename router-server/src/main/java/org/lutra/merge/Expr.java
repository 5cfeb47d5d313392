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

    record Col(int index, String text) implements Expr {
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

    record Arith(ArithOp op, Expr left, Expr right) implements Expr {
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
            boolean integers = op != ArithOp.DIVIDE && va.getKindCase() == Value.KindCase.INT_VALUE && vb.getKindCase() == Value.KindCase.INT_VALUE;
            if (integers && r.scale() <= 0 && r.toBigInteger().bitLength() < 64) return Value.newBuilder().setIntValue(r.longValueExact()).build();
            return Value.newBuilder().setDecimalValue(r.toPlainString()).build();
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

    record Negate(Expr inner) implements Expr {
        @Override
        public Value eval(Row row) throws SQLException {
            Value a = inner.eval(row);
            if (a == null) return null;
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
