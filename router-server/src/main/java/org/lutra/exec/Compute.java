package org.lutra.exec;

import org.lutra.merge.Expr;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Select items the router computes from merged groups ({@code COUNT(*) + 1}, {@code SUM(x) / COUNT(x)}):
 * each fills its own column (a placeholder in the shard SQL) from the row's other columns.
 * The column's type follows the first computed value: BIGINT for integers, DECIMAL (rounded to the
 * expression's {@link Expr#decimals}), or DOUBLE.
 */
public final class Compute implements Operator {
    /** Column {@code column} gets {@code expr}'s value. */
    public record Item(int column, Expr expr, String text) {}

    private final Operator input;
    private final List<Item> items;

    public Compute(Operator input, List<Item> items) {
        this.input = input;
        this.items = List.copyOf(items);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        RowSource rows = input.open(ctx);
        var columns = new ArrayList<>(rows.columns());
        int[] decimals = new int[items.size()];
        for (int i = 0; i < decimals.length; i++) decimals[i] = Expr.decimals(items.get(i).expr(), rows.columns());
        // an item that is another column's value ((BIT_AND(x)), a parenthesized aggregate) has that column's type, whatever
        // its first value: typed from a first row of 1, a BIGINT UNSIGNED aggregate read as signed BIGINT failed on 2^64 - 1
        boolean[] copied = new boolean[items.size()];
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).expr() instanceof Expr.Col col) {
                var from = rows.columns().get(col.index());
                var at = columns.get(items.get(i).column());
                columns.set(items.get(i).column(), from.toBuilder().setName(at.getName()).setLabel(at.getLabel()).build());
                copied[i] = true;
            }
        }
        return new RowSource() {
            private boolean typed;

            @Override
            public List<Column> columns() {
                return columns;
            }

            @Override
            public Row next() throws SQLException {
                Row r = rows.next();
                if (r == null) return null;
                var out = Row.newBuilder(r);
                for (int i = 0; i < items.size(); i++) {
                    Item item = items.get(i);
                    Value v = shown(item.expr().eval(r), decimals[i]);
                    out.setValues(item.column(), v == null ? Value.newBuilder().setIsNull(true).build() : v);
                    if (!typed && v != null && !copied[i]) columns.set(item.column(), typed(columns.get(item.column()), v));
                }
                typed = true;
                return out.build();
            }

            @Override
            public void close() {
                rows.close();
            }
        };
    }

    /** A DECIMAL value as MariaDB shows it: the digits kept inside the expression rounded (half up) to its decimals. */
    private static Value shown(Value v, int decimals) {
        if (v == null || v.getKindCase() != Value.KindCase.DECIMAL_VALUE) return v;
        var d = new java.math.BigDecimal(v.getDecimalValue()).setScale(decimals, java.math.RoundingMode.HALF_UP);
        return Value.newBuilder().setDecimalValue(d.toPlainString()).build();
    }

    private static Column typed(Column c, Value v) {
        var b = c.toBuilder();
        switch (v.getKindCase()) {
            case INT_VALUE -> b.setJdbcType(Types.BIGINT).setTypeName("BIGINT").setScale(0).setPrecision(21);
            case DOUBLE_VALUE, FLOAT_VALUE -> b.setJdbcType(Types.DOUBLE).setTypeName("DOUBLE").setPrecision(22);
            default -> {
                var d = new java.math.BigDecimal(v.getDecimalValue());
                b.setJdbcType(Types.DECIMAL).setTypeName("DECIMAL").setScale(Math.max(0, d.scale())).setPrecision(65);
            }
        }
        return b.setNullable(true).build();
    }

    @Override
    public String describe() {
        return "Compute " + items.stream().map(Item::text).toList();
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }
}
