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

    static Value ofDouble(double v) {
        return Value.newBuilder().setDoubleValue(v).build();
    }

    static Value ofFloat(float v) {
        return Value.newBuilder().setFloatValue(v).build();
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

    static Value ofTime(LocalTime v) {
        return v == null ? NULL : Value.newBuilder().setTimeValue(Temporals.format(v)).build();
    }

    static Value ofTimestamp(LocalDateTime v) {
        return v == null ? NULL : Value.newBuilder().setTimestampValue(Temporals.format(v)).build();
    }

    static Value ofDate(java.sql.Date v, Calendar cal) {
        return v == null ? NULL : ofDate(Instant.ofEpochMilli(v.getTime()).atZone(zone(cal)).toLocalDate());
    }

    static Value ofTime(java.sql.Time v, Calendar cal) {
        if (v == null) {
            return NULL;
        }
        return ofTime(Instant.ofEpochMilli(v.getTime()).atZone(zone(cal)).toLocalTime());
    }

    static Value ofTimestamp(java.sql.Timestamp v, Calendar cal) {
        if (v == null) {
            return NULL;
        }
        // Timestamp keeps nanos apart from its millis; Instant carries both.
        return ofTimestamp(LocalDateTime.ofInstant(v.toInstant(), zone(cal)));
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
            case Types.DECIMAL, Types.NUMERIC -> ofDecimal(Conversions.getBigDecimal(v));
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR,
                 Types.CLOB, Types.NCLOB -> ofString(Conversions.getString(v));
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
