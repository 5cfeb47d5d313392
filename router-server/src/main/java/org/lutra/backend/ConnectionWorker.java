package org.lutra.backend;

import org.lutra.backend.BackendDriver;
import org.lutra.backend.Backends;
import org.lutra.backend.Deadline;
import org.lutra.backend.Misplaced;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Runs one sub-query on one partition: leases a connection (pooled, or the transaction's pinned
 * one), binds the parameters as parameters, and either returns the update count or the rows
 * (streamed when the lease allows: the connection stays leased until the rows are read or
 * closed). Errors carry the partition and backend, and are reported to the lease.
 */
final class ConnectionWorker {
    private final Backends.Placement placement;
    private final Connections connections;
    private final Deadline deadline;

    ConnectionWorker(Backends.Placement placement, Connections connections) {
        this.placement = placement;
        this.connections = connections;
        this.deadline = connections.deadline();
    }

    long update(ShardQuery q) throws SQLException {
        if (connections.foreignKeyChecksOff()) q = withoutShardChecks(q);
        Connections.Lease lease = lease(Connections.Use.WRITE);
        try (PreparedStatement ps = prepare(lease.connection(), q)) {
            long count = deadline.run(ps, ps::executeLargeUpdate);
            lease.changed(count);
            var insertIds = connections.insertIds();
            if (insertIds != null && count > 0) insertIds.accept(BackendDriver.lastInsertId(ps));
            warnings(lease.connection(), ps);
            lease.release(null);
            return count;
        } catch (SQLException e) {
            if (Misplaced.partitions(e) != null) {
                lease.release(null); // the server rolled back this statement alone: not a failure of the transaction
                throw new Misplaced(Backends.located(placement, e));
            }
            SQLException located = located(e, lease);
            lease.release(located);
            throw located;
        } catch (RuntimeException | Error e) {
            lease.release(new SQLException("internal error", "HY000", 0, e)); // never leak the connection, whatever went wrong
            throw e;
        }
    }

    RowSource query(ShardQuery q) throws SQLException {
        // a transaction counts the partitions where it may hold locks (a lock wait timeout is a suspected deadlock only over
        // several of them): a consistent read locks nothing. Outside one it does not matter, and the text is not scanned
        boolean consistent = connections.transactional() && !org.lutra.sql.Guards.lockingRead(q.sql());
        Connections.Lease lease = consistent ? connections.consistentRead(placement.partition()) : lease(Connections.Use.READ);
        PreparedStatement ps = null;
        try {
            ps = prepare(lease.connection(), q);
            // stream rows instead of buffering the whole result, unless the connection is pinned. Set
            // both ways: the statement may come from the connection's cache with the last user's
            // fetch size, and a streamed result on a pinned connection blocks the transaction's next
            // statement: its rows would still stream while the next sub-query waits for the connection, for good
            if (lease.streaming()) BackendDriver.streamRows(ps);
            else BackendDriver.readWhole(ps);
            if (lease.streaming()) deadline.streaming(lease.connection()); // until the rows are closed
            ResultSet rs = deadline.run(ps, ps::executeQuery);
            var rows = new ShardRows(lease, ps, rs, ValueCodec.columns(rs.getMetaData()));
            if (lease.streaming() && lease.pinned()) lease.streams(rows::drain);
            return rows;
        } catch (SQLException e) {
            deadline.done(lease.connection());
            closeQuietly(ps);
            SQLException located = located(e, lease);
            lease.release(located);
            throw located;
        } catch (RuntimeException | Error e) {
            deadline.done(lease.connection());
            closeQuietly(ps);
            lease.release(new SQLException("internal error", "HY000", 0, e)); // never leak the connection, whatever went wrong
            throw e;
        }
    }

    /** The backend's warnings of the statement {@code ps} just ran, for the client's statement. */
    private void warnings(Connection c, PreparedStatement ps) throws SQLException {
        Warnings to = connections.warnings();
        if (to != null) to.read(placement, c, ps.getWarnings());
    }

    /** {@code q} run with the shard's foreign key checks off (MariaDB's per-statement variable; it joins a SET STATEMENT already there). */
    private static ShardQuery withoutShardChecks(ShardQuery q) {
        String sql = q.sql();
        String joined = sql.regionMatches(true, 0, "SET STATEMENT ", 0, 14) ? "SET STATEMENT foreign_key_checks = 0, " + sql.substring(14)
                : "SET STATEMENT foreign_key_checks = 0 FOR " + sql;
        return new ShardQuery(q.partition(), joined, q.params());
    }

    private Connections.Lease lease(Connections.Use use) throws SQLException {
        return connections.lease(placement.partition(), use); // its errors name the partition already
    }

    private static PreparedStatement prepare(Connection c, ShardQuery q) throws SQLException {
        PreparedStatement ps = c.prepareStatement(q.sql(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
        for (int i = 0; i < q.params().size(); i++) {
            ValueCodec.bind(ps, i + 1, q.params().get(i));
        }
        return ps;
    }

    private SQLException located(SQLException e, Connections.Lease lease) {
        return Backends.located(placement, e, lease.connection());
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception ignored) {
            // already failing; the first error is the one to report
        }
    }

    /**
     * Rows a closed streamed result may still read to keep its connection (the rest of a shard's
     * LIMIT, say); beyond them the connection is aborted, so a client that stops reading a large
     * result, or disconnects, does not make the router read every row the shards still send.
     */
    static final int ROWS_READ_TO_KEEP_A_CONNECTION = 1_000;

    /**
     * The most a result streaming on a transaction's pinned connection is read into the router when
     * something else needs the connection (the session's next statement, the commit), as much as an
     * open result set past a session's share of pooled connections may hold.
     */
    static final long DRAIN_BYTES = 16 << 20;

    /** Rows of one partition, read as the consumer asks for them. */
    private final class ShardRows implements RowSource {
        private final Connections.Lease lease;
        private final PreparedStatement statement;
        private final ResultSet rs;
        private final List<Column> columns;
        private boolean closed;
        private boolean exhausted;

        ShardRows(Connections.Lease lease, PreparedStatement statement, ResultSet rs, List<Column> columns) {
            this.lease = lease;
            this.statement = statement;
            this.rs = rs;
            this.columns = columns;
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        /** Rows read ahead off a pinned connection ({@link #drain}), served before any still in {@code rs}. */
        private final java.util.ArrayDeque<Row> ahead = new java.util.ArrayDeque<>();

        @Override
        public synchronized Row next() throws SQLException {
            if (!ahead.isEmpty()) return ahead.poll();
            if (closed) return null;
            try {
                if (!rs.next()) {
                    exhausted = true;
                    close();
                    return null;
                }
                return ValueCodec.row(rs, columns);
            } catch (SQLException e) {
                SQLException located = located(e, lease);
                close(located);
                throw located;
            }
        }

        @Override
        public synchronized void close() {
            ahead.clear();
            close(null);
        }

        /**
         * Reads the rest of this stream into the router and frees its pinned connection: the
         * transaction's next use of it comes first. Past {@link #DRAIN_BYTES} the rows read so far
         * stay ahead of the rest, the stream stays open, and the other use fails, saying so.
         */
        synchronized void drain() throws SQLException {
            if (closed) return;
            long bytes = 0;
            for (Row row : ahead) bytes += row.getSerializedSize();
            try {
                while (bytes <= DRAIN_BYTES) {
                    if (!rs.next()) {
                        exhausted = true;
                        close(null);
                        return;
                    }
                    Row row = ValueCodec.row(rs, columns);
                    bytes += row.getSerializedSize();
                    ahead.add(row);
                }
            } catch (SQLException e) {
                SQLException located = located(e, lease);
                close(located);
                throw located;
            }
            lease.streams(this::drain); // still open: whatever comes next tries again
            throw new SQLException("a result set of this transaction is still open on " + placement.name() + " with more than "
                    + (DRAIN_BYTES >> 20) + " MB unread, and its connection is needed (the transaction's next statement, or its end):"
                    + " read that result to its end or close it first", "HY000", 0);
        }

        /** Reads and drops what is left of the rows (closed early inside a transaction); the error, or null. */
        private SQLException readRest() {
            try {
                while (!exhausted) exhausted = !rs.next();
                return null;
            } catch (SQLException e) {
                return located(e, lease);
            }
        }

        /** Reads what is left of the rows, up to a bound; whether they ended. */
        private boolean skipRest() {
            try {
                for (int i = 0; !exhausted && i < ROWS_READ_TO_KEEP_A_CONNECTION; i++) exhausted = !rs.next();
                return exhausted;
            } catch (SQLException e) {
                return false;
            }
        }

        private void close(SQLException failure) {
            if (closed) return;
            closed = true;
            deadline.done(lease.connection());
            if (failure == null && lease.streaming() && lease.pinned()) {
                failure = readRest(); // the transaction keeps the connection: its rows are read, not abandoned with it
            } else if (failure == null && lease.streaming() && !skipRest()) {
                lease.abandon(); // its statement and result go with the connection, unread
                return;
            }
            closeQuietly(rs);
            if (failure == null && exhausted) {
                try {
                    warnings(lease.connection(), statement); // known once the rows were read to the end
                } catch (SQLException e) {
                    failure = located(e, lease);
                }
            }
            closeQuietly(statement);
            lease.release(failure);
        }
    }
}
