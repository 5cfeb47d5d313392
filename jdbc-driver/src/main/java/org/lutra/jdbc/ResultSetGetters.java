package org.lutra.jdbc;

import org.lutra.protocol.Column;
import org.lutra.protocol.Value;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.Map;
import java.util.UUID;

/**
 * The getters of a ResultSet, by index and by label, over the current row's protocol values.
 * Conversions live in {@link Conversions}; this class adds wasNull and the Calendar variants.
 * The streaming cursor itself is {@link LutraResultSet}.
 *
 * <p>Its length is java.sql.ResultSet's getters: each type by index and by label, with and without a
 * Calendar (57 overrides of one or two lines); splitting them would scatter one interface's
 * surface over several files.
 */
abstract class ResultSetGetters extends UnsupportedResultSet {
    private boolean wasNull;

    /** The current row's value of a 1-based column; throws if there is no current row. */
    abstract Value current(int column) throws SQLException;

    abstract Column column(int column) throws SQLException;

    private Value value(int column) throws SQLException {
        Value v = current(column);
        wasNull = Conversions.isNull(v);
        if (v.getKindCase() == Value.KindCase.FLOAT_VALUE && !fixedDecimals(column(column))) {
            return printed(v.getFloatValue());
        }
        return v;
    }

    /**
     * A FLOAT as MySQL's text protocol sends it, which Connector/J's plain statements read: rounded
     * to 6 significant digits (FLT_DIG), 559.8676f as 559.868, 16777216f as 1.67772e7, then read
     * as a double (getDouble 559.868, getFloat and getObject (float) 559.868, getString
     * "559.868"). The router carries every bit of it; a FLOAT with fixed decimals it sends rounded
     * to them already.
     */
    private static Value printed(float f) {
        if (!Float.isFinite(f)) {
            return Value.newBuilder().setDoubleValue(f).build();
        }
        double d = new BigDecimal(f).round(new java.math.MathContext(6, RoundingMode.HALF_EVEN)).doubleValue();
        return Value.newBuilder().setDoubleValue(d).build();
    }

    private static boolean fixedDecimals(Column c) {
        return c.getScale() > 0 && c.getScale() < 31;
    }

    /**
     * The value as the text and number getters see it: a MySQL BIT column's bytes are an unsigned
     * big-endian number (Connector/J's getString of BIT(8) b'10100101' is "165").
     */
    private Value number(int column) throws SQLException {
        Value v = value(column);
        if (v.getKindCase() == Value.KindCase.BYTES_VALUE && column(column).getNativeType().equalsIgnoreCase("BIT")) {
            var n = new BigInteger(1, v.getBytesValue().toByteArray());
            return n.bitLength() < 64 ? Value.newBuilder().setIntValue(n.longValue()).build()
                    : Value.newBuilder().setDecimalValue(n.toString()).build();
        }
        return v;
    }

    @Override
    public boolean wasNull() throws SQLException {
        return wasNull;
    }

    // ---- by index --------------------------------------------------------------------------

    @Override
    public String getString(int i) throws SQLException {
        Value v = number(i);
        if (v.getKindCase() == Value.KindCase.INT_VALUE && column(i).getNativeType().equalsIgnoreCase("YEAR")) {
            return String.format("%04d-01-01", Conversions.year(v.getIntValue())); // Connector/J's YEAR as a DATE
        }
        return Conversions.getString(v);
    }

    @Override
    public boolean getBoolean(int i) throws SQLException {
        return Conversions.getBoolean(number(i));
    }

    @Override
    public byte getByte(int i) throws SQLException {
        return Conversions.getByte(number(i));
    }

    @Override
    public short getShort(int i) throws SQLException {
        return Conversions.getShort(number(i));
    }

    @Override
    public int getInt(int i) throws SQLException {
        return Conversions.getInt(number(i));
    }

    @Override
    public long getLong(int i) throws SQLException {
        return Conversions.getLong(number(i));
    }

    @Override
    public float getFloat(int i) throws SQLException {
        return Conversions.getFloat(number(i));
    }

    @Override
    public double getDouble(int i) throws SQLException {
        return Conversions.getDouble(number(i));
    }

    @Override
    public BigDecimal getBigDecimal(int i) throws SQLException {
        return Conversions.getBigDecimal(number(i));
    }

    @Override
    @Deprecated
    public BigDecimal getBigDecimal(int i, int scale) throws SQLException {
        BigDecimal d = getBigDecimal(i);
        return d == null ? null : d.setScale(scale, RoundingMode.HALF_UP);
    }

    @Override
    public byte[] getBytes(int i) throws SQLException {
        Value v = value(i);
        Column c = column(i);
        if (v.getKindCase() == Value.KindCase.INT_VALUE && c.getJdbcType() == java.sql.Types.BIT && c.getNativeType().equalsIgnoreCase("BIT")) {
            // BIT(1) travels as its number; MySQL's bytes for it are the bit pattern, one byte per 8 bits
            int width = Math.max(1, (c.getPrecision() + 7) / 8);
            byte[] out = new byte[width];
            long bits = v.getIntValue();
            for (int k = width - 1; k >= 0; k--, bits >>>= 8) out[k] = (byte) bits;
            return out;
        }
        if (v.getKindCase() == Value.KindCase.INT_VALUE && c.getNativeType().equalsIgnoreCase("YEAR")) {
            return String.format("%04d", v.getIntValue()).getBytes(StandardCharsets.US_ASCII); // MySQL's text of a YEAR
        }
        switch (v.getKindCase()) {
            case TIME_VALUE, TIMESTAMP_VALUE -> {
                // the column's fraction digits are in its precision: 19 or 10 characters, then a point and the digits
                int whole = v.getKindCase() == Value.KindCase.TIME_VALUE ? 10 : 19;
                return Temporals.withFraction(Conversions.getString(v), c.getPrecision() - whole - 1).getBytes(StandardCharsets.US_ASCII);
            }
            case DOUBLE_VALUE, FLOAT_VALUE -> throw Errors.unsupported("getBytes of a FLOAT or DOUBLE column (MySQL's text of it is not reproduced; "
                    + "read it with getString or getDouble)");
            default -> {
                return Conversions.getBytes(v);
            }
        }
    }

    @Override
    public Date getDate(int i) throws SQLException {
        LocalDate d = Conversions.getLocalDate(value(i));
        return d == null ? null : Date.valueOf(d);
    }

    @Override
    public Date getDate(int i, Calendar cal) throws SQLException {
        LocalDate d = Conversions.getLocalDate(value(i));
        return d == null ? null : new Date(d.atStartOfDay(Values.zone(cal)).toInstant().toEpochMilli());
    }

    @Override
    public Time getTime(int i) throws SQLException {
        LocalTime t = Conversions.getLocalTime(value(i));
        return t == null ? null : Time.valueOf(t);
    }

    @Override
    public Time getTime(int i, Calendar cal) throws SQLException {
        LocalTime t = Conversions.getLocalTime(value(i));
        if (t == null) {
            return null;
        }
        var instant = t.atDate(LocalDate.EPOCH).atZone(Values.zone(cal)).toInstant();
        return new Time(instant.toEpochMilli());
    }

    @Override
    public Timestamp getTimestamp(int i) throws SQLException {
        LocalDateTime t = Conversions.getLocalDateTime(value(i));
        return t == null ? null : Timestamp.valueOf(t);
    }

    @Override
    public Timestamp getTimestamp(int i, Calendar cal) throws SQLException {
        LocalDateTime t = Conversions.getLocalDateTime(value(i));
        return t == null ? null : Timestamp.from(t.atZone(Values.zone(cal)).toInstant());
    }

    @Override
    public Object getObject(int i) throws SQLException {
        Value v = value(i);
        return Conversions.getObject(v, column(i));
    }

    @Override
    public Object getObject(int i, Map<String, Class<?>> map) throws SQLException {
        if (map != null && !map.isEmpty()) {
            throw Errors.unsupported("user-defined type maps");
        }
        return getObject(i);
    }

    @Override
    public <T> T getObject(int i, Class<T> type) throws SQLException {
        if (type == null) {
            throw Errors.of("getObject: the type is null", "HY009");
        }
        Value v = type == byte[].class ? value(i) : number(i); // a BIT's bytes as its number, as the getters read it
        if (wasNull) {
            return null;
        }
        Object converted = convert(v, i, type);
        if (type.isPrimitive()) {
            @SuppressWarnings("unchecked") // int.class and friends: the boxed value is what callers get
            T boxed = (T) converted;
            return boxed;
        }
        return type.cast(converted);
    }

    private Object convert(Value v, int i, Class<?> type) throws SQLException {
        v = Temporals.asRequested(v, column(i), type);
        if (type == String.class) {
            return Conversions.getString(v);
        } else if (type == Integer.class || type == int.class) {
            return Conversions.getInt(v);
        } else if (type == Long.class || type == long.class) {
            return Conversions.getLong(v);
        } else if (type == Short.class || type == short.class) {
            return Conversions.getShort(v);
        } else if (type == Byte.class || type == byte.class) {
            return Conversions.getByte(v);
        } else if (type == Boolean.class || type == boolean.class) {
            return Conversions.getBoolean(v);
        } else if (type == Double.class || type == double.class) {
            return Conversions.getDouble(v);
        } else if (type == Float.class || type == float.class) {
            return Conversions.getFloat(v);
        } else if (type == BigDecimal.class) {
            return Conversions.getBigDecimal(v);
        } else if (type == BigInteger.class) {
            return Conversions.getBigInteger(v);
        } else if (type == byte[].class) {
            return Conversions.getBytes(v);
        } else if (type == LocalDate.class) {
            return Conversions.getLocalDate(v);
        } else if (type == LocalTime.class) {
            return Conversions.getLocalTime(v);
        } else if (type == LocalDateTime.class) {
            return Conversions.getLocalDateTime(v);
        } else if (type == Date.class) {
            return Date.valueOf(Conversions.getLocalDate(v));
        } else if (type == Time.class) {
            return Time.valueOf(Conversions.getLocalTime(v));
        } else if (type == Timestamp.class || type == java.util.Date.class) {
            return Timestamp.valueOf(Conversions.getLocalDateTime(v));
        } else if (type == Instant.class) {
            return Conversions.getLocalDateTime(v).atZone(ZoneId.systemDefault()).toInstant();
        } else if (type == OffsetDateTime.class) {
            return Conversions.getLocalDateTime(v).atZone(ZoneId.systemDefault()).toOffsetDateTime();
        } else if (type == ZonedDateTime.class) {
            return Conversions.getLocalDateTime(v).atZone(ZoneId.systemDefault());
        } else if (type == UUID.class) {
            try {
                return UUID.fromString(Conversions.getString(v).trim());
            } catch (IllegalArgumentException e) {
                throw Errors.of("'" + Conversions.getString(v) + "' is not a UUID", Errors.INVALID_CAST);
            }
        } else if (type == Object.class) {
            return Conversions.getObject(v, column(i));
        }
        Object natural = Conversions.getObject(v, column(i));
        if (type.isInstance(natural)) {
            return natural;
        }
        throw Errors.of("cannot convert column " + i + " to " + type.getName(), Errors.INVALID_CAST);
    }

    @Override
    public Reader getCharacterStream(int i) throws SQLException {
        String s = getString(i);
        return s == null ? null : new StringReader(s);
    }

    @Override
    public Reader getNCharacterStream(int i) throws SQLException {
        return getCharacterStream(i);
    }

    @Override
    public String getNString(int i) throws SQLException {
        return getString(i);
    }

    @Override
    public InputStream getBinaryStream(int i) throws SQLException {
        byte[] b = getBytes(i);
        return b == null ? null : new ByteArrayInputStream(b);
    }

    @Override
    public InputStream getAsciiStream(int i) throws SQLException {
        String s = getString(i);
        return s == null ? null : new ByteArrayInputStream(s.getBytes(StandardCharsets.US_ASCII));
    }

    // ---- by label: first column whose label matches, ignoring case -------------------------

    @Override
    public java.sql.Clob getClob(int i) throws SQLException {
        String s = getString(i);
        return s == null ? null : new TextLob(s);
    }

    @Override
    public java.sql.NClob getNClob(int i) throws SQLException {
        String s = getString(i);
        return s == null ? null : new TextLob(s);
    }

    @Override
    public java.sql.Blob getBlob(int i) throws SQLException {
        byte[] b = getBytes(i);
        return b == null ? null : new BytesLob(b);
    }

    @Override
    public java.sql.Clob getClob(String label) throws SQLException {
        return getClob(findColumn(label));
    }

    @Override
    public java.sql.NClob getNClob(String label) throws SQLException {
        return getNClob(findColumn(label));
    }

    @Override
    public java.sql.Blob getBlob(String label) throws SQLException {
        return getBlob(findColumn(label));
    }

    @Override
    public String getString(String label) throws SQLException {
        return getString(findColumn(label));
    }

    @Override
    public boolean getBoolean(String label) throws SQLException {
        return getBoolean(findColumn(label));
    }

    @Override
    public byte getByte(String label) throws SQLException {
        return getByte(findColumn(label));
    }

    @Override
    public short getShort(String label) throws SQLException {
        return getShort(findColumn(label));
    }

    @Override
    public int getInt(String label) throws SQLException {
        return getInt(findColumn(label));
    }

    @Override
    public long getLong(String label) throws SQLException {
        return getLong(findColumn(label));
    }

    @Override
    public float getFloat(String label) throws SQLException {
        return getFloat(findColumn(label));
    }

    @Override
    public double getDouble(String label) throws SQLException {
        return getDouble(findColumn(label));
    }

    @Override
    public BigDecimal getBigDecimal(String label) throws SQLException {
        return getBigDecimal(findColumn(label));
    }

    @Override
    @Deprecated
    public BigDecimal getBigDecimal(String label, int scale) throws SQLException {
        return getBigDecimal(findColumn(label), scale);
    }

    @Override
    public byte[] getBytes(String label) throws SQLException {
        return getBytes(findColumn(label));
    }

    @Override
    public Date getDate(String label) throws SQLException {
        return getDate(findColumn(label));
    }

    @Override
    public Date getDate(String label, Calendar cal) throws SQLException {
        return getDate(findColumn(label), cal);
    }

    @Override
    public Time getTime(String label) throws SQLException {
        return getTime(findColumn(label));
    }

    @Override
    public Time getTime(String label, Calendar cal) throws SQLException {
        return getTime(findColumn(label), cal);
    }

    @Override
    public Timestamp getTimestamp(String label) throws SQLException {
        return getTimestamp(findColumn(label));
    }

    @Override
    public Timestamp getTimestamp(String label, Calendar cal) throws SQLException {
        return getTimestamp(findColumn(label), cal);
    }

    @Override
    public Object getObject(String label) throws SQLException {
        return getObject(findColumn(label));
    }

    @Override
    public Object getObject(String label, Map<String, Class<?>> map) throws SQLException {
        return getObject(findColumn(label), map);
    }

    @Override
    public <T> T getObject(String label, Class<T> type) throws SQLException {
        return getObject(findColumn(label), type);
    }

    @Override
    public Reader getCharacterStream(String label) throws SQLException {
        return getCharacterStream(findColumn(label));
    }

    @Override
    public Reader getNCharacterStream(String label) throws SQLException {
        return getNCharacterStream(findColumn(label));
    }

    @Override
    public String getNString(String label) throws SQLException {
        return getNString(findColumn(label));
    }

    @Override
    public InputStream getBinaryStream(String label) throws SQLException {
        return getBinaryStream(findColumn(label));
    }

    @Override
    public InputStream getAsciiStream(String label) throws SQLException {
        return getAsciiStream(findColumn(label));
    }
}
