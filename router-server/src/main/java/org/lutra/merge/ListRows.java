package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.util.Iterator;
import java.util.List;

/** Rows the router computed itself (its status, for one). */
public final class ListRows implements RowSource {
    private final List<Column> columns;
    private final Iterator<Row> rows;

    public ListRows(List<Column> columns, List<Row> rows) {
        this.columns = List.copyOf(columns);
        this.rows = List.copyOf(rows).iterator();
    }

    @Override
    public List<Column> columns() {
        return columns;
    }

    @Override
    public Row next() {
        return rows.hasNext() ? rows.next() : null;
    }

    @Override
    public void close() {
        // nothing held
    }
}
