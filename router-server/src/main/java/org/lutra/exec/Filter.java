package org.lutra.exec;

import org.lutra.merge.Expr;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/** HAVING over groups the router merged: keeps the rows for which the condition is true (not false, not NULL). */
public final class Filter implements Operator {
    private final Operator input;
    private final Expr condition;
    private final String text;

    public Filter(Operator input, Expr condition, String text) {
        this.input = input;
        this.condition = condition;
        this.text = text;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        RowSource rows = input.open(ctx);
        return new RowSource() {
            @Override
            public List<Column> columns() {
                return rows.columns();
            }

            @Override
            public Row next() throws SQLException {
                Row r;
                while ((r = rows.next()) != null) {
                    if (Expr.isTrue(condition.eval(r))) return r;
                }
                return null;
            }

            @Override
            public void close() {
                rows.close();
            }
        };
    }

    @Override
    public String describe() {
        return "Filter " + text;
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }
}
