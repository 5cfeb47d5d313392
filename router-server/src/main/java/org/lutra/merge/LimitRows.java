package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/** Stops after {@code limit} rows: a LIMIT re-applied over several partitions, or JDBC's maxRows. */
public final class LimitRows implements RowSource {
    private final RowSource input;
    private final long limit;
    private long returned;

    public LimitRows(RowSource input, long limit) {
        this.input = input;
        this.limit = limit;
    }

    @Override
    public List<Column> columns() {
        return input.columns();
    }

    @Override
    public Row next() throws SQLException {
        if (returned >= limit) {
            input.close();
            return null;
        }
        Row row = input.next();
        if (row != null) returned++;
        return row;
    }

    @Override
    public void close() {
        input.close();
    }
}
