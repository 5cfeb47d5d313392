package org.lutra.exec;

import org.lutra.merge.Expr;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/**
 * HAVING over groups the router merged: keeps the rows for which the condition is true (not false, not NULL).
 * A condition with the client's parameters takes them from the end of the parameters it is given (HAVING is
 * the last clause with parameters once LIMIT's are taken: parameters in ORDER BY over several partitions are
 * refused) and passes the others down to the shards' statement, which no longer has the HAVING clause.
 */
public final class Filter implements Operator {
    private final Operator input;
    private final Expr condition;
    private final String text;
    private final int params;

    public Filter(Operator input, Expr condition, String text) {
        this(input, condition, text, 0);
    }

    /** @param params how many of the client's parameters the condition has (its {@link Expr.Param}s) */
    public Filter(Operator input, Expr condition, String text, int params) {
        this.input = input;
        this.condition = condition;
        this.text = text;
        this.params = params;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        Expr condition = this.condition;
        RowSource rows;
        if (params == 0) {
            rows = input.open(ctx);
        } else {
            var all = ctx.params();
            int below = all.size() - params;
            condition = Expr.bind(condition, all.subList(below, all.size()));
            rows = input.open(ctx.withParams(List.copyOf(all.subList(0, below))));
        }
        Expr bound = condition;
        return new RowSource() {
            @Override
            public List<Column> columns() {
                return rows.columns();
            }

            @Override
            public Row next() throws SQLException {
                Row r;
                while ((r = rows.next()) != null) {
                    if (Expr.isTrue(bound.eval(r))) return r;
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
