package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The rows of an INSERT ... SELECT's SELECT (or of an UPDATE that moves rows), read whole into the router before any is written. */
final class SelectedRows {
    static final int MAX_ROWS = 1_000_000;
    static final long MAX_BYTES = 64L << 20;

    private SelectedRows() {}

    /**
     * {@code select} (the plan's SELECT, or its locking form) read whole. InnoDB reads an INSERT ... SELECT's rows with shared
     * locks at REPEATABLE READ and SERIALIZABLE (consistently at READ COMMITTED and below): the caller picks the form.
     */
    static List<Row> read(Plan.InsertSelect plan, Plan.Query select, Context ctx) throws SQLException {
        return read(select, plan.columns(), ctx, "INSERT ... SELECT", "nothing was inserted; insert in parts (WHERE ranges)");
    }

    /** The rows of {@code select}, which gives {@code columns} values a row; {@code statement} and {@code instead} name what is refused past the limits. */
    static List<Row> read(Plan.Query select, int columns, Context ctx, String statement, String instead) throws SQLException {
        RowSource source;
        try {
            source = ctx.releasing(select.root().open(ctx));
        } catch (SQLException | RuntimeException e) {
            ctx.release();
            throw e;
        }
        var rows = new ArrayList<Row>();
        try (source) {
            if (source.columns().size() != columns) {
                throw new SQLException("Column count doesn't match value count at row 1", "21S01", 1136);
            }
            long bytes = 0;
            for (Row r = source.next(); r != null; r = source.next()) {
                bytes += r.getSerializedSize();
                if (rows.size() == MAX_ROWS || bytes > MAX_BYTES) {
                    throw org.lutra.protocol.Refusal.of("Lutra does not support " + statement + " of more than " + MAX_ROWS + " rows or " + (MAX_BYTES >> 20)
                            + " MB (the router holds the selected rows before writing them): " + instead);
                }
                rows.add(r);
            }
        }
        return rows;
    }
}
