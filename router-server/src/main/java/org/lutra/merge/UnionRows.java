package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/**
 * UNION ALL of partition results, one after the other. The inputs were started in parallel, so
 * while this drains the first, the others' rows wait in their sockets.
 */
public final class UnionRows implements RowSource {
    private final List<RowSource> inputs;
    private int current;

    public UnionRows(List<RowSource> inputs) {
        if (inputs.isEmpty()) throw new IllegalArgumentException("a union needs at least one input");
        this.inputs = List.copyOf(inputs);
    }

    @Override
    public List<Column> columns() {
        return inputs.getFirst().columns();
    }

    @Override
    public Row next() throws SQLException {
        while (current < inputs.size()) {
            Row row = inputs.get(current).next();
            if (row != null) return row;
            inputs.get(current++).close();
        }
        return null;
    }

    @Override
    public void close() {
        inputs.forEach(RowSource::close);
    }
}
