package org.lutra.jdbc;

import org.junit.jupiter.api.Test;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Calendar;
import java.util.TimeZone;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ValuesTest {
    @Test
    void javaObjectsBecomeTheMatchingKind() throws SQLException {
        assertEquals(Value.KindCase.IS_NULL, Values.ofObject(null).getKindCase());
        assertEquals(42, Values.ofObject(42).getIntValue());
        assertEquals(42, Values.ofObject((short) 42).getIntValue());
        assertEquals(Long.MIN_VALUE, Values.ofObject(Long.MIN_VALUE).getIntValue());
        assertEquals("0.5", Values.ofObject(0.5).getDecimalValue(), "a double's text, read by MySQL as a decimal literal");
        assertEquals("-2.5", Values.ofObject(-2.5).getDecimalValue());
        assertEquals("0.1", Values.ofObject(0.1f).getDecimalValue(), "a float's own text");
        assertEquals(1e20, Values.ofObject(1e20).getDoubleValue(), "with an exponent, a double");
        assertEquals("-0.0", Values.ofObject(-0.0).getDecimalValue(), "MySQL's decimal -0.0 is 0");
        assertEquals("12.50", Values.ofObject(new BigDecimal("12.50")).getDecimalValue());
        assertEquals("10000000000", Values.ofObject(new BigDecimal("1E+10")).getDecimalValue(), "plain text, no exponent");
        assertEquals(7, Values.ofObject(BigInteger.valueOf(7)).getIntValue());
        assertEquals("18446744073709551615", Values.ofObject(new BigInteger("18446744073709551615")).getDecimalValue());
        assertTrue(Values.ofObject(true).getBoolValue());
        assertEquals(3, Values.ofObject(new byte[] {1, 2, 3}).getBytesValue().size());
        var uuid = UUID.randomUUID();
        assertEquals(uuid.toString(), Values.ofObject(uuid).getStringValue());
        assertEquals("x", Values.ofObject('x').getStringValue());
    }

    @Test
    void temporalsTravelAsEscapeText() throws SQLException {
        assertEquals("2024-02-29", Values.ofObject(LocalDate.of(2024, 2, 29)).getDateValue());
        assertEquals("2024-02-29", Values.ofObject(java.sql.Date.valueOf("2024-02-29")).getDateValue());
        assertEquals("13:45:00", Values.ofObject(LocalTime.of(13, 45)).getTimeValue());
        assertEquals("13:45:00.25", Values.ofObject(LocalTime.of(13, 45, 0, 250_000_000)).getTimeValue());
        assertEquals("2024-02-29 13:45:00.123456", Values.ofObject(LocalDateTime.of(2024, 2, 29, 13, 45, 0, 123_456_000)).getTimestampValue());
        assertEquals("2024-02-29 13:45:00", Values.ofObject(Timestamp.valueOf("2024-02-29 13:45:00.000000001")).getTimestampValue(),
                "rounded to microseconds, as Connector/J sends it");
        assertEquals("2024-02-29 13:45:00.123457", Values.ofObject(Timestamp.valueOf("2024-02-29 13:45:00.123456789")).getTimestampValue());
        assertEquals("2024-02-29 13:45:01", Values.ofObject(LocalDateTime.of(2024, 2, 29, 13, 45, 0, 999_999_500)).getTimestampValue());
        assertEquals("1000-01-01", Values.ofObject(java.sql.Date.valueOf("1000-01-01")).getDateValue(), "the Date's own fields, not its Julian millis");
        var instant = Instant.parse("2024-02-29T12:00:00Z");
        assertEquals(Temporals.format(LocalDateTime.ofInstant(instant, ZoneId.systemDefault())), Values.ofObject(instant).getTimestampValue());
    }

    @Test
    void aCalendarSaysInWhichZoneToReadTheInstant() {
        var utc = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
        var tokyo = Calendar.getInstance(TimeZone.getTimeZone("Asia/Tokyo"));
        var ts = Timestamp.from(Instant.parse("2024-02-29T23:30:00Z"));
        assertEquals("2024-02-29 23:30:00", Values.ofTimestamp(ts, utc).getTimestampValue());
        assertEquals("2024-03-01 08:30:00", Values.ofTimestamp(ts, tokyo).getTimestampValue());
    }

    @Test
    void aTargetSqlTypeConvertsBeforeSending() throws SQLException {
        assertEquals("12.5", Values.ofObject("12.5", Types.DECIMAL).getDecimalValue());
        assertEquals(12, Values.ofObject("12", Types.INTEGER).getIntValue());
        assertEquals(12, Values.ofObject(12, Types.VARCHAR).getIntValue(), "an integer sent as text stays a number, as Connector/J sends it");
        assertEquals("1.5", Values.ofObject(1.5, Types.VARCHAR).getStringValue());
        assertEquals("2024-02-29", Values.ofObject("2024-02-29", Types.DATE).getDateValue());
        assertTrue(Values.ofObject("true", Types.BOOLEAN).getBoolValue());
        assertEquals("22018", assertThrows(SQLException.class, () -> Values.ofObject("abc", Types.INTEGER)).getSQLState());
        assertEquals("22018", assertThrows(SQLException.class, () -> Values.ofObject(new Object())).getSQLState());
    }

    @Test
    void roundTripsThroughConversions() throws SQLException {
        var t = LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000);
        assertEquals(t, Conversions.getLocalDateTime(Values.ofTimestamp(t)));
        var d = new BigDecimal("-123456789012345678901234567890.000001");
        assertEquals(d, Conversions.getBigDecimal(Values.ofDecimal(d)));
    }
}
