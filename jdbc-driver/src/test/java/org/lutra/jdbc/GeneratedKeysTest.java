package org.lutra.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.BatchResult;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Error;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.UpdateResult;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The driver's generated-keys surface against a scripted router: which calls ask for keys
 * (Execute/ExecuteBatch.return_generated_keys), and getGeneratedKeys' answer — Connector/J's shape
 * (one GENERATED_KEY column, one row per key), its refusal when keys were not asked for.
 */
class GeneratedKeysTest {
    private ScriptedServer server;
    private Connection connection;
    /** The next key the scripted router hands out; each INSERT row (counted by "(" after VALUES) gets one. */
    private final AtomicLong nextKey = new AtomicLong(100);

    @BeforeEach
    void connect() throws Exception {
        server = new ScriptedServer(request -> switch (request.getKindCase()) {
            case EXECUTE -> {
                var update = UpdateResult.newBuilder().setPartitions(1);
                long rows = rows(request.getExecute().getSql());
                update.setUpdateCount(rows);
                // a router sends keys only when asked: the driver must not rely on them otherwise
                if (request.getExecute().getReturnGeneratedKeys()) for (int i = 0; i < rows; i++) update.addGeneratedKeys(nextKey.getAndIncrement());
                yield ServerMessage.newBuilder().setUpdateResult(update);
            }
            case EXECUTE_BATCH -> {
                var batch = request.getExecuteBatch();
                var result = BatchResult.newBuilder();
                int entries = batch.getStatementsCount() + batch.getEntriesCount();
                for (int i = 0; i < entries; i++) {
                    String sql = batch.getStatementsCount() > 0 ? batch.getStatements(i) : batch.getSql();
                    if (sql.contains("fail") && i == 1) {
                        result.setError(Error.newBuilder().setSqlState("23000").setVendorCode(1062).setMessage("Duplicate entry"));
                        break;
                    }
                    long rows = rows(sql);
                    result.addUpdateCounts(rows);
                    if (batch.getReturnGeneratedKeys()) for (int r = 0; r < rows; r++) result.addGeneratedKeys(nextKey.getAndIncrement());
                }
                yield ServerMessage.newBuilder().setBatchResult(result);
            }
            default -> null;
        });
        connection = DriverManager.getConnection(server.url());
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        server.close();
    }

    private static long rows(String sql) {
        if (!sql.startsWith("INSERT")) return 0;
        return sql.substring(sql.indexOf("VALUES")).chars().filter(c -> c == '(').count();
    }

    private List<Boolean> asked() {
        var out = new ArrayList<Boolean>();
        for (var m : server.received()) {
            if (m.hasExecute()) out.add(m.getExecute().getReturnGeneratedKeys());
            if (m.hasExecuteBatch()) out.add(m.getExecuteBatch().getReturnGeneratedKeys());
        }
        return out;
    }

    private static List<Long> keys(ResultSet rs) throws SQLException {
        var out = new ArrayList<Long>();
        try (rs) {
            assertEquals(1, rs.getMetaData().getColumnCount());
            assertEquals("GENERATED_KEY", rs.getMetaData().getColumnLabel(1));
            assertEquals(Types.BIGINT, rs.getMetaData().getColumnType(1));
            while (rs.next()) out.add(rs.getLong("GENERATED_KEY"));
        }
        return out;
    }

    @Test
    void statementCallsAskForKeysOnlyWhenTold() throws SQLException {
        try (var st = connection.createStatement()) {
            st.executeUpdate("INSERT INTO t (v) VALUES (1)");
            var notAsked = assertThrows(SQLException.class, st::getGeneratedKeys);
            assertEquals("S1009", notAsked.getSQLState(), "as Connector/J: keys were not requested");
            assertEquals(2, st.executeUpdate("INSERT INTO t (v) VALUES (1), (2)", Statement.RETURN_GENERATED_KEYS));
            assertEquals(List.of(100L, 101L), keys(st.getGeneratedKeys()));
            st.execute("INSERT INTO t (v) VALUES (3)", new int[] {1});
            assertEquals(List.of(102L), keys(st.getGeneratedKeys()));
            st.executeLargeUpdate("INSERT INTO t (v) VALUES (4)", new String[] {"id"});
            assertEquals(List.of(103L), keys(st.getGeneratedKeys()));
            st.executeUpdate("UPDATE t SET v = 0", Statement.RETURN_GENERATED_KEYS);
            assertEquals(List.of(), keys(st.getGeneratedKeys()), "a statement that inserted nothing: an empty result set");
            st.executeUpdate("INSERT INTO t (v) VALUES (5)", Statement.NO_GENERATED_KEYS);
            assertThrows(SQLException.class, st::getGeneratedKeys);
            assertEquals("HY024", assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO t (v) VALUES (6)", 7)).getSQLState());
        }
        assertEquals(List.of(false, true, true, true, true, false), asked());
    }

    @Test
    void aPreparedStatementAsksWhenPreparedToAndOnlyThen() throws SQLException {
        for (var ps : List.of(connection.prepareStatement("INSERT INTO t (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS),
                connection.prepareStatement("INSERT INTO t (v) VALUES (?)", new int[] {1}),
                connection.prepareStatement("INSERT INTO t (v) VALUES (?)", new String[] {"id"}))) {
            try (ps) {
                ps.setInt(1, 1);
                ps.executeUpdate();
                assertEquals(1, keys(ps.getGeneratedKeys()).size());
                assertThrows(SQLException.class, () -> ps.executeUpdate("INSERT INTO t (v) VALUES (2)", Statement.RETURN_GENERATED_KEYS),
                        "a PreparedStatement runs its own SQL");
            }
        }
        try (var ps = connection.prepareStatement("INSERT INTO t (v) VALUES (?)")) {
            ps.setInt(1, 1);
            ps.executeUpdate();
            assertEquals("S1009", assertThrows(SQLException.class, ps::getGeneratedKeys).getSQLState());
        }
        assertEquals(List.of(true, true, true, false), asked());
        assertTrue(connection.getMetaData().supportsGetGeneratedKeys());
    }

    @Test
    void batchesGiveOneKeyPerRowInOrderAStatementsBatchAlwaysAsConnectorJDoes() throws SQLException {
        try (var st = connection.createStatement()) {
            st.addBatch("INSERT INTO t (v) VALUES (1)");
            st.addBatch("INSERT INTO t (v) VALUES (2), (3)");
            st.addBatch("UPDATE t SET v = 0");
            assertArrayEquals(new int[] {1, 2, 0}, st.executeBatch());
            assertEquals(List.of(100L, 101L, 102L), keys(st.getGeneratedKeys()));
        }
        try (var ps = connection.prepareStatement("INSERT INTO t (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.addBatch();
            }
            ps.executeBatch();
            assertEquals(List.of(103L, 104L, 105L), keys(ps.getGeneratedKeys()));
        }
        try (var ps = connection.prepareStatement("INSERT INTO t (v) VALUES (?)")) {
            ps.setInt(1, 1);
            ps.addBatch();
            ps.executeBatch();
            assertThrows(SQLException.class, ps::getGeneratedKeys, "not prepared to return keys");
        }
        assertEquals(List.of(true, true, false), asked());
    }

    @Test
    void aFailedBatchKeepsTheKeysOfTheEntriesBeforeTheFailure() throws SQLException {
        try (var st = connection.createStatement()) {
            st.addBatch("INSERT INTO t (v) VALUES (1), (2) -- fail");
            st.addBatch("INSERT INTO t (v) VALUES (3) -- fail");
            var e = assertThrows(BatchUpdateException.class, st::executeBatch);
            assertArrayEquals(new int[] {2}, e.getUpdateCounts());
            assertEquals(List.of(100L, 101L), keys(st.getGeneratedKeys()));
        }
    }
}
