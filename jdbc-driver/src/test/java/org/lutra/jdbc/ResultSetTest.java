package org.lutra.jdbc;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.Column;
import org.lutra.protocol.Ok;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.UpdateResult;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Getters, metadata and cursor position over one typed result from the scripted router. */
class ResultSetTest {
    private static final String UUID_TEXT = "123e4567-e89b-12d3-a456-426614174000";
    private ScriptedServer server;
    private Connection connection;

    private static Column col(String name, int type, String typeName, boolean signed) {
        return Column.newBuilder().setName(name).setLabel(name.toUpperCase()).setTable("t").setJdbcType(type)
                .setTypeName(typeName).setPrecision(10).setScale(type == Types.DECIMAL ? 2 : 0).setSigned(signed)
                .setNullable(true).build();
    }

    private static ServerMessage.Builder typedResult() {
        var header = org.lutra.protocol.ResultSet.newBuilder()
                .addColumns(col("n", Types.INTEGER, "INT", true))
                .addColumns(col("price", Types.DECIMAL, "DECIMAL", true))
                .addColumns(col("name", Types.VARCHAR, "VARCHAR", false))
                .addColumns(col("born", Types.DATE, "DATE", false))
                .addColumns(col("seen", Types.TIMESTAMP, "DATETIME", false))
                .addColumns(col("ratio", Types.DOUBLE, "DOUBLE", true))
                .addColumns(col("blob", Types.VARBINARY, "VARBINARY", false))
                .addColumns(col("n", Types.BIGINT, "BIGINT", true)) // duplicate label: the first wins
                .addColumns(col("id", Types.CHAR, "CHAR", false));
        var row = Row.newBuilder()
                .addValues(Value.newBuilder().setIntValue(7))
                .addValues(Value.newBuilder().setDecimalValue("12.00"))
                .addValues(Value.newBuilder().setStringValue("Ann"))
                .addValues(Value.newBuilder().setDateValue("2024-02-29"))
                .addValues(Value.newBuilder().setTimestampValue("2024-02-29 13:45:00.5"))
                .addValues(Value.newBuilder().setDoubleValue(0.25))
                .addValues(Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {9, 8})))
                .addValues(Value.newBuilder().setIntValue(1L << 40))
                .addValues(Value.newBuilder().setStringValue(UUID_TEXT));
        var nulls = Row.newBuilder();
        for (int i = 0; i < 9; i++) {
            nulls.addValues(Values.NULL);
        }
        return ServerMessage.newBuilder().setResultSet(header.setFirstBatch(
                RowBatch.newBuilder().addRows(row).addRows(nulls).setLast(true)));
    }

    @BeforeEach
    void start() throws Exception {
        server = new ScriptedServer(request -> switch (request.getKindCase()) {
            case EXECUTE -> request.getExecute().getSql().startsWith("SELECT") ? typedResult()
                    : ServerMessage.newBuilder().setUpdateResult(UpdateResult.newBuilder().setUpdateCount(2));
            default -> ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
        });
        connection = DriverManager.getConnection(server.url());
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        server.close();
    }

    @Test
    void gettersConvertAndTrackNulls() throws Exception {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT *")) {
            assertThrows(SQLException.class, () -> rs.getInt(1), "no current row yet");
            assertTrue(rs.next());
            assertTrue(rs.isFirst());
            assertEquals(7, rs.getInt("n"));
            assertEquals(7, rs.getObject("N"));
            assertEquals(12, rs.getInt("price"), "getInt on decimal 12.00");
            assertEquals(new BigDecimal("12.00"), rs.getObject(2));
            assertEquals("12.00", rs.getString(2));
            assertEquals("Ann", rs.getString("Name"));
            assertEquals(java.sql.Date.valueOf("2024-02-29"), rs.getObject("born"));
            assertEquals(LocalDate.of(2024, 2, 29), rs.getObject("born", LocalDate.class));
            assertEquals(java.sql.Timestamp.valueOf("2024-02-29 13:45:00.5"), rs.getTimestamp("seen"));
            assertEquals(LocalDateTime.of(2024, 2, 29, 13, 45, 0, 500_000_000), rs.getObject(5, LocalDateTime.class));
            assertEquals(java.sql.Date.valueOf("2024-02-29"), rs.getDate("seen"));
            assertEquals("0.25", rs.getString("ratio"));
            assertEquals(0.25f, rs.getFloat("ratio"));
            assertArrayEquals(new byte[] {9, 8}, rs.getBytes("blob"));
            assertEquals(1L << 40, rs.getLong(8));
            assertEquals("22003", assertThrows(SQLException.class, () -> rs.getInt(8)).getSQLState());
            assertEquals(UUID.fromString(UUID_TEXT), rs.getObject("id", UUID.class));
            assertEquals(Integer.valueOf(7), rs.getObject(1, Integer.class));
            assertEquals(7L, rs.getObject(1, long.class));
            assertFalse(rs.wasNull());
            assertEquals("S1009", assertThrows(SQLException.class, () -> rs.getInt("missing")).getSQLState());
            assertThrows(SQLException.class, () -> rs.getInt(10));

            assertTrue(rs.next());
            assertTrue(rs.isLast());
            assertEquals(0, rs.getInt(1));
            assertTrue(rs.wasNull());
            assertNull(rs.getString(3));
            assertTrue(rs.wasNull());
            assertNull(rs.getObject(1, Integer.class));
            assertNull(rs.getBigDecimal(2));
            assertNull(rs.getTimestamp(5));
            assertFalse(rs.getBoolean(1));
            assertFalse(rs.next());
            assertTrue(rs.isAfterLast());
            assertEquals(0, rs.getRow());
        }
    }

    @Test
    void metaDataDescribesTheColumns() throws Exception {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT *")) {
            ResultSetMetaData md = rs.getMetaData();
            assertEquals(9, md.getColumnCount());
            assertEquals("n", md.getColumnName(1));
            assertEquals("N", md.getColumnLabel(1));
            assertEquals(Types.DECIMAL, md.getColumnType(2));
            assertEquals("DECIMAL", md.getColumnTypeName(2));
            assertEquals(2, md.getScale(2));
            assertEquals(10, md.getPrecision(2));
            assertEquals("java.math.BigDecimal", md.getColumnClassName(2));
            assertEquals(ResultSetMetaData.columnNullable, md.isNullable(3));
            assertEquals("t", md.getTableName(3));
            assertEquals("", md.getSchemaName(3));
            assertEquals("", md.getCatalogName(3));
            assertFalse(md.isAutoIncrement(1));
            assertTrue(md.isSearchable(1));
            assertFalse(md.isCurrency(2));
            assertTrue(md.isSigned(1));
            assertEquals(10, md.getColumnDisplaySize(1), "falls back to the precision");
            assertThrows(SQLException.class, () -> md.getColumnName(0));
            assertSame(s, rs.getStatement());
            assertEquals(ResultSet.TYPE_FORWARD_ONLY, rs.getType());
            assertEquals(ResultSet.CONCUR_READ_ONLY, rs.getConcurrency());
            assertTrue(rs.isWrapperFor(LutraResultSet.class));
            assertEquals(0, rs.unwrap(LutraResultSet.class).getPartitions());
        }
    }

    @Test
    void closeOnCompletionClosesTheStatementWithItsResult() throws Exception {
        Statement s = connection.createStatement();
        s.closeOnCompletion();
        ResultSet rs = s.executeQuery("SELECT *");
        assertFalse(s.isClosed());
        rs.close();
        assertTrue(s.isClosed());
        assertThrows(SQLException.class, () -> s.executeQuery("SELECT *"));
    }

    @Test
    void connectionCloseClosesStatementsAndResults() throws Exception {
        Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT *");
        connection.close();
        assertTrue(s.isClosed());
        assertTrue(rs.isClosed());
        assertTrue(connection.isClosed());
        assertFalse(connection.isValid(1));
    }

    @Test
    void connectionSettingsAndMetaData() throws Exception {
        connection.setReadOnly(true);
        assertTrue(connection.isReadOnly());
        assertNull(connection.getWarnings());
        connection.setNetworkTimeout(Runnable::run, 5000);
        assertEquals(5000, connection.getNetworkTimeout());
        assertTrue(connection.isWrapperFor(LutraConnection.class));
        assertThrows(SQLException.class, () -> connection.unwrap(String.class));
        var md = connection.getMetaData();
        assertEquals("Lutra", md.getDatabaseProductName());
        assertEquals(0, md.getDatabaseMajorVersion());
        assertEquals(1, md.getDatabaseMinorVersion());
        assertTrue(md.getURL().contains("password=***"), md.getURL());
        assertEquals("`", md.getIdentifierQuoteString());
        assertTrue(md.supportsTransactions());
        assertTrue(md.supportsResultSetType(ResultSet.TYPE_FORWARD_ONLY));
        assertThrows(java.sql.SQLFeatureNotSupportedException.class, () -> connection.createStatement().cancel());
    }

    @Test
    void abortClosesTheSocket() throws Exception {
        connection.abort(Runnable::run);
        assertTrue(connection.isClosed());
    }
}
