package org.lutra.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.BatchResult;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Ok;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.UpdateResult;
import org.lutra.protocol.Value;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The driver against a scripted router on a real socket: handshake, streaming, errors. */
class ProtocolConversationTest {
    private final List<ScriptedServer> servers = new ArrayList<>();

    private ScriptedServer server(ScriptedServer.Script script) throws Exception {
        var s = new ScriptedServer(script);
        servers.add(s);
        return s;
    }

    @AfterEach
    void stopServers() throws Exception {
        for (var s : servers) {
            s.close();
        }
    }

    /** Answers "SELECT ..." with a streamed Rows(count), other SQL with an update count of 1. */
    private static ScriptedServer.Script rows(int count) {
        var current = new AtomicReference<Rows>();
        return request -> switch (request.getKindCase()) {
            case EXECUTE -> {
                if (request.getExecute().getSql().startsWith("SELECT")) {
                    current.set(new Rows(count));
                    yield current.get().first(request.getExecute().getFetchSize());
                }
                yield ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder().setUpdateCount(1).setPartitions(1));
            }
            case FETCH -> current.get().fetch(request.getFetch().getFetchSize());
            case CLOSE_CURSOR, PING -> ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
            default -> null;
        };
    }

    @Test
    void logsInThroughDriverManagerAndPings() throws Exception {
        var server = server(rows(0));
        try (Connection c = DriverManager.getConnection(server.url())) {
            assertInstanceOf(LutraConnection.class, c);
            assertTrue(c.isValid(2));
            assertEquals("shop", c.getCatalog());
            assertEquals("Lutra", c.getMetaData().getDatabaseProductName()); // a router that does not name its backends
            assertEquals("0.1.0-test", c.getMetaData().getDatabaseProductVersion());
            assertEquals("app", c.getMetaData().getUserName());
        }
        var hello = server.received(ClientMessage.KindCase.HELLO).getFirst().getHello();
        assertEquals("app", hello.getUser());
        assertEquals("shop", hello.getDatabase());
        assertEquals(32, hello.getClientNonce().size());
        assertEquals(2, hello.getProtocolVersion());
        assertFalse(hello.toString().contains(ScriptedServer.PASSWORD), "the password must not cross the wire");
        assertEquals(1, server.received(ClientMessage.KindCase.PING).size());
        assertEquals(1, server.received(ClientMessage.KindCase.QUIT).size());
    }

    @Test
    void wrongPasswordSurfacesTheRoutersError28000() throws Exception {
        var server = server(rows(0));
        var e = assertThrows(SQLInvalidAuthorizationSpecException.class, () ->
                DriverManager.getConnection(server.url().replace(ScriptedServer.PASSWORD, "wrong")));
        assertEquals("28000", e.getSQLState());
        assertEquals(1045, e.getErrorCode());
        assertTrue(e.getMessage().contains("Access denied"), e.getMessage());
    }

    @Test
    void streamsManyBatchesWithFetch() throws Exception {
        var server = server(rows(10));
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.setFetchSize(3);
            var ids = new ArrayList<Integer>();
            try (ResultSet rs = s.executeQuery("SELECT id, name FROM items")) {
                assertTrue(rs.isBeforeFirst());
                while (rs.next()) {
                    ids.add(rs.getInt("ID"));
                    assertEquals("row-" + rs.getInt(1), rs.getString("name"));
                    assertEquals(ids.size(), rs.getRow());
                }
                assertTrue(rs.isAfterLast());
                assertFalse(rs.next());
            }
            assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), ids);
        }
        assertEquals(3, server.received(ClientMessage.KindCase.EXECUTE).getFirst().getExecute().getFetchSize());
        var fetches = server.received(ClientMessage.KindCase.FETCH);
        assertEquals(3, fetches.size(), "batches of 3, 3, 3, 1 need three Fetches");
        assertTrue(fetches.stream().allMatch(f -> f.getFetch().getCursorId() == Rows.CURSOR_ID));
        assertTrue(server.received(ClientMessage.KindCase.CLOSE_CURSOR).isEmpty(), "the router closed the cursor itself");
    }

    @Test
    void closingAnUnfinishedResultSendsCloseCursor() throws Exception {
        var server = server(rows(10));
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.setFetchSize(4);
            ResultSet rs = s.executeQuery("SELECT id, name FROM items");
            assertTrue(rs.next());
            rs.close();
            assertTrue(rs.isClosed());
            rs.close(); // twice is fine and sends nothing more
        }
        var closes = server.received(ClientMessage.KindCase.CLOSE_CURSOR);
        assertEquals(1, closes.size());
        assertEquals(Rows.CURSOR_ID, closes.getFirst().getCloseCursor().getCursorId());
    }

    @Test
    void closingTheStatementClosesItsOpenCursor() throws Exception {
        var server = server(rows(10));
        try (Connection c = DriverManager.getConnection(server.url())) {
            Statement s = c.createStatement();
            s.setFetchSize(2);
            ResultSet rs = s.executeQuery("SELECT id, name FROM items");
            s.close();
            assertTrue(rs.isClosed());
        }
        assertEquals(1, server.received(ClientMessage.KindCase.CLOSE_CURSOR).size());
    }

    @Test
    void maxRowsIsSentAndEnforcedOnTheClient() throws Exception {
        var server = server(rows(10)); // this script ignores max_rows on purpose
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.setFetchSize(3);
            s.setMaxRows(4);
            int n = 0;
            try (ResultSet rs = s.executeQuery("SELECT id, name FROM items")) {
                while (rs.next()) {
                    n++;
                }
            }
            assertEquals(4, n);
        }
        assertEquals(4, server.received(ClientMessage.KindCase.EXECUTE).getFirst().getExecute().getMaxRows());
        assertEquals(1, server.received(ClientMessage.KindCase.CLOSE_CURSOR).size(), "the cut-off cursor is closed");
    }

    @Test
    void preparedStatementSendsParametersAsValues() throws Exception {
        var server = server(rows(2));
        String sql = "SELECT id, name FROM items WHERE id = ? AND name <> '?' AND born = ?";
        try (Connection c = DriverManager.getConnection(server.url()); PreparedStatement ps = c.prepareStatement(sql)) {
            assertEquals(2, ps.getParameterMetaData().getParameterCount());
            assertNull(ps.getMetaData());
            ps.setInt(1, 5);
            var missing = assertThrows(SQLException.class, ps::executeQuery);
            assertEquals("07001", missing.getSQLState());
            assertTrue(missing.getMessage().contains("parameter 2"), missing.getMessage());
            ps.setObject(2, LocalDate.of(2024, 2, 29));
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
            }
            assertEquals(2, ps.getMetaData().getColumnCount());
        }
        var execute = server.received(ClientMessage.KindCase.EXECUTE).getFirst().getExecute();
        assertEquals(sql, execute.getSql());
        assertEquals(List.of(Value.newBuilder().setIntValue(5).build(), Value.newBuilder().setDateValue("2024-02-29").build()),
                execute.getParamsList());
    }

    @Test
    void serverErrorsMapToSqlExceptionSubclassesAndKeepTheConnection() throws Exception {
        var server = server(request -> switch (request.getKindCase()) {
            case EXECUTE -> switch (request.getExecute().getSql()) {
                case "SELECT nope" -> ServerMessage.newBuilder().setError(ScriptedServer.error("42S02", 1146, "Table 'shop.nope' doesn't exist"));
                case "INSERT dup" -> ServerMessage.newBuilder().setError(ScriptedServer.error("23000", 1062, "Duplicate entry '1'"));
                case "CREATE SECONDARY LOOKUP x" -> ServerMessage.newBuilder().setError(ScriptedServer.error(Refusal.SQL_STATE, Refusal.VENDOR_CODE, "Lutra does not support x"));
                default -> ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder().setUpdateCount(3));
            };
            default -> null;
        });
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            var syntax = assertThrows(SQLSyntaxErrorException.class, () -> s.executeQuery("SELECT nope"));
            assertEquals("42S02", syntax.getSQLState());
            assertEquals(1146, syntax.getErrorCode());
            assertEquals("Table 'shop.nope' doesn't exist", syntax.getMessage());
            assertInstanceOf(SQLIntegrityConstraintViolationException.class,
                    assertThrows(SQLException.class, () -> s.executeUpdate("INSERT dup")));
            // the router's refusals are MySQL's "not supported yet" (42000, 1235), a syntax-error class as Connector/J maps it
            var refused = assertThrows(SQLSyntaxErrorException.class, () -> s.execute("CREATE SECONDARY LOOKUP x"));
            assertEquals(1235, refused.getErrorCode());
            assertEquals(3, s.executeUpdate("UPDATE ok"));
            assertFalse(c.isClosed());
        }
    }

    @Test
    void executeQueryOnAnUpdateAndExecuteUpdateOnAQueryFail() throws Exception {
        var server = server(rows(10));
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.setFetchSize(2);
            // as Connector/J: refused before anything is sent, so the UPDATE does not run
            var refused = assertThrows(SQLException.class, () -> s.executeQuery("UPDATE items SET x = 1"));
            assertEquals("S1009", refused.getSQLState());
            assertEquals("Statement.executeQuery() cannot issue statements that do not produce result sets.", refused.getMessage());
            assertTrue(server.received(ClientMessage.KindCase.EXECUTE).stream().noneMatch(m -> m.getExecute().getSql().startsWith("UPDATE")),
                    "the UPDATE was not sent");
            try (var p = c.prepareStatement("INSERT INTO items VALUES (?)")) {
                p.setInt(1, 1);
                assertThrows(SQLException.class, p::executeQuery);
            }
            assertTrue(server.received(ClientMessage.KindCase.EXECUTE).stream().noneMatch(m -> m.getExecute().getSql().startsWith("INSERT")),
                    "the INSERT was not sent");
            assertThrows(SQLException.class, () -> s.executeUpdate("SELECT id, name FROM items"));
            assertEquals(1, server.received(ClientMessage.KindCase.CLOSE_CURSOR).size(), "the query's cursor is closed");
            assertTrue(s.execute("SELECT id, name FROM items"));
            assertEquals(-1, s.getUpdateCount());
            assertFalse(s.getMoreResults());
            assertFalse(s.execute("DELETE FROM items"));
            assertEquals(1, s.getUpdateCount());
            assertNull(s.getResultSet());
        }
    }

    @Test
    void batchIsOneRequestAndStopsAtTheFirstFailure() throws Exception {
        // the router's part, scripted: entries run in order, the first failure ends the batch
        var server = server(request -> {
            var batch = request.getExecuteBatch();
            var result = BatchResult.newBuilder();
            for (var entry : batch.getEntriesList()) {
                if (entry.getValues(0).getIntValue() == 2) {
                    return ServerMessage.newBuilder().setBatchResult(result.setError(ScriptedServer.error("23000", 1062, "Duplicate entry '2'")));
                }
                result.addUpdateCounts(1);
            }
            for (String ignored : batch.getStatementsList()) result.addUpdateCounts(3);
            return ServerMessage.newBuilder().setBatchResult(result);
        });
        try (Connection c = DriverManager.getConnection(server.url());
             PreparedStatement ps = c.prepareStatement("INSERT INTO items (id) VALUES (?)")) {
            for (int i = 1; i <= 3; i++) {
                ps.setInt(1, i);
                ps.addBatch();
            }
            var e = assertThrows(BatchUpdateException.class, ps::executeBatch);
            assertArrayEquals(new int[] {1}, e.getUpdateCounts());
            assertEquals("23000", e.getSQLState());
            assertEquals(1062, e.getErrorCode());
            assertTrue(e.getMessage().startsWith("batch entry 2 failed"), e.getMessage());
            var sent = server.received(ClientMessage.KindCase.EXECUTE_BATCH);
            assertEquals(1, sent.size(), "one request for the whole batch");
            assertEquals("INSERT INTO items (id) VALUES (?)", sent.getFirst().getExecuteBatch().getSql());
            assertEquals(3, sent.getFirst().getExecuteBatch().getEntriesCount());
            ps.setInt(1, 4);
            ps.addBatch();
            assertArrayEquals(new int[] {1}, ps.executeBatch(), "the failed batch was cleared");
            try (var st = c.createStatement()) {
                st.addBatch("UPDATE items SET n = 1");
                st.addBatch("DELETE FROM items");
                assertArrayEquals(new int[] {3, 3}, st.executeBatch());
                assertArrayEquals(new int[0], st.executeBatch(), "an empty batch");
            }
            assertEquals(List.of("UPDATE items SET n = 1", "DELETE FROM items"),
                    server.received(ClientMessage.KindCase.EXECUTE_BATCH).get(2).getExecuteBatch().getStatementsList());
        }
    }

    @Test
    void rejectsAFrameLargerThanItsLimitAndClosesTheConnection() throws Exception {
        String big = "x".repeat(4000);
        var server = server(request -> ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder()
                .setUpdateCount(1)).setError(ScriptedServer.error("HY000", 0, big)));
        try (Connection c = DriverManager.getConnection(server.url() + "&maxFrameBytes=1024"); Statement s = c.createStatement()) {
            var e = assertThrows(SQLNonTransientConnectionException.class, () -> s.executeUpdate("UPDATE t SET a = 1"));
            assertEquals("08S01", e.getSQLState());
            assertTrue(e.getMessage().contains("exceeds the limit of 1024 bytes"), e.getMessage());
            assertTrue(c.isClosed());
        }
    }

    @Test
    void aBrokenSocketClosesTheConnectionWith08S01() throws Exception {
        var server = server(request -> null); // hangs up on the first request
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            var e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1"));
            assertEquals("08S01", e.getSQLState());
            assertTrue(c.isClosed());
            assertFalse(c.isValid(1));
            assertThrows(SQLException.class, c::createStatement);
        }
    }

    @Test
    void aMismatchedRequestIdIsAProtocolViolation() throws Exception {
        var server = server(rows(1));
        server.requestIdSkew = 5;
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            var e = assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE t SET a = 1"));
            assertEquals("08P01", e.getSQLState());
            assertTrue(c.isClosed());
        }
    }

    /**
     * The router stops a statement at its timeout (sent with it) and answers; one that does not
     * answer even {@link LutraStatement#ROUTER_GRACE_MS} later is abandoned, the connection kept.
     */
    @Test
    void aQueryTimeoutAbandonsTheRequestButKeepsTheConnection() throws Exception {
        var server = server(request -> {
            if (request.hasExecute() && request.getExecute().getSql().equals("SELECT SLEEP(2)")) {
                assertEquals(1_000, request.getExecute().getTimeoutMs(), "the timeout travels with the statement");
                Thread.sleep(1_000 + LutraStatement.ROUTER_GRACE_MS + 500);
                return new Rows(5).first(2); // opens a cursor nobody will read
            }
            return rows(1).answer(request);
        });
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.setQueryTimeout(1);
            var e = assertThrows(SQLTimeoutException.class, () -> s.executeQuery("SELECT SLEEP(2)"));
            assertEquals("HYT00", e.getSQLState());
            assertFalse(c.isClosed());
            assertEquals(1, s.executeUpdate("UPDATE t SET a = 1"));
        }
        var closes = server.received(ClientMessage.KindCase.CLOSE_CURSOR);
        assertEquals(1, closes.size(), "the abandoned result's cursor is closed");
    }

    @Test
    void refusedConnectionIs08001AndTheNextHostIsTried() throws Exception {
        int deadPort;
        try (var probe = new java.net.ServerSocket(0)) {
            deadPort = probe.getLocalPort();
        }
        String dead = "jdbc:lutra://127.0.0.1:" + deadPort + "/shop?user=app&password=x&connectTimeout=2000";
        var e = assertThrows(SQLNonTransientConnectionException.class, () -> DriverManager.getConnection(dead));
        assertEquals("08001", e.getSQLState());

        var server = server(rows(0));
        String twoHosts = server.url().replace("127.0.0.1:" + server.port(), "127.0.0.1:" + deadPort + ",127.0.0.1:" + server.port());
        try (Connection c = DriverManager.getConnection(twoHosts)) {
            assertTrue(c.isValid(1));
        }
    }

    @Test
    void otherDatabasesAreRefusedAndResultSetKindsGivenAsJdbcSays() throws Exception {
        var server = server(rows(0));
        try (Connection c = DriverManager.getConnection(server.url())) {
            var other = assertThrows(java.sql.SQLSyntaxErrorException.class, () -> c.setCatalog("other"));
            assertTrue(org.lutra.protocol.Refusal.is(other), "a refusal (42000/1235), not 0A000, which pools evict for: " + other);
            c.setCatalog("shop");
            // TYPE_SCROLL_SENSITIVE: the closest type, TYPE_SCROLL_INSENSITIVE, and a warning on the connection (JDBC's rule)
            assertNull(c.getWarnings());
            try (var st = c.createStatement(ResultSet.TYPE_SCROLL_SENSITIVE, ResultSet.CONCUR_READ_ONLY)) {
                assertEquals(ResultSet.TYPE_SCROLL_INSENSITIVE, st.getResultSetType());
                assertNotNull(c.getWarnings(), "the connection says the type was changed");
                assertTrue(c.getWarnings().getMessage().contains("TYPE_SCROLL_SENSITIVE"), c.getWarnings().getMessage());
                c.clearWarnings();
                assertNull(c.getWarnings());
            }
            assertFalse(c.getMetaData().supportsResultSetType(ResultSet.TYPE_SCROLL_SENSITIVE));
            assertTrue(c.getMetaData().supportsResultSetConcurrency(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE));
            var invalid = assertThrows(SQLException.class, () -> c.createStatement(12345, ResultSet.CONCUR_READ_ONLY));
            assertEquals("HY024", invalid.getSQLState());
        }
    }
}
