package org.lutra.exec;

import org.lutra.merge.RowOrder;
import org.lutra.merge.RowSource;
import org.lutra.merge.SortKey;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/**
 * SELECT DISTINCT over rows merged from several partitions: keeps the first of each run of rows
 * equal on every key (text by its weight string, NULLs equal to each other, as MySQL's DISTINCT
 * compares). The input must bring equal rows together: sorted by the keys, except keys that are
 * the same on every row of the statement (a constant), which need no sort. Streams, holding one row.
 */
public final class Distinct implements Operator {
    private final Operator input;
    private final List<SortKey> keys;

    public Distinct(Operator input, List<SortKey> keys) {
        this.input = input;
        this.keys = List.copyOf(keys);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        RowSource rows = input.open(ctx);
        RowOrder order;
        try {
            order = RowOrder.of(keys, rows.columns(), "DISTINCT");
        } catch (SQLException | RuntimeException e) {
            rows.close();
            throw e;
        }
        return new RowSource() {
            private Row last;

            @Override
            public List<Column> columns() {
                return rows.columns();
            }

            @Override
            public Row next() throws SQLException {
                Row r;
                while ((r = rows.next()) != null) {
                    if (last == null || !order.same(last, r)) {
                        last = r;
                        return r;
                    }
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
        return "Distinct " + keys;
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }
}
