package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/** LIMIT count OFFSET offset, applied once over the merged rows (each shard was asked for offset + count). */
public final class Limit implements Operator {
    private final Operator input;
    private final long offset;
    private final long count;

    public Limit(Operator input, long offset, long count) {
        this.input = input;
        this.offset = offset;
        this.count = count;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        return new Limited(input.open(ctx), offset, count);
    }

    @Override
    public String describe() {
        return "Limit " + count + (offset > 0 ? " offset " + offset : "");
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }

    static final class Limited implements RowSource {
        private final RowSource input;
        private long toSkip;
        private long left;

        Limited(RowSource input, long offset, long count) {
            this.input = input;
            this.toSkip = offset;
            this.left = count;
        }

        @Override
        public List<Column> columns() {
            return input.columns();
        }

        @Override
        public Row next() throws SQLException {
            while (toSkip > 0) {
                if (input.next() == null) return null;
                toSkip--;
            }
            if (left <= 0) {
                input.close(); // stop reading the shards: the rest is not wanted
                return null;
            }
            Row row = input.next();
            if (row != null) left--;
            return row;
        }

        @Override
        public void close() {
            input.close();
        }
    }
}
