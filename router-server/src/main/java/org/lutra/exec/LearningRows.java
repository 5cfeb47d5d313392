package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/** Passes rows through; the first row proves where {@code key} lives, so the lookup table learns it. */
final class LearningRows implements RowSource {
    private final RowSource input;
    private final Partitioning.LookedUp lookup;
    private final Object key;
    private final int partition;
    private final Stats stats;
    private boolean learned;

    LearningRows(RowSource input, Partitioning.LookedUp lookup, Object key, int partition, Stats stats) {
        this.input = input;
        this.lookup = lookup;
        this.key = key;
        this.partition = partition;
        this.stats = stats;
    }

    @Override
    public List<Column> columns() {
        return input.columns();
    }

    @Override
    public Row next() throws SQLException {
        Row row = input.next();
        if (row != null && !learned) {
            learned = true;
            lookup.table().put(key, partition);
            stats.learn(lookup);
        }
        return row;
    }

    @Override
    public void close() {
        input.close();
    }
}
