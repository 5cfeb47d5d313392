package org.lutra.backend;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * The JDBC driver of the router's pooled backend connections: MariaDB Connector/J, where the
 * connections opened without a pool from the configured URLs (the catalog's seed, store and lease;
 * DDL) use MySQL Connector/J. Why a second driver: MariaDB negotiates cached result metadata with it, so a
 * prepared point select is no longer followed by a column definition the client parses on every
 * execution — measured on one thread, 29 µs of client CPU per point select against Connector/J's
 * 49 µs (docs/benchmarks-router.md). The differences between the two drivers that the router depends on are
 * kept here and in {@link ValueCodec}.
 */
public final class BackendDriver {
    private BackendDriver() {}

    /**
     * Server-side prepared statements, cached per connection, as with Connector/J
     * ({@link Backends}); TINYINT(1) and YEAR read as the numbers they are ({@link ValueCodec}
     * reports them as Connector/J would); the connection's isolation level and auto-commit tracked
     * on the client, so a borrower that states the level the connection has sends nothing.
     */
    static final String OPTIONS = "useServerPrepStmts=true&cachePrepStmts=true&prepStmtCacheSize=512"
            + "&tinyInt1isBit=false&yearIsDateType=false&useLocalSessionState=true"
            // the session Connector/J opens, which the router's answers were checked against: each column in its own
            // character set (as its metadata describes it), and Connector/J's connection collation
            + "&connectionCollation=utf8mb4_0900_ai_ci&sessionVariables=character_set_results=NULL";

    /** The MariaDB Connector/J options of the router's backend pools (tests that compare the drivers connect with them). */
    public static String options() {
        return OPTIONS;
    }

    /** Rows a streamed result reads from the socket at a time (MariaDB Connector/J reads ahead; Connector/J's streaming reads one). */
    private static final int STREAMED_ROWS = 128;

    /** {@code jdbc:mysql://host:port/db?options} as a MariaDB Connector/J URL with its options. */
    static String url(String mysqlUrl, String connectorOptions) {
        if (!mysqlUrl.startsWith("jdbc:mysql:")) throw new IllegalArgumentException("not a jdbc:mysql: URL: " + mysqlUrl);
        String url = "jdbc:mariadb:" + mysqlUrl.substring("jdbc:mysql:".length());
        return url + (url.indexOf('?') < 0 ? "?" : "&") + connectorOptions;
    }

    /** Makes {@code st}'s next result stream: rows read as they are consumed. */
    public static void streamRows(Statement st) throws SQLException {
        st.setFetchSize(isMariaDb(st) ? STREAMED_ROWS : Integer.MIN_VALUE); // MIN_VALUE: Connector/J's sign for a streamed result
    }

    /** Makes {@code st}'s next result be read whole before the first row is returned. */
    public static void readWhole(Statement st) throws SQLException {
        st.setFetchSize(0);
    }

    /** The first AUTO_INCREMENT value the update {@code st} just ran generated, 0 if none (MySQL's OK packet). */
    public static long lastInsertId(Statement st) throws SQLException {
        if (!isMariaDb(st)) return st.unwrap(com.mysql.cj.jdbc.StatementImpl.class).getLastInsertID();
        try (var keys = st.getGeneratedKeys()) { // MariaDB Connector/J prepares every statement with RETURN_GENERATED_KEYS
            return keys.next() ? keys.getLong(1) : 0;
        }
    }

    /**
     * A backend error's message as Connector/J words it: the server's text, without MariaDB Connector/J's
     * "(conn=N) " prefix, and with Connector/J's "Data truncation: " before a class 22 error's.
     */
    static String message(SQLException e) {
        String m = e.getMessage();
        if (m == null || !m.startsWith("(conn=")) return m;
        int end = m.indexOf(") ");
        String server = end < 0 ? m : m.substring(end + 2);
        return dataException(e) ? "Data truncation: " + server : server;
    }

    private static final java.util.regex.Pattern CONNECTION_PREFIX = java.util.regex.Pattern.compile("\\(conn=\\d+\\) ");

    /**
     * What the client gets of {@code e}, a backend's error that reached the session without passing through
     * {@link Backends#located} (a SET the backend evaluated, an error the router wrapped): as Connector/J
     * would word and classify it; the router's own errors pass unchanged (HY000 where they have no state).
     */
    public static ClientError forClient(SQLException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.startsWith("(conn=")) return new ClientError(state(e), message(e));
        return new ClientError(e.getSQLState(), m.contains("(conn=") ? CONNECTION_PREFIX.matcher(m).replaceAll("") : m);
    }

    /** An error as the session sends it. */
    public record ClientError(String sqlState, String message) {
        public ClientError {
            if (sqlState == null) sqlState = "HY000";
        }
    }

    /**
     * A backend error's SQLState as Connector/J reports it, which clients of one MySQL see: where the
     * server sent the generic HY000, the state its error number stands for (1205 lock wait timeout:
     * 40001, 1062: 23000, ...). MariaDB Connector/J passes HY000 on.
     */
    public static String state(SQLException e) {
        String state = e.getSQLState();
        if (dataException(e)) return "22001"; // Connector/J reports every class 22 error as a java.sql.DataTruncation
        if ((state == null || state.isEmpty() || state.equals("HY000")) && e.getErrorCode() > 0) {
            String mapped = com.mysql.cj.exceptions.MysqlErrorNumbers.mysqlToSqlstate(e.getErrorCode());
            if (mapped != null) return mapped;
        }
        return state;
    }

    /**
     * Closes a backend connection at once, whatever its thread is doing: a blocked read ends with an
     * error, and the server stops the query when its next write fails. MariaDB Connector/J's own abort
     * cannot do that while a streamed result's read is blocked (its abort waits for the lock that read
     * holds, after a KILL that a frozen server never runs): its socket is closed first.
     */
    public static void abort(java.sql.Connection pooled) throws SQLException {
        java.sql.Connection c = pooled.unwrap(java.sql.Connection.class);
        if (c instanceof org.mariadb.jdbc.Connection mariaDb && mariaDb.getClient() instanceof org.mariadb.jdbc.client.impl.StandardClient client) {
            try {
                ((java.net.Socket) SOCKET.get(client)).close();
            } catch (java.io.IOException | RuntimeException ignored) {
                // closed or closing: the abort below ends the rest
            }
        }
        c.abort(Runnable::run);
    }

    /** MariaDB Connector/J's socket of a connection, private to its client. */
    private static final java.lang.invoke.VarHandle SOCKET;

    static {
        try {
            SOCKET = java.lang.invoke.MethodHandles.privateLookupIn(org.mariadb.jdbc.client.impl.StandardClient.class, java.lang.invoke.MethodHandles.lookup())
                    .findVarHandle(org.mariadb.jdbc.client.impl.StandardClient.class, "socket", java.net.Socket.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Column {@code i} of a backend row as Connector/J's getObject gives it, for the router's own reads of
     * table data (keys, rows it moves): MariaDB Connector/J decodes every string as UTF-8, but the
     * router's backend sessions receive each column in its own character set (character_set_results=NULL,
     * as Connector/J's), and temporal values are read as text ({@link #text}).
     */
    public static Object object(java.sql.ResultSet rs, int i) throws SQLException {
        var columns = MariaDbColumns.of(rs);
        if (columns == null || !MariaDbColumns.isText(columns[i - 1])) return rs.getObject(i);
        return MariaDbColumns.text(rs, columns, i);
    }

    /** Column {@code i} as Connector/J's getString gives it: text in the column's character set, temporal values as the server wrote them. */
    public static String text(java.sql.ResultSet rs, int i) throws SQLException {
        var columns = MariaDbColumns.of(rs);
        if (columns == null) return rs.getString(i);
        if (MariaDbColumns.isTemporal(columns[i - 1])) return MariaDbColumns.temporal(rs, i);
        return MariaDbColumns.text(rs, columns, i);
    }

    private static boolean dataException(SQLException e) {
        boolean warning = e instanceof java.sql.SQLWarning && !(e instanceof java.sql.DataTruncation); // a DataTruncation is an SQLWarning too
        return !warning && e.getSQLState() != null && e.getSQLState().startsWith("22");
    }

    /** The server's id of connection {@code c} (CONNECTION_ID(), the processlist id), as its driver learned it at connect: no round trip. */
    public static long threadId(java.sql.Connection c) throws SQLException {
        if (c.isWrapperFor(org.mariadb.jdbc.Connection.class)) return c.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
        return c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).getId();
    }

    /** SERVER_STATUS_IN_TRANS of the server status flags every OK and EOF packet carries. */
    private static final int SERVER_STATUS_IN_TRANS = 1;

    /**
     * Whether a transaction is open on {@code c}'s server session, as the status flags of the server's last answer say
     * (no round trip): set from a transaction's first statement, clear again after its COMMIT or ROLLBACK.
     */
    public static boolean inTransaction(java.sql.Connection c) throws SQLException {
        if (c.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
            return (c.unwrap(org.mariadb.jdbc.Connection.class).getContext().getServerStatus() & SERVER_STATUS_IN_TRANS) != 0;
        }
        return c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).getSession().getServerSession().inTransactionOnServer();
    }

    private static boolean isMariaDb(Statement st) throws SQLException {
        return st.isWrapperFor(org.mariadb.jdbc.Statement.class);
    }
}
