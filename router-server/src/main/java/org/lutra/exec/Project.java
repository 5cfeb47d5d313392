package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Keeps the columns the client asked for, in its order, under its labels: drops the hidden
 * columns the shard SQL added (sort keys, weight strings, partial aggregates).
 */
public final class Project implements Operator {
    private final Operator input;
    private final int[] columns;
    private final List<String> labels;

    /** @param labels the client's label per kept column, or null to keep the shard's */
    public Project(Operator input, int[] columns, List<String> labels) {
        this.input = input;
        this.columns = columns.clone();
        this.labels = labels == null ? null : List.copyOf(labels);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        RowSource rows = input.open(ctx);
        var in = rows.columns();
        var out = new ArrayList<Column>(columns.length);
        for (int i = 0; i < columns.length; i++) {
            var c = in.get(columns[i]).toBuilder();
            if (labels != null && labels.get(i) != null) c.setLabel(labels.get(i)).setName(labels.get(i));
            out.add(c.build());
        }
        boolean identity = columns.length == in.size() && labels == null;
        for (int i = 0; identity && i < columns.length; i++) identity = columns[i] == i;
        return identity ? rows : new Projected(rows, List.copyOf(out), columns);
    }

    @Override
    public String describe() {
        return "Project " + Arrays.stream(columns).mapToObj(c -> "#" + c).toList() + (labels == null ? "" : " as " + labels);
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }

    private record Projected(RowSource input, List<Column> columns, int[] picks) implements RowSource {
        @Override
        public Row next() throws SQLException {
            Row row = input.next();
            if (row == null) return null;
            var out = Row.newBuilder();
            for (int p : picks) out.addValues(row.getValues(p));
            return out.build();
        }

        @Override
        public void close() {
            input.close();
        }
    }
}
