package org.lutra.workload;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * One client's connection and its prepared statements, one per statement text (as an
 * application's statement cache keeps them), and the run's state. Used by one thread.
 */
public final class Session implements AutoCloseable {
    private final Connection connection;
    private final RunState state;
    private final Map<String, PreparedStatement> prepared = new HashMap<>();

    public Session(Connection connection, RunState state) {
        this.connection = connection;
        this.state = state;
    }

    public Connection connection() {
        return connection;
    }

    @SuppressWarnings("unchecked")
    public <S extends RunState> S state() {
        return (S) state;
    }

    /** The prepared statement for {@code sql}, prepared at its first use; its parameters are cleared. */
    public PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = prepared.get(sql);
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            prepared.put(sql, ps);
        } else {
            ps.clearParameters();
        }
        return ps;
    }

    @Override
    public void close() throws SQLException {
        try {
            for (PreparedStatement ps : prepared.values()) ps.close();
        } finally {
            connection.close();
        }
    }
}
