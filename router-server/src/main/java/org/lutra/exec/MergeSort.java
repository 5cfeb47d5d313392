package org.lutra.exec;

import org.lutra.merge.RowOrder;
import org.lutra.merge.RowSource;
import org.lutra.merge.SortKey;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A streaming k-way merge of partitions that each return their rows already sorted (the shard
 * SQL carries the ORDER BY): holds one row per partition, so {@code ORDER BY ... LIMIT 10}
 * over millions of rows keeps O(partitions) rows in the router.
 */
public final class MergeSort implements Operator {
    private final Route input;
    private final List<SortKey> keys;

    public MergeSort(Route input, List<SortKey> keys) {
        this.input = input;
        this.keys = List.copyOf(keys);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        List<RowSource> shards = input.openEach(ctx);
        if (shards.size() == 1) return shards.getFirst();
        try {
            return new Merged(shards, RowOrder.of(keys, shards.getFirst().columns(), "ORDER BY"));
        } catch (SQLException | RuntimeException e) {
            shards.forEach(RowSource::close);
            throw e;
        }
    }

    @Override
    public String describe() {
        return "MergeSort " + keys;
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }

    private static final class Merged implements RowSource {
        private record Head(Row row, RowSource source) {}

        private final List<RowSource> sources;
        private final PriorityQueue<Head> heads;
        private boolean started;

        Merged(List<RowSource> sources, RowOrder order) {
            this.sources = sources;
            this.heads = new PriorityQueue<>(sources.size(), (a, b) -> order.compare(a.row(), b.row()));
        }

        @Override
        public List<Column> columns() {
            return sources.getFirst().columns();
        }

        @Override
        public Row next() throws SQLException {
            if (!started) {
                started = true;
                for (RowSource s : sources) advance(s);
            }
            Head head = heads.poll();
            if (head == null) return null;
            advance(head.source());
            return head.row();
        }

        private void advance(RowSource s) throws SQLException {
            Row r = s.next();
            if (r != null) heads.add(new Head(r, s)); else s.close();
        }

        @Override
        public void close() {
            sources.forEach(RowSource::close);
        }
    }
}
