package org.lutra.jdbc;

import org.lutra.protocol.Column;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

/**
 * Protocol {@link Value}s to the Java types the ResultSet getters return.
 *
 * <p>Rules, chosen to match what Connector/J users expect: numbers convert between each other
 * and from numeric text; a fractional value read as an integer is truncated toward zero, but a
 * value outside the target's range is an error (22003), never silently wrapped; text that is not
 * a number is 22018. SQL NULL reads as null, or 0/false for primitives (the caller sets wasNull).
 */
final class Conversions {
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private Conversions() {}

    static boolean isNull(Value v) {
        return v.getKindCase() == Value.KindCase.KIND_NOT_SET || v.getKindCase() == Value.KindCase.IS_NULL;
    }

    static String getString(Value v) {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case INT_VALUE -> Long.toString(v.getIntValue());
            // Java's shortest round-trip form, as Connector/J returns for binary-protocol doubles.
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            case FLOAT_VALUE -> Float.toString(v.getFloatValue());
            // Connector/J's text of a DECIMAL is its BigDecimal's: 0E-10 for a zero of scale 10, 1.234E-7 for 0.0000001234
            case DECIMAL_VALUE -> decimalText(v.getDecimalValue());
            case STRING_VALUE -> v.getStringValue();
            case BYTES_VALUE -> v.getBytesValue().toString(StandardCharsets.UTF_8);
            case BOOL_VALUE -> v.getBoolValue() ? "1" : "0"; // how MySQL prints BOOLEAN
            case DATE_VALUE -> v.getDateValue();
            case TIME_VALUE -> v.getTimeValue();
            case TIMESTAMP_VALUE -> v.getTimestampValue();
        };
    }

    /**
     * BigDecimal's text differs from the plain one only for an exponent below -6, which needs a
     * value below 1: other texts (most of a money column's) are returned without parsing.
     */
    private static String decimalText(String plain) {
        if (!plain.startsWith("0.") && !plain.startsWith("-0.")) {
            return plain;
        }
        try {
            return new BigDecimal(plain).toString();
        } catch (NumberFormatException e) {
            return plain;
        }
    }

    static long getLong(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> 0;
            case INT_VALUE -> v.getIntValue();
            case BOOL_VALUE -> v.getBoolValue() ? 1 : 0;
            case DOUBLE_VALUE -> doubleToLong(v.getDoubleValue());
            case FLOAT_VALUE -> doubleToLong(v.getFloatValue());
            default -> decimalToLong(getBigDecimal(v));
        };
    }

    static int getInt(Value v) throws SQLException {
        long n = getLong(v);
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw outOfRange(v, "int");
        }
        return (int) n;
    }

    static short getShort(Value v) throws SQLException {
        long n = getLong(v);
        if (n < Short.MIN_VALUE || n > Short.MAX_VALUE) {
            throw outOfRange(v, "short");
        }
        return (short) n;
    }

    /**
     * A number as a byte, in range or 22003. Text is Connector/J's: its only byte (getByte of '0'
     * is 48), 0 when empty, 22003 when longer.
     */
    static byte getByte(Value v) throws SQLException {
        if (v.getKindCase() == Value.KindCase.STRING_VALUE || v.getKindCase() == Value.KindCase.BYTES_VALUE) {
            byte[] b = getBytes(v);
            if (b.length > 1) {
                throw Errors.of("'" + getString(v) + "' is more than one byte", Errors.NUMERIC_OUT_OF_RANGE);
            }
            return b.length == 0 ? 0 : b[0];
        }
        long n = getLong(v);
        if (n < Byte.MIN_VALUE || n > Byte.MAX_VALUE) {
            throw outOfRange(v, "byte");
        }
        return (byte) n;
    }

    static double getDouble(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> 0;
            case INT_VALUE -> v.getIntValue();
            case DOUBLE_VALUE -> v.getDoubleValue();
            // Via the decimal text, so 0.1f reads as 0.1 and not 0.10000000149011612.
            case FLOAT_VALUE -> Double.parseDouble(Float.toString(v.getFloatValue()));
            case BOOL_VALUE -> v.getBoolValue() ? 1 : 0;
            default -> getBigDecimal(v).doubleValue();
        };
    }

    static float getFloat(Value v) throws SQLException {
        if (v.getKindCase() == Value.KindCase.FLOAT_VALUE) {
            return v.getFloatValue();
        }
        double d = getDouble(v);
        if (!Double.isInfinite(d) && !Double.isNaN(d) && Math.abs(d) > Float.MAX_VALUE) {
            throw outOfRange(v, "float");
        }
        return (float) d;
    }

    static BigDecimal getBigDecimal(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case INT_VALUE -> BigDecimal.valueOf(v.getIntValue());
            case BOOL_VALUE -> v.getBoolValue() ? BigDecimal.ONE : BigDecimal.ZERO;
            case DOUBLE_VALUE -> doubleToDecimal(v, v.getDoubleValue());
            case FLOAT_VALUE -> doubleToDecimal(v, Double.parseDouble(Float.toString(v.getFloatValue())));
            case DECIMAL_VALUE -> parseDecimal(v.getDecimalValue());
            case STRING_VALUE, BYTES_VALUE -> textToNumber(getString(v));
            case DATE_VALUE, TIME_VALUE, TIMESTAMP_VALUE -> throw Errors.of("cannot read the temporal value '"
                    + getString(v) + "' as a number", Errors.INVALID_CAST);
        };
    }

    static BigInteger getBigInteger(Value v) throws SQLException {
        if (v.getKindCase() == Value.KindCase.INT_VALUE) {
            return BigInteger.valueOf(v.getIntValue());
        }
        BigDecimal d = getBigDecimal(v);
        return d == null ? null : d.setScale(0, RoundingMode.DOWN).toBigIntegerExact();
    }

    /** A YEAR as Connector/J dates it: two-digit years (MySQL's 0000 included) are 2000-2069 or 1970-1999. */
    static int year(long year) {
        return (int) (year < 70 ? year + 2000 : year < 100 ? year + 1900 : year);
    }

    /**
     * Connector/J's truth of a value: a number is true when positive or exactly -1 (ODBC's and
     * Visual Basic's true, which Connector/J keeps), false otherwise; text is "Y"/"true" or
     * "N"/"false" (any case), empty (false), or a number as above; anything else is 22018.
     */
    static boolean getBoolean(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> false;
            case BOOL_VALUE -> v.getBoolValue();
            case INT_VALUE -> v.getIntValue() > 0 || v.getIntValue() == -1;
            case DOUBLE_VALUE -> truth(v.getDoubleValue());
            case FLOAT_VALUE -> truth(v.getFloatValue());
            case DECIMAL_VALUE -> truth(parseDecimal(v.getDecimalValue()));
            case STRING_VALUE, BYTES_VALUE -> textToBoolean(getString(v));
            default -> throw Errors.of("cannot read '" + getString(v) + "' as a boolean", Errors.INVALID_CAST);
        };
    }

    private static boolean truth(double d) {
        return d > 0 || d == -1;
    }

    private static boolean truth(BigDecimal d) {
        return d.signum() > 0 || d.compareTo(BigDecimal.ONE.negate()) == 0;
    }

    static byte[] getBytes(Value v) {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case BYTES_VALUE -> v.getBytesValue().toByteArray();
            case DECIMAL_VALUE -> v.getDecimalValue().getBytes(StandardCharsets.US_ASCII); // MySQL's text, never an exponent
            default -> getString(v).getBytes(StandardCharsets.UTF_8);
        };
    }

    static LocalDate getLocalDate(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case DATE_VALUE, STRING_VALUE, TIMESTAMP_VALUE, BYTES_VALUE -> Temporals.parseDate(getString(v));
            default -> throw Errors.of("cannot read '" + getString(v) + "' as a date", Errors.INVALID_CAST);
        };
    }

    static LocalTime getLocalTime(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case TIME_VALUE, STRING_VALUE, TIMESTAMP_VALUE, BYTES_VALUE -> Temporals.parseTime(getString(v));
            default -> throw Errors.of("cannot read '" + getString(v) + "' as a time", Errors.INVALID_CAST);
        };
    }

    static LocalDateTime getLocalDateTime(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case TIMESTAMP_VALUE, DATE_VALUE, STRING_VALUE, BYTES_VALUE -> Temporals.parseTimestamp(getString(v));
            default -> throw Errors.of("cannot read '" + getString(v) + "' as a timestamp", Errors.INVALID_CAST);
        };
    }

    /** getObject: the Java class follows the column's java.sql.Types, as {@link #className} reports. */
    static Object getObject(Value v, Column c) throws SQLException {
        if (isNull(v)) {
            return null;
        }
        return switch (c.getJdbcType()) {
            case Types.BIT, Types.BOOLEAN -> v.hasBytesValue() ? getBytes(v) : getBoolean(v);
            case Types.TINYINT, Types.SMALLINT -> getInt(v);
            case Types.INTEGER -> c.getSigned() || mediumInt(c) ? (Object) getInt(v) : (Object) getLong(v);
            case Types.BIGINT -> c.getSigned() ? (Object) getLong(v) : getBigInteger(v);
            case Types.REAL -> getFloat(v);
            case Types.FLOAT, Types.DOUBLE -> getDouble(v);
            case Types.DECIMAL, Types.NUMERIC -> getBigDecimal(v);
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR,
                 Types.CLOB, Types.NCLOB -> getString(v);
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> getBytes(v);
            case Types.DATE -> v.getKindCase() == Value.KindCase.INT_VALUE && c.getNativeType().equalsIgnoreCase("YEAR")
                    ? java.sql.Date.valueOf(LocalDate.of(year(v.getIntValue()), 1, 1)) : java.sql.Date.valueOf(getLocalDate(v));
            case Types.TIME -> java.sql.Time.valueOf(getLocalTime(v));
            // Connector/J: DATETIME as LocalDateTime, TIMESTAMP as java.sql.Timestamp
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> c.getNativeType().equalsIgnoreCase("DATETIME")
                    ? getLocalDateTime(v) : java.sql.Timestamp.valueOf(getLocalDateTime(v));
            default -> byKind(v);
        };
    }

    /** For columns of a type JDBC has no class for: whatever the value itself is. */
    private static Object byKind(Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> null;
            case INT_VALUE -> v.getIntValue();
            case DOUBLE_VALUE -> v.getDoubleValue();
            case FLOAT_VALUE -> v.getFloatValue();
            case DECIMAL_VALUE -> getBigDecimal(v);
            case STRING_VALUE -> v.getStringValue();
            case BYTES_VALUE -> getBytes(v);
            case BOOL_VALUE -> v.getBoolValue();
            case DATE_VALUE -> java.sql.Date.valueOf(getLocalDate(v));
            case TIME_VALUE -> java.sql.Time.valueOf(getLocalTime(v));
            case TIMESTAMP_VALUE -> java.sql.Timestamp.valueOf(getLocalDateTime(v));
        };
    }

    /** A MEDIUMINT, UNSIGNED too, fits an int: Connector/J reads it as an Integer. */
    private static boolean mediumInt(Column c) {
        return c.getTypeName().toUpperCase(java.util.Locale.ROOT).startsWith("MEDIUMINT");
    }

    static String className(Column c) {
        return switch (c.getJdbcType()) {
            case Types.BIT, Types.BOOLEAN -> Boolean.class.getName();
            case Types.TINYINT, Types.SMALLINT -> Integer.class.getName();
            case Types.INTEGER -> (c.getSigned() || mediumInt(c) ? Integer.class : Long.class).getName();
            case Types.BIGINT -> (c.getSigned() ? Long.class : BigInteger.class).getName();
            case Types.REAL -> Float.class.getName();
            case Types.FLOAT, Types.DOUBLE -> Double.class.getName();
            case Types.DECIMAL, Types.NUMERIC -> BigDecimal.class.getName();
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR,
                 Types.CLOB, Types.NCLOB -> String.class.getName();
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> "[B";
            case Types.DATE -> java.sql.Date.class.getName();
            case Types.TIME -> java.sql.Time.class.getName();
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> c.getNativeType().equalsIgnoreCase("DATETIME")
                    ? java.time.LocalDateTime.class.getName() : java.sql.Timestamp.class.getName();
            default -> Object.class.getName();
        };
    }

    private static long doubleToLong(double d) throws SQLException {
        if (Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63) {
            throw Errors.of("value " + d + " is out of range for long", Errors.NUMERIC_OUT_OF_RANGE);
        }
        return (long) d; // truncates toward zero
    }

    private static long decimalToLong(BigDecimal d) throws SQLException {
        if (d == null) {
            return 0;
        }
        if (d.compareTo(LONG_MIN) < 0 || d.compareTo(LONG_MAX) > 0) {
            throw Errors.of("value " + d.toPlainString() + " is out of range for long", Errors.NUMERIC_OUT_OF_RANGE);
        }
        return d.longValue();
    }

    private static BigDecimal doubleToDecimal(Value v, double d) throws SQLException {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw outOfRange(v, "BigDecimal");
        }
        return BigDecimal.valueOf(d);
    }

    private static BigDecimal parseDecimal(String s) throws SQLException {
        try {
            return new BigDecimal(s.trim());
        } catch (NumberFormatException e) {
            throw Errors.of("'" + s + "' is not a number", Errors.INVALID_CAST);
        }
    }

    private static boolean textToBoolean(String s) throws SQLException {
        if (s.isEmpty() || s.equalsIgnoreCase("N") || s.equalsIgnoreCase("false")) {
            return false;
        }
        if (s.equalsIgnoreCase("Y") || s.equalsIgnoreCase("true")) {
            return true;
        }
        return truth(textToNumber(s));
    }

    /**
     * Text read as a number, as Connector/J reads it: empty is 0; digits (with a leading minus) are
     * an exact integer; text with a decimal point or an exponent goes through a double (so
     * getBigDecimal of '2.5e3' is 2500.0, as there); anything else, spaces included, is 22018.
     */
    static BigDecimal textToNumber(String s) throws SQLException {
        if (s.isEmpty()) {
            return BigDecimal.ZERO;
        }
        if (INTEGER_TEXT.matcher(s).matches()) {
            return new BigDecimal(s);
        }
        if (FLOATING_TEXT.matcher(s).matches()) {
            double d = Double.parseDouble(s);
            if (Double.isFinite(d)) {
                return BigDecimal.valueOf(d);
            }
        }
        throw Errors.of("'" + s + "' is not a number", Errors.INVALID_CAST);
    }

    private static final java.util.regex.Pattern INTEGER_TEXT = java.util.regex.Pattern.compile("-?\\d+");
    private static final java.util.regex.Pattern FLOATING_TEXT = java.util.regex.Pattern.compile("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?");

    private static SQLException outOfRange(Value v, String type) {
        return Errors.of("value " + getString(v) + " is out of range for " + type, Errors.NUMERIC_OUT_OF_RANGE);
    }
}
