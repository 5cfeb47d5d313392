package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one sub-query on one partition: borrows a pooled connection, binds the parameters as
 * parameters, and either returns the update count or streams the rows (the connection stays
 * borrowed until the rows are read or closed). Errors carry the partition and backend.
 */
final class ConnectionWorker {
    private final Backends.Placement placement;

    ConnectionWorker(Backends.Placement placement) {
        this.placement = placement;
    }

    long update(ShardQuery q) throws SQLException {
        try (Connection c = placement.pool().getConnection(); PreparedStatement ps = prepare(c, q)) {
            return ps.executeLargeUpdate();
        } catch (SQLException e) {
            throw located(e);
        }
    }

    RowSource query(ShardQuery q) throws SQLException {
        Connection c = null;
        PreparedStatement ps = null;
        try {
            c = placement.pool().getConnection();
            ps = prepare(c, q);
            ps.setFetchSize(Integer.MIN_VALUE); // stream rows instead of buffering the whole result
            ResultSet rs = ps.executeQuery();
            var md = rs.getMetaData();
            var columns = new ArrayList<Column>(md.getColumnCount());
            for (int i = 1; i <= md.getColumnCount(); i++) {
                columns.add(ValueCodec.column(md, i));
            }
            return new ShardRows(c, ps, rs, List.copyOf(columns));
        } catch (SQLException e) {
            closeQuietly(ps);
            closeQuietly(c);
            throw located(e);
        }
    }

    private static PreparedStatement prepare(Connection c, ShardQuery q) throws SQLException {
        PreparedStatement ps = c.prepareStatement(q.sql(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
        for (int i = 0; i < q.params().size(); i++) {
            ValueCodec.bind(ps, i + 1, q.params().get(i));
        }
        return ps;
    }

    private SQLException located(SQLException e) {
        return new SQLException("[" + placement.name() + "@" + placement.backend() + "] " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception ignored) {
            // already failing; the first error is the one to report
        }
    }

    /** Rows of one partition, read as the consumer asks for them. */
    private final class ShardRows implements RowSource {
        private final Connection connection;
        private final PreparedStatement statement;
        private final ResultSet rs;
        private final List<Column> columns;
        private boolean closed;

        ShardRows(Connection connection, PreparedStatement statement, ResultSet rs, List<Column> columns) {
            this.connection = connection;
            this.statement = statement;
            this.rs = rs;
            this.columns = columns;
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        @Override
        public Row next() throws SQLException {
            if (closed) return null;
            try {
                if (!rs.next()) {
                    close();
                    return null;
                }
                return ValueCodec.row(rs, columns);
            } catch (SQLException e) {
                close();
                throw located(e);
            }
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            closeQuietly(rs);
            closeQuietly(statement);
            closeQuietly(connection);
        }
    }
}
