package org.lutra.placement;

import org.lutra.backend.BackendDriver;
import org.lutra.backend.BackendThreads;
import org.lutra.backend.Backends;
import org.lutra.backend.Deadline;
import org.lutra.backend.SessionState;
import org.lutra.backend.ValueCodec;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * {@link Shards.Scratch} on a connection of the partition's scratch pool. A connection whose statement
 * failed is evicted rather than pooled: it may still hold the caller's temporary tables.
 */
public final class ScratchConnection implements Shards.Scratch {
    private final Backends.Placement placement;
    private final HikariDataSource pool;
    private final Connection connection;
    private final Deadline deadline;
    private boolean failed;

    public ScratchConnection(Backends.Placement placement, Deadline deadline, SessionState variables) throws SQLException {
        this(placement, placement.scratch(), deadline, variables);
    }

    private ScratchConnection(Backends.Placement placement, HikariDataSource pool, Deadline deadline, SessionState variables) throws SQLException {
        this.placement = placement;
        this.pool = pool;
        this.deadline = deadline;
        try {
            this.connection = pool.getConnection();
        } catch (SQLException e) {
            throw Backends.located(placement, e);
        }
        placement.waiting().add(connection);
        try {
            placement.carry(connection, variables, pool); // the outer statement runs here: with the session's sql_mode, @x, ...
        } catch (SQLException e) {
            throw Backends.located(placement, e);
        }
    }

    /**
     * A connection of the partition's locking pool (never in auto-commit: its first statement
     * starts a transaction), committed — its locks released — when closed; a connection whose
     * commit failed is evicted, never pooled with its transaction open.
     */
    public static Shards.Scratch transaction(Backends.Placement placement, Deadline deadline, SessionState variables) throws SQLException {
        var scratch = new ScratchConnection(placement, placement.locking(), deadline, variables);
        return new Shards.Scratch() {
            @Override
            public void execute(String sql, List<Value> params) throws SQLException {
                scratch.execute(sql, params);
            }

            @Override
            public RowSource query(String sql, List<Value> params) throws SQLException {
                return scratch.query(sql, params);
            }

            /**
             * Commits off the caller's path: the locks guarded a statement that has ended (an auto-commit
             * write committed before this), so holding them a little longer is safe and the client's
             * answer need not wait for the COMMIT's round trip.
             */
            @Override
            public void close() {
                BackendThreads.later(() -> {
                    try {
                        scratch.connection.commit();
                    } catch (SQLException e) {
                        scratch.failed = true; // evicted: its server ends the transaction with it
                    }
                    scratch.close();
                });
            }
        };
    }


    /**
     * {@link Shards#aside}: a connection of the partition's statement pool, in auto-commit (each statement commits
     * itself, with no COMMIT round trip), each statement run with a lock wait of {@link Backends.Placement#YIELDING_LOCK_WAIT_SECONDS}.
     */
    public static Shards.Aside aside(Backends.Placement placement, Deadline deadline, SessionState variables) throws SQLException {
        var scratch = new ScratchConnection(placement, placement.pool(), deadline, variables);
        String waitBriefly = "SET STATEMENT innodb_lock_wait_timeout = " + Backends.Placement.YIELDING_LOCK_WAIT_SECONDS + " FOR ";
        return new Shards.Aside() {
            @Override
            public void execute(String sql, List<Value> params) throws SQLException {
                scratch.execute(waitBriefly + sql, params);
            }

            @Override
            public RowSource query(String sql, List<Value> params) throws SQLException {
                return scratch.query(waitBriefly + sql, params);
            }

            @Override
            public long update(String sql, List<Value> params) throws SQLException {
                return scratch.executeUpdate(waitBriefly + sql, params);
            }

            @Override
            public void close() {
                scratch.close();
            }
        };
    }

    @Override
    public void execute(String sql, List<Value> params) throws SQLException {
        executeUpdate(sql, params);
    }

    long executeUpdate(String sql, List<Value> params) throws SQLException {
        try (PreparedStatement ps = prepare(sql, params)) {
            return deadline.run(ps, ps::executeUpdate);
        } catch (SQLException e) {
            failed = true;
            throw Backends.located(placement, e, connection);
        }
    }

    @Override
    public RowSource query(String sql, List<Value> params) throws SQLException {
        PreparedStatement ps = null;
        try {
            ps = prepare(sql, params);
            BackendDriver.streamRows(ps);
            ResultSet rs = deadline.run(ps, ps::executeQuery);
            return new Rows(ps, rs, ValueCodec.columns(rs.getMetaData()));
        } catch (SQLException e) {
            failed = true;
            if (ps != null) ps.close();
            throw Backends.located(placement, e, connection);
        }
    }

    private PreparedStatement prepare(String sql, List<Value> params) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        for (int i = 0; i < params.size(); i++) ValueCodec.bind(ps, i + 1, params.get(i));
        return ps;
    }

    @Override
    public void close() {
        placement.waiting().remove(connection);
        try {
            if (failed) pool.evictConnection(connection);
            connection.close();
        } catch (SQLException ignored) {
            // the pool copes with a connection that fails to close
        }
    }

    private final class Rows implements RowSource {
        private final PreparedStatement statement;
        private final ResultSet rs;
        private final List<Column> columns;
        private boolean closed;

        Rows(PreparedStatement statement, ResultSet rs, List<Column> columns) {
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
                failed = true;
                close();
                throw Backends.located(placement, e, connection);
            }
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            try {
                rs.close();
                statement.close();
            } catch (SQLException e) {
                failed = true;
            }
        }
    }
}
