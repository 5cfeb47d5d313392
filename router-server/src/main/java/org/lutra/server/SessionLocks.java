package org.lutra.server;

import org.lutra.backend.Backends;
import org.lutra.backend.ValueCodec;
import org.lutra.merge.ListRows;
import org.lutra.exec.SessionCommand;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.List;

/**
 * One session's user-level locks (GET_LOCK and friends), held on a backend connection of its own on
 * partition 0's server — the one server every router over these partitions shares, so a lock taken
 * through one router excludes sessions of every router. The connection is opened by the first call
 * and closed once the session holds no lock (or ends: the server then releases whatever it held, as
 * MySQL does when a client disconnects). Not a pooled connection: a lock outlives statements and
 * transactions, and a pooled connection goes to other sessions between statements.
 *
 * <p>Names are those of the logical database: the backend gets {@code lutra:} and a hash of the
 * partition database's name and the client's name (as written: MariaDB compares lock names
 * case-sensitively), so that two logical databases sharing a server, and the router's own locks,
 * never meet, and every name fits the server's 64 characters.
 */
final class SessionLocks implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final Backends.Placement placement;
    private Connection connection;
    /** Locks held, counting a name taken again (GET_LOCK is recursive in MariaDB and MySQL 5.7+). */
    private long held;

    SessionLocks(Backends.Placement placement) {
        this.placement = placement;
    }

    ListRows run(SessionCommand.NamedLock call, List<Value> params) throws SQLException {
        Connection c = connection();
        try {
            String sql = switch (call.function()) {
                case "GET_LOCK" -> "SELECT GET_LOCK(?, ?)";
                case "RELEASE_LOCK" -> "SELECT RELEASE_LOCK(?)";
                case "IS_FREE_LOCK" -> "SELECT IS_FREE_LOCK(?)";
                case "RELEASE_ALL_LOCKS" -> "SELECT RELEASE_ALL_LOCKS()";
                default -> throw new IllegalArgumentException(call.function());
            };
            Value answer;
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                if (!call.args().isEmpty()) {
                    Value name = value(call.args().get(0), params);
                    ps.setString(1, name.hasIsNull() ? null : backendName(String.valueOf(ValueCodec.decode(name))));
                }
                if (call.args().size() > 1) ValueCodec.bind(ps, 2, value(call.args().get(1), params));
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    long n = rs.getLong(1);
                    answer = rs.wasNull() ? Value.newBuilder().setIsNull(true).build() : Value.newBuilder().setIntValue(n).build();
                    count(call.function(), rs.wasNull() ? -1 : n);
                }
            }
            var column = Column.newBuilder().setName(call.label()).setLabel(call.label()).setJdbcType(java.sql.Types.INTEGER)
                    .setTypeName("INT").setPrecision(11).setDisplaySize(11).setNullable(true).setSigned(true).build();
            return new ListRows(List.of(column), List.of(Row.newBuilder().addValues(answer).build()));
        } catch (SQLException e) {
            if (connection != null && !connection.isValid(1)) drop(); // the server released its locks with it
            throw Backends.located(placement, e);
        } finally {
            if (held == 0) drop();
        }
    }

    private void count(String function, long answer) {
        switch (function) {
            case "GET_LOCK" -> { if (answer == 1) held++; }
            case "RELEASE_LOCK" -> { if (answer == 1) held--; }
            case "RELEASE_ALL_LOCKS" -> held = 0;
            default -> { }
        }
    }

    private static Value value(Object arg, List<Value> params) {
        return arg instanceof Integer index ? params.get(index) : (Value) arg;
    }

    private String backendName(String name) {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest((placement.database() + "\0" + name)
                    .getBytes(StandardCharsets.UTF_8));
            return "lutra:" + HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            var props = placement.freshProperties();
            props.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_MILLIS));
            connection = DriverManager.getConnection(placement.pool().getJdbcUrl(), props);
        }
        return connection;
    }

    private void drop() {
        held = 0;
        if (connection == null) return;
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closed either way; the server releases the locks with it
        }
        connection = null;
    }

    @Override
    public void close() {
        drop();
    }
}
