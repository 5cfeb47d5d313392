package org.lutra.jdbc;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.Column;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConversionsTest {
    private static Value i(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    private static Value dec(String v) {
        return Value.newBuilder().setDecimalValue(v).build();
    }

    private static Value str(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }

    private static Value dbl(double v) {
        return Value.newBuilder().setDoubleValue(v).build();
    }

    private static String state(Executable e) {
        return assertThrows(SQLException.class, e::run).getSQLState();
    }

    interface Executable {
        void run() throws Exception;
    }

    @Test
    void integersFromEveryNumericKind() throws SQLException {
        assertEquals(12, Conversions.getInt(dec("12")));
        assertEquals(12, Conversions.getInt(dec("12.90")), "truncated toward zero");
        assertEquals(-12, Conversions.getInt(dbl(-12.9)));
        assertEquals(7, Conversions.getInt(str("7")));
        assertEquals(2500, Conversions.getInt(str("2.5e3")), "text with an exponent, through a double as Connector/J reads it");
        assertEquals(0, Conversions.getInt(str("")), "empty text is 0 to Connector/J");
        assertEquals(1, Conversions.getInt(Value.newBuilder().setBoolValue(true).build()));
        assertEquals(Long.MAX_VALUE, Conversions.getLong(dec("9223372036854775807")));
        assertEquals(0, Conversions.getInt(Values.NULL));
    }

    @Test
    void outOfRangeIs22003AndNotANumberIs22018() {
        assertEquals("22003", state(() -> Conversions.getInt(i(1L << 31))));
        assertEquals("22003", state(() -> Conversions.getShort(i(40000))));
        assertEquals("22003", state(() -> Conversions.getByte(dec("128"))));
        assertEquals("22003", state(() -> Conversions.getLong(dec("18446744073709551615"))));
        assertEquals("22003", state(() -> Conversions.getLong(dbl(1e19))));
        assertEquals("22003", state(() -> Conversions.getFloat(dbl(1e300))));
        assertEquals("22018", state(() -> Conversions.getInt(str("twelve"))));
        assertEquals("22018", state(() -> Conversions.getInt(str(" 7 "))), "Connector/J reads no spaces around a number");
        assertEquals("22003", state(() -> Conversions.getByte(str("12"))), "text is a byte only when it is one byte");
        assertEquals("22018", state(() -> Conversions.getBoolean(str("maybe"))));
        assertEquals("22018", state(() -> Conversions.getInt(Value.newBuilder().setDateValue("2024-01-01").build())));
    }

    @Test
    void stringsPrintLikeJava() {
        assertEquals("12.5", Conversions.getString(dbl(12.5)));
        assertEquals("1.0E20", Conversions.getString(dbl(1e20)));
        assertEquals("0.1", Conversions.getString(Value.newBuilder().setFloatValue(0.1f).build()));
        assertEquals("12.50", Conversions.getString(dec("12.50")), "decimals keep their scale");
        assertEquals("-5", Conversions.getString(i(-5)));
        assertEquals("1", Conversions.getString(Value.newBuilder().setBoolValue(true).build()));
        assertEquals("héllo", Conversions.getString(Value.newBuilder().setBytesValue(ByteString.copyFromUtf8("héllo")).build()));
        assertEquals("2024-02-29 13:45:00.5", Conversions.getString(Value.newBuilder().setTimestampValue("2024-02-29 13:45:00.5").build()));
        assertNull(Conversions.getString(Values.NULL));
        assertNull(Conversions.getString(Value.getDefaultInstance()), "an empty Value is NULL");
    }

    @Test
    void decimalsAndFloatingPoint() throws SQLException {
        assertEquals(new BigDecimal("0.1"), Conversions.getBigDecimal(Value.newBuilder().setFloatValue(0.1f).build()));
        assertEquals(0.1, Conversions.getDouble(Value.newBuilder().setFloatValue(0.1f).build()));
        assertEquals(new BigDecimal("12.345"), Conversions.getBigDecimal(str("12.345")));
        assertEquals(3.25, Conversions.getDouble(dec("3.25")));
        assertEquals(new BigInteger("18446744073709551615"), Conversions.getBigInteger(dec("18446744073709551615")));
    }

    @Test
    void booleans() throws SQLException {
        assertTrue(Conversions.getBoolean(str("TRUE")));
        assertTrue(Conversions.getBoolean(str("1")));
        assertTrue(Conversions.getBoolean(dec("0.5")));
        assertFalse(Conversions.getBoolean(str("0")));
        assertFalse(Conversions.getBoolean(str("n")));
        assertFalse(Conversions.getBoolean(i(0)));
        assertTrue(Conversions.getBoolean(i(-1)), "-1 is true to Connector/J (ODBC's true)");
        assertFalse(Conversions.getBoolean(i(-2)), "other negatives are false to Connector/J");
        assertFalse(Conversions.getBoolean(str("-0.5")));
        assertFalse(Conversions.getBoolean(dbl(-3.5)));
        assertFalse(Conversions.getBoolean(str("")));
        assertEquals("22018", state(() -> Conversions.getBoolean(str("yes"))), "Connector/J reads Y/N and true/false, not yes/no");
    }

    @Test
    void textReadAsConnectorJReadsIt() throws SQLException {
        assertEquals(48, Conversions.getByte(str("0")), "getByte of one-byte text is that byte");
        assertEquals(0, Conversions.getByte(str("")));
        assertEquals(new BigDecimal("2500.0"), Conversions.getBigDecimal(str("2.5e3")));
        assertEquals(new BigDecimal("5.0"), Conversions.getBigDecimal(str("5.")));
        assertEquals(new BigDecimal("123456789012345678901234567890"), Conversions.getBigDecimal(str("123456789012345678901234567890")),
                "integer text stays exact");
        assertEquals("0E-10", Conversions.getString(dec("0.0000000000")), "a DECIMAL's text is its BigDecimal's, as Connector/J gives it");
        assertEquals("0.0000000000", new String(Conversions.getBytes(dec("0.0000000000")), java.nio.charset.StandardCharsets.US_ASCII),
                "its bytes are MySQL's text");
    }

    @Test
    void temporalsFromEscapeText() throws SQLException {
        var ts = Value.newBuilder().setTimestampValue("2024-02-29 13:45:00.123456").build();
        assertEquals(LocalDateTime.of(2024, 2, 29, 13, 45, 0, 123_456_000), Conversions.getLocalDateTime(ts));
        assertEquals(LocalDate.of(2024, 2, 29), Conversions.getLocalDate(ts));
        assertEquals(LocalTime.of(13, 45, 0, 123_456_000), Conversions.getLocalTime(ts));
        assertEquals(LocalDateTime.of(2024, 2, 29, 0, 0), Conversions.getLocalDateTime(Value.newBuilder().setDateValue("2024-02-29").build()));
        assertEquals(LocalTime.of(8, 5, 3), Conversions.getLocalTime(Value.newBuilder().setTimeValue("08:05:03").build()));
        assertEquals(LocalDateTime.of(2024, 1, 2, 3, 4, 5), Conversions.getLocalDateTime(str("2024-01-02T03:04:05")));
        assertEquals("22007", state(() -> Conversions.getLocalDate(Value.newBuilder().setDateValue("2023-02-29").build())));
        var zero = assertThrows(SQLException.class, () -> Conversions.getLocalDateTime(Value.newBuilder().setTimestampValue("0000-00-00 00:00:00").build()));
        assertTrue(zero.getMessage().contains("zero date"), zero.getMessage());
        assertEquals("22018", state(() -> Conversions.getLocalDate(i(20240229))));
    }

    @Test
    void getObjectFollowsTheColumnType() throws SQLException {
        assertEquals(12, Conversions.getObject(dec("12"), col(Types.INTEGER, true)));
        assertEquals(12L, Conversions.getObject(i(12), col(Types.INTEGER, false)), "INT UNSIGNED needs a Long");
        assertEquals(12L, Conversions.getObject(i(12), col(Types.BIGINT, true)));
        assertEquals(new BigInteger("18446744073709551615"), Conversions.getObject(dec("18446744073709551615"), col(Types.BIGINT, false)));
        assertEquals(new BigDecimal("1.50"), Conversions.getObject(dec("1.50"), col(Types.DECIMAL, true)));
        assertEquals("x", Conversions.getObject(str("x"), col(Types.VARCHAR, false)));
        assertEquals(2.5, Conversions.getObject(dbl(2.5), col(Types.DOUBLE, true)));
        assertEquals(2.5f, Conversions.getObject(dbl(2.5), col(Types.REAL, true)));
        assertEquals(true, Conversions.getObject(i(1), col(Types.BOOLEAN, false)));
        assertEquals(java.sql.Date.valueOf("2024-02-29"), Conversions.getObject(Value.newBuilder().setDateValue("2024-02-29").build(), col(Types.DATE, false)));
        assertEquals(java.sql.Timestamp.valueOf("2024-02-29 01:02:03.5"),
                Conversions.getObject(Value.newBuilder().setTimestampValue("2024-02-29 01:02:03.5").build(), col(Types.TIMESTAMP, false)));
        assertEquals(java.sql.Time.valueOf("01:02:03"), Conversions.getObject(Value.newBuilder().setTimeValue("01:02:03").build(), col(Types.TIME, false)));
        assertArrayEquals(new byte[] {1, 2}, (byte[]) Conversions.getObject(Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1, 2})).build(), col(Types.VARBINARY, false)));
        assertEquals(5L, Conversions.getObject(i(5), col(Types.OTHER, true)));
        assertNull(Conversions.getObject(Values.NULL, col(Types.INTEGER, true)));
        assertEquals("java.lang.Integer", Conversions.className(col(Types.INTEGER, true)));
        assertEquals("java.math.BigInteger", Conversions.className(col(Types.BIGINT, false)));
        assertEquals("[B", Conversions.className(col(Types.BLOB, false)));
    }

    private static Column col(int jdbcType, boolean signed) {
        return Column.newBuilder().setName("c").setJdbcType(jdbcType).setSigned(signed).build();
    }
}
