package org.lutra.jdbc;

import com.google.protobuf.ByteString;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.UUID;

/**
 * Java values to protocol {@link Value}s, for statement parameters.
 *
 * <p>Temporal values travel as text in JDBC escape format (see lutra.proto) and carry no zone:
 * they mean wall-clock time, read in the JVM's default zone unless a Calendar says otherwise,
 * as java.sql.Timestamp.toString and Connector/J do.
 */
final class Values {
    static final Value NULL = Value.newBuilder().setIsNull(true).build();

    private Values() {}

    static Value ofLong(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    /**
     * A double parameter as Connector/J sends it: its Java text inlined in the statement, which
     * MySQL reads as an exact decimal literal unless it has an exponent. So -2.5 into an INT is
     * -3 (a decimal rounds half away from zero; a binary double would round to even, -2), 0.1f is
     * 0.1 and not 0.10000000149011612, and -0.0 is 0. With an exponent (1.0E20) it is a double.
     */
    static Value ofDouble(double v) {
        return asText(Double.toString(v), v);
    }

    /** A float parameter the same way, from its own text (559.8676f is 559.8676). */
    static Value ofFloat(float v) {
        String text = Float.toString(v);
        return asText(text, Float.isFinite(v) ? Double.parseDouble(text) : v);
    }

    private static Value asText(String text, double value) {
        if (Double.isFinite(value) && text.indexOf('E') < 0) {
            return Value.newBuilder().setDecimalValue(text).build();
        }
        return Value.newBuilder().setDoubleValue(value).build();
    }

    static Value ofBoolean(boolean v) {
        return Value.newBuilder().setBoolValue(v).build();
    }

    static Value ofDecimal(BigDecimal v) {
        return v == null ? NULL : Value.newBuilder().setDecimalValue(v.toPlainString()).build();
    }

    static Value ofBigInteger(BigInteger v) {
        if (v == null) {
            return NULL;
        }
        // Integers beyond sint64 go as decimal text, as the .proto says.
        return v.bitLength() < 64 ? ofLong(v.longValue()) : Value.newBuilder().setDecimalValue(v.toString()).build();
    }

    static Value ofString(String v) {
        return v == null ? NULL : Value.newBuilder().setStringValue(v).build();
    }

    static Value ofBytes(byte[] v) {
        return v == null ? NULL : Value.newBuilder().setBytesValue(ByteString.copyFrom(v)).build();
    }

    static Value ofDate(LocalDate v) {
        return v == null ? NULL : Value.newBuilder().setDateValue(Temporals.format(v)).build();
    }

    /** A time of day, its fraction rounded to microseconds (half up) as Connector/J sends it: MySQL keeps no more. */
    static Value ofTime(LocalTime v) {
        return v == null ? NULL : Value.newBuilder().setTimeValue(Temporals.format(toMicros(v.atDate(LocalDate.EPOCH)).toLocalTime())).build();
    }

    /** A date and time, its fraction rounded to microseconds (half up) as Connector/J sends it: .123456789 is .123457. */
    static Value ofTimestamp(LocalDateTime v) {
        return v == null ? NULL : Value.newBuilder().setTimestampValue(Temporals.format(toMicros(v))).build();
    }

    private static LocalDateTime toMicros(LocalDateTime v) {
        int below = v.getNano() % 1000;
        return below == 0 ? v : v.minusNanos(below).plusNanos(below >= 500 ? 1000 : 0);
    }

    /**
     * The java.sql types without a Calendar: their own fields, as their toString shows them (and
     * Connector/J sends them): java.sql.Date counts days in the Julian calendar before 1582, so
     * going through its epoch millis would move 1000-01-01 to 1000-01-06. With a Calendar: the
     * instant in that calendar's zone.
     */
    static Value ofDate(java.sql.Date v, Calendar cal) {
        if (v == null) {
            return NULL;
        }
        return ofDate(cal == null ? v.toLocalDate() : Instant.ofEpochMilli(v.getTime()).atZone(zone(cal)).toLocalDate());
    }

    static Value ofTime(java.sql.Time v, Calendar cal) {
        if (v == null) {
            return NULL;
        }
        return ofTime(cal == null ? v.toLocalTime() : Instant.ofEpochMilli(v.getTime()).atZone(zone(cal)).toLocalTime());
    }

    static Value ofTimestamp(java.sql.Timestamp v, Calendar cal) {
        if (v == null) {
            return NULL;
        }
        // Timestamp keeps nanos apart from its millis; toLocalDateTime and Instant carry both.
        return ofTimestamp(cal == null ? v.toLocalDateTime() : LocalDateTime.ofInstant(v.toInstant(), zone(cal)));
    }

    static ZoneId zone(Calendar cal) {
        return cal == null ? ZoneId.systemDefault() : cal.getTimeZone().toZoneId();
    }

    /** setObject without a target type: the protocol kind follows the Java class. */
    static Value ofObject(Object x) throws SQLException {
        return switch (x) {
            case null -> NULL;
            case Value v -> v;
            case String s -> ofString(s);
            case Integer i -> ofLong(i);
            case Long l -> ofLong(l);
            case Short s -> ofLong(s);
            case Byte b -> ofLong(b);
            case Boolean b -> ofBoolean(b);
            case Double d -> ofDouble(d);
            case Float f -> ofFloat(f);
            case BigDecimal d -> ofDecimal(d);
            case BigInteger i -> ofBigInteger(i);
            case byte[] b -> ofBytes(b);
            case java.sql.Date d -> ofDate(d, null);
            case java.sql.Time t -> ofTime(t, null);
            case java.sql.Timestamp t -> ofTimestamp(t, null);
            case java.util.Date d -> ofTimestamp(new java.sql.Timestamp(d.getTime()), null);
            case Calendar c -> ofTimestamp(LocalDateTime.ofInstant(c.toInstant(), c.getTimeZone().toZoneId()));
            case LocalDate d -> ofDate(d);
            case LocalTime t -> ofTime(t);
            case LocalDateTime t -> ofTimestamp(t);
            case Instant i -> ofTimestamp(LocalDateTime.ofInstant(i, ZoneId.systemDefault()));
            case OffsetDateTime t -> ofTimestamp(t.atZoneSameInstant(ZoneId.systemDefault()).toLocalDateTime());
            case ZonedDateTime t -> ofTimestamp(t.withZoneSameInstant(ZoneId.systemDefault()).toLocalDateTime());
            case OffsetTime t -> ofTime(t.toLocalTime());
            case UUID u -> ofString(u.toString());
            case Character c -> ofString(c.toString());
            case Enum<?> e -> ofString(e.name());
            case java.sql.Blob b -> ofBytes(b.getBytes(1, Math.toIntExact(b.length())));
            case java.sql.Clob c -> ofString(c.getSubString(1, Math.toIntExact(c.length())));
            default -> throw Errors.of("cannot send a parameter of class " + x.getClass().getName()
                    + " to Lutra; use a String, number, byte[], java.sql or java.time value", Errors.INVALID_CAST);
        };
    }

    /**
     * setObject with a target SQL type: the value is converted here, so the router receives the
     * kind the caller asked for (e.g. a String sent as DECIMAL is checked and sent as decimal).
     */
    static Value ofObject(Object x, int targetSqlType) throws SQLException {
        Value v = ofObject(x);
        if (x == null) {
            return NULL;
        }
        return switch (targetSqlType) {
            case Types.BIT, Types.BOOLEAN -> ofBoolean(Conversions.getBoolean(v));
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> ofLong(Conversions.getLong(v));
            case Types.REAL -> ofFloat(Conversions.getFloat(v));
            case Types.FLOAT, Types.DOUBLE -> ofDouble(Conversions.getDouble(v));
            // a double or float sent as DECIMAL goes as Connector/J sends it: its text, a double when it has an exponent
            case Types.DECIMAL, Types.NUMERIC -> x instanceof Double || x instanceof Float ? v : ofDecimal(Conversions.getBigDecimal(v));
            // an integer sent as text stays a number, as Connector/J sends it (unquoted: into a BIT(8) 3 is b'11', compared with text numerically)
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR,
                 Types.CLOB, Types.NCLOB -> x instanceof Integer || x instanceof Long || x instanceof Short || x instanceof Byte || x instanceof BigInteger
                    ? v : ofString(Conversions.getString(v));
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> ofBytes(Conversions.getBytes(v));
            case Types.DATE -> ofDate(Conversions.getLocalDate(v));
            case Types.TIME -> ofTime(Conversions.getLocalTime(v));
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> ofTimestamp(Conversions.getLocalDateTime(v));
            case Types.NULL -> NULL;
            case Types.OTHER, Types.JAVA_OBJECT -> v;
            default -> throw Errors.unsupported("setObject with target SQL type " + targetSqlType);
        };
    }
}
