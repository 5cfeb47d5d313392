package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * Gives result columns labels the statement text cannot carry: MySQL labels a select item written
 * over several lines with its text, line breaks included, but the SQL parser takes no line break
 * inside a quoted alias, so such an item is aliased with a one-line stand-in and renamed here.
 */
public final class Relabel implements Operator {
    private final Operator input;
    /** Stand-in label → the client's label. */
    private final Map<String, String> labels;

    public Relabel(Operator input, Map<String, String> labels) {
        this.input = input;
        this.labels = Map.copyOf(labels);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        RowSource rows = input.open(ctx);
        List<Column> columns = rows.columns().stream().map(c -> {
            String label = labels.get(c.getLabel());
            return label == null ? c : c.toBuilder().setLabel(label).setName(label).build();
        }).toList();
        return new RowSource() {
            @Override
            public List<Column> columns() {
                return columns;
            }

            @Override
            public Row next() throws SQLException {
                return rows.next();
            }

            @Override
            public void close() {
                rows.close();
            }
        };
    }

    @Override
    public String describe() {
        return "Relabel " + labels.keySet();
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }
}
