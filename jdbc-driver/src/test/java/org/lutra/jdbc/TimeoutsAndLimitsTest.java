package org.lutra.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Ok;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.UpdateResult;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Frame limits in both directions and the three timeouts: connect/login, socket, query. */
class TimeoutsAndLimitsTest {
    private ScriptedServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRequestBiggerThanTheRoutersLimitIsRefusedBeforeSending() throws Exception {
        server = new ScriptedServer(request -> ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder().setUpdateCount(1)));
        server.maxFrameBytes = 2048; // announced in HelloOk
        try (Connection c = DriverManager.getConnection(server.url());
             PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?)")) {
            ps.setString(1, "x".repeat(5000));
            var e = assertThrows(SQLException.class, ps::executeUpdate);
            assertEquals("54000", e.getSQLState());
            assertTrue(e.getMessage().contains("2048"), e.getMessage());
            assertFalse(c.isClosed(), "nothing was sent, the session is intact");
            ps.setString(1, "small");
            assertEquals(1, ps.executeUpdate());
        }
        assertEquals(1, server.received(ClientMessage.KindCase.EXECUTE).size());
    }

    @Test
    void theSocketTimeoutEndsTheConnection() throws Exception {
        server = new ScriptedServer(request -> {
            Thread.sleep(1000);
            return ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder().setUpdateCount(1));
        });
        try (Connection c = DriverManager.getConnection(server.url() + "&socketTimeout=200"); Statement s = c.createStatement()) {
            var e = assertThrows(SQLTimeoutException.class, () -> s.executeUpdate("UPDATE t SET a = 1"));
            assertEquals("08S01", e.getSQLState());
            assertTrue(c.isClosed());
        }
    }

    @Test
    void aTimedOutFetchStopsTheResultAndCloseStillClosesTheCursor() throws Exception {
        var rows = new Rows(10);
        server = new ScriptedServer(request -> switch (request.getKindCase()) {
            case EXECUTE -> rows.first(request.getExecute().getFetchSize());
            case FETCH -> {
                Thread.sleep(1500);
                yield rows.fetch(0);
            }
            default -> ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
        });
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.setFetchSize(2);
            s.setQueryTimeout(1);
            ResultSet rs = s.executeQuery("SELECT id, name FROM items");
            assertTrue(rs.next());
            assertTrue(rs.next());
            assertThrows(SQLTimeoutException.class, rs::next);
            assertThrows(SQLException.class, rs::next, "a skipped batch must not go unnoticed");
            rs.close();
            assertTrue(c.isValid(5), "the late batch was drained, the session goes on");
        }
        var closes = server.received(ClientMessage.KindCase.CLOSE_CURSOR);
        assertEquals(1, closes.size());
        assertEquals(Rows.CURSOR_ID, closes.getFirst().getCloseCursor().getCursorId());
    }

    @Test
    void aPeerThatNeverSendsAChallengeTimesOutTheConnect() throws Exception {
        try (var silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try {
                    silent.accept(); // accept and say nothing
                } catch (Exception ignored) {
                    // test over
                }
            });
            long start = System.nanoTime();
            String url = "jdbc:lutra://127.0.0.1:" + silent.getLocalPort() + "/shop?user=a&password=b&connectTimeout=300";
            var e = assertThrows(SQLException.class, () -> DriverManager.getConnection(url));
            assertEquals("08001", e.getSQLState());
            assertTrue(System.nanoTime() - start < 5_000_000_000L);
        }
    }
}
