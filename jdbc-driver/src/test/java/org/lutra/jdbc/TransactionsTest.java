package org.lutra.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Ok;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.SessionStatus;
import org.lutra.protocol.UpdateResult;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransactionRollbackException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import static java.sql.Connection.TRANSACTION_NONE;
import static java.sql.Connection.TRANSACTION_READ_COMMITTED;
import static java.sql.Connection.TRANSACTION_READ_UNCOMMITTED;
import static java.sql.Connection.TRANSACTION_REPEATABLE_READ;
import static java.sql.Connection.TRANSACTION_SERIALIZABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transaction control over the protocol: which SQL each JDBC call sends, and that the getters
 * follow the {@code status} the router puts on its replies. The scripted router does not
 * interpret SQL: each test says which status the next replies carry, as a router would after
 * running that SQL.
 */
class TransactionsTest {
    private ScriptedServer server;
    private Connection connection;
    /** Put on every reply while set; null = replies without status (an older router, or before login). */
    private final AtomicReference<SessionStatus> status = new AtomicReference<>();
    /** SQL answered with an Error instead of an update count. */
    private final Map<String, org.lutra.protocol.Error> errors = new ConcurrentHashMap<>();

    @BeforeEach
    void connect() throws Exception {
        var rows = new AtomicReference<Rows>();
        server = new ScriptedServer(request -> {
            ServerMessage.Builder answer = switch (request.getKindCase()) {
                case EXECUTE -> {
                    String sql = request.getExecute().getSql();
                    if (errors.containsKey(sql)) {
                        yield ServerMessage.newBuilder().setError(errors.get(sql));
                    }
                    if (sql.startsWith("SELECT")) {
                        rows.set(new Rows(10));
                        yield rows.get().first(request.getExecute().getFetchSize());
                    }
                    yield ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder().setUpdateCount(0).setPartitions(1));
                }
                case FETCH -> rows.get().fetch(request.getFetch().getFetchSize());
                case CLOSE_CURSOR, PING -> ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
                default -> null;
            };
            var current = status.get();
            if (answer != null && current != null) {
                answer.setStatus(current);
            }
            return answer;
        });
        connection = DriverManager.getConnection(server.url());
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        server.close();
    }

    private static SessionStatus status(boolean autocommit, boolean inTransaction, int isolation) {
        return SessionStatus.newBuilder().setAutocommit(autocommit).setInTransaction(inTransaction).setIsolation(isolation).build();
    }

    private List<String> sqlSent() {
        return server.received(ClientMessage.KindCase.EXECUTE).stream().map(m -> m.getExecute().getSql()).toList();
    }

    /** Requests after login, as "EXECUTE sql" or the kind's name. */
    private List<String> conversation() {
        return server.received().stream().filter(m -> !m.hasHello())
                .map(m -> m.hasExecute() ? "EXECUTE " + m.getExecute().getSql() : m.getKindCase().name()).toList();
    }

    @Test
    void beforeAnyStatusTheConnectionIsInAutoCommitWithRepeatableRead() throws Exception {
        assertTrue(connection.getAutoCommit());
        assertEquals(TRANSACTION_REPEATABLE_READ, connection.getTransactionIsolation());
        connection.setAutoCommit(true); // unchanged: JDBC says nothing happens
        var commit = assertThrows(SQLException.class, connection::commit);
        assertEquals("25000", commit.getSQLState());
        assertTrue(commit.getMessage().contains("auto-commit mode"), commit.getMessage());
        assertEquals("25000", assertThrows(SQLException.class, connection::rollback).getSQLState());
        assertEquals(List.of(), sqlSent());
        connection.createStatement().executeUpdate("UPDATE t SET x = 1"); // a reply without status changes nothing
        assertTrue(connection.getAutoCommit());
    }

    @Test
    void setAutoCommitSendsSetAutocommitOnlyWhenTheModeChanges() throws Exception {
        status.set(status(false, false, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(false);
        assertFalse(connection.getAutoCommit());
        connection.setAutoCommit(false);

        status.set(status(true, false, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(true);
        assertTrue(connection.getAutoCommit());
        connection.setAutoCommit(true);
        assertEquals(List.of("SET autocommit = 0", "SET autocommit = 1"), sqlSent());
    }

    @Test
    void commitAndRollbackSendCommitAndRollbackOutsideAutoCommit() throws Exception {
        status.set(status(false, false, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(false);
        status.set(status(false, true, TRANSACTION_REPEATABLE_READ));
        connection.createStatement().executeUpdate("INSERT INTO t VALUES (1)");
        status.set(status(false, false, TRANSACTION_REPEATABLE_READ));
        connection.commit();
        connection.rollback(); // with nothing open: still sent, MySQL accepts it
        assertEquals(List.of("SET autocommit = 0", "INSERT INTO t VALUES (1)", "COMMIT", "ROLLBACK"), sqlSent());
    }

    @Test
    void theApplicationsOwnTransactionSqlIsReflectedByTheGetters() throws Exception {
        var s = connection.createStatement();
        status.set(status(false, false, TRANSACTION_READ_COMMITTED));
        s.execute("set autocommit=0; -- the router, not the driver, understands this");
        assertFalse(connection.getAutoCommit());
        assertEquals(TRANSACTION_READ_COMMITTED, connection.getTransactionIsolation());
        connection.commit(); // no 25000: the router said auto-commit is off

        status.set(status(true, true, TRANSACTION_SERIALIZABLE)); // e.g. START TRANSACTION in auto-commit mode
        try (ResultSet rs = s.executeQuery("SELECT id, name FROM items")) { // a ResultSet reply counts too
            assertTrue(rs.next());
        }
        assertTrue(connection.getAutoCommit());
        assertEquals(TRANSACTION_SERIALIZABLE, connection.getTransactionIsolation());
        assertTrue(session().transactionStatus().inTransaction());
    }

    @Test
    void setTransactionIsolationSendsTheLevelsSqlName() throws Exception {
        int[] levels = {TRANSACTION_READ_UNCOMMITTED, TRANSACTION_READ_COMMITTED, TRANSACTION_REPEATABLE_READ, TRANSACTION_SERIALIZABLE};
        for (int level : levels) {
            status.set(status(true, false, level));
            connection.setTransactionIsolation(level);
            assertEquals(level, connection.getTransactionIsolation());
        }
        assertEquals(List.of(
                "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
                "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE"), sqlSent());

        var none = assertThrows(SQLException.class, () -> connection.setTransactionIsolation(TRANSACTION_NONE));
        assertEquals("HY024", none.getSQLState());
        assertTrue(none.getMessage().contains("TRANSACTION_NONE cannot be set"), none.getMessage());
        assertEquals("HY024", assertThrows(SQLException.class, () -> connection.setTransactionIsolation(3)).getSQLState());
        assertEquals(4, sqlSent().size(), "refused levels send nothing");
    }

    @Test
    void aStatusWithoutIsolationKeepsTheLevel() throws Exception {
        status.set(status(true, false, TRANSACTION_SERIALIZABLE));
        connection.createStatement().execute("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        status.set(SessionStatus.newBuilder().setAutocommit(false).build()); // isolation 0, as proto3 reads unset
        connection.createStatement().execute("SET autocommit = 0");
        assertFalse(connection.getAutoCommit());
        assertEquals(TRANSACTION_SERIALIZABLE, connection.getTransactionIsolation());
    }

    @Test
    void errorRepliesCarryTheStatusToo() throws Exception {
        status.set(status(false, true, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(false);
        connection.createStatement().executeUpdate("UPDATE a SET x = 1");
        assertTrue(session().transactionStatus().inTransaction());

        // the backend rolled the transaction back (deadlock): the reply says so
        errors.put("UPDATE b SET x = 1", ScriptedServer.error("40001", 1213, "Deadlock found when trying to get lock").build());
        status.set(status(false, false, TRANSACTION_REPEATABLE_READ));
        var deadlock = assertThrows(SQLTransactionRollbackException.class, () -> connection.createStatement().executeUpdate("UPDATE b SET x = 1"));
        assertEquals(1213, deadlock.getErrorCode());
        assertFalse(session().transactionStatus().inTransaction());

        errors.put("COMMIT", ScriptedServer.error("40000", 0, "transaction rolled back: a participant failed to prepare").build());
        var commit = assertThrows(SQLTransactionRollbackException.class, connection::commit);
        assertEquals("40000", commit.getSQLState());
        assertFalse(connection.isClosed(), "a failed commit keeps the connection");
        assertFalse(connection.getAutoCommit());
    }

    @Test
    void commitAndRollbackCloseResultsThatDoNotHoldOverCommit() throws Exception {
        status.set(status(false, true, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(false);
        var holding = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, ResultSet.HOLD_CURSORS_OVER_COMMIT);
        holding.setFetchSize(2);
        ResultSet held = holding.executeQuery("SELECT id, name FROM items");
        var closing = connection.createStatement();
        closing.setFetchSize(2);
        ResultSet closed = closing.executeQuery("SELECT id, name FROM items");
        assertTrue(closed.next());

        connection.commit();
        assertTrue(closed.isClosed());
        assertFalse(held.isClosed());
        assertFalse(closing.isClosed(), "the statement stays usable");
        assertEquals(List.of("EXECUTE SET autocommit = 0", "EXECUTE SELECT id, name FROM items", "EXECUTE SELECT id, name FROM items",
                "CLOSE_CURSOR", "EXECUTE COMMIT"), conversation());

        ResultSet again = closing.executeQuery("SELECT id, name FROM items");
        connection.rollback();
        assertTrue(again.isClosed());
    }

    @Test
    void closingWithATransactionOpenOnlyQuits() throws Exception {
        status.set(status(false, true, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(false);
        connection.createStatement().executeUpdate("INSERT INTO t VALUES (1)");
        connection.close();
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (server.received(ClientMessage.KindCase.QUIT).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5); // the server reads the Quit after close() returns
        }
        assertEquals(List.of("EXECUTE SET autocommit = 0", "EXECUTE INSERT INTO t VALUES (1)", "QUIT"), conversation());
    }

    @Test
    void savepointsAreSqlForTheRouterAndReadOnlyIsTheSessions() throws Exception {
        status.set(status(true, false, TRANSACTION_REPEATABLE_READ));
        var outside = assertThrows(SQLException.class, () -> connection.setSavepoint("s0"));
        assertEquals("25000", outside.getSQLState(), "JDBC: no savepoint in auto-commit mode");
        status.set(status(false, true, TRANSACTION_REPEATABLE_READ));
        connection.setAutoCommit(false);
        var unnamed = connection.setSavepoint();
        var named = connection.setSavepoint("odd`name");
        assertEquals("odd`name", named.getSavepointName());
        assertThrows(SQLException.class, named::getSavepointId);
        assertThrows(SQLException.class, unnamed::getSavepointName);
        connection.rollback(unnamed);
        connection.releaseSavepoint(named);
        assertEquals("HY024", assertThrows(SQLException.class, () -> connection.rollback(null)).getSQLState());
        connection.setReadOnly(true);
        assertTrue(connection.isReadOnly());
        connection.setReadOnly(true);
        connection.setReadOnly(false);
        assertFalse(connection.isReadOnly());
        String id = "lutra_savepoint_" + unnamed.getSavepointId();
        assertEquals(List.of("SET autocommit = 0", "SAVEPOINT `" + id + "`", "SAVEPOINT `odd``name`", "ROLLBACK TO SAVEPOINT `" + id + "`",
                        "RELEASE SAVEPOINT `odd``name`", "SET SESSION TRANSACTION READ ONLY", "SET SESSION TRANSACTION READ WRITE"), sqlSent(),
                "savepoints are SQL the router runs; read-only is sent when it changes");
    }

    @Test
    void metaDataDescribesMySqlStyleTransactions() throws Exception {
        var md = connection.getMetaData();
        assertTrue(md.supportsTransactions());
        assertTrue(md.supportsMultipleTransactions());
        assertEquals(TRANSACTION_REPEATABLE_READ, md.getDefaultTransactionIsolation());
        for (int level : new int[] {TRANSACTION_READ_UNCOMMITTED, TRANSACTION_READ_COMMITTED, TRANSACTION_REPEATABLE_READ, TRANSACTION_SERIALIZABLE}) {
            assertTrue(md.supportsTransactionIsolationLevel(level), "level " + level);
        }
        assertFalse(md.supportsTransactionIsolationLevel(TRANSACTION_NONE));
        assertTrue(md.supportsSavepoints());
        assertTrue(md.dataDefinitionCausesTransactionCommit());
        assertFalse(md.dataDefinitionIgnoredInTransactions());
        assertFalse(md.supportsDataDefinitionAndDataManipulationTransactions());
        assertFalse(md.supportsOpenCursorsAcrossCommit());
        assertTrue(md.supportsOpenStatementsAcrossRollback());
    }

    private Session session() throws SQLException {
        return connection.unwrap(LutraConnection.class).session();
    }
}
