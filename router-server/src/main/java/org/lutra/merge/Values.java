package org.lutra.merge;

import com.google.protobuf.ByteString;
import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Locale;

/**
 * MySQL's ordering of single values as the router sees them on the wire. NULL is smallest
 * (ASC puts NULLs first, as MySQL does). Numbers compare by value whatever their wire kind;
 * binary strings and weight strings compare byte by byte (unsigned); TIME compares by its signed
 * length; DATE/DATETIME/TIMESTAMP text is fixed-width so it compares as text. Character strings
 * must be compared through their weight string (see {@link SortKey}); without one they are
 * refused, because the router does not know the collation.
 */
public final class Values {
    private Values() {}

    /** Whether a column holds integers (TINYINT ... BIGINT, signed or not). */
    public static boolean isInteger(Column c) {
        return switch (c.getJdbcType()) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> true;
            default -> false;
        };
    }

    /** Whether a column of this type needs a weight string to be ordered or grouped. */
    public static boolean needsWeight(Column c) {
        return switch (c.getJdbcType()) {
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB -> true;
            default -> false;
        };
    }

    /**
     * Checks that the router can order or group values of column {@code c} exactly as MySQL does:
     * ENUM and SET sort by their index and JSON by its own rules, which the wire does not carry.
     */
    public static void requireOrderable(Column c, String what) throws SQLException {
        String type = c.getTypeName().toUpperCase(Locale.ROOT);
        if (type.startsWith("ENUM") || type.startsWith("SET") || type.startsWith("JSON") || type.startsWith("GEOMETRY")) {
            throw Refusal.of("Lutra does not support " + what + " on a " + type + " column ('" + c.getLabel()
                    + "') over several partitions");
        }
    }

    public static int compare(Value a, Value b) {
        boolean an = isNull(a);
        boolean bn = isNull(b);
        if (an || bn) return an == bn ? 0 : an ? -1 : 1;
        if (isNumber(a) && isNumber(b)) return compareNumbers(a, b);
        if (a.getKindCase() == Value.KindCase.BYTES_VALUE || b.getKindCase() == Value.KindCase.BYTES_VALUE) {
            return ByteString.unsignedLexicographicalComparator().compare(bytes(a), bytes(b));
        }
        if (a.getKindCase() == Value.KindCase.TIME_VALUE && b.getKindCase() == Value.KindCase.TIME_VALUE) {
            return Long.compare(timeMicros(a.getTimeValue()), timeMicros(b.getTimeValue()));
        }
        return text(a).compareTo(text(b));
    }

    public static boolean isNull(Value v) {
        return v.getKindCase() == Value.KindCase.IS_NULL || v.getKindCase() == Value.KindCase.KIND_NOT_SET;
    }

    public static boolean isNumeric(Value v) {
        return isNumber(v);
    }

    static boolean isNumber(Value v) {
        return switch (v.getKindCase()) {
            case INT_VALUE, DECIMAL_VALUE, DOUBLE_VALUE, FLOAT_VALUE, BOOL_VALUE -> true;
            default -> false;
        };
    }

    private static int compareNumbers(Value a, Value b) {
        if (a.getKindCase() == Value.KindCase.INT_VALUE && b.getKindCase() == Value.KindCase.INT_VALUE) {
            return Long.compare(a.getIntValue(), b.getIntValue());
        }
        return decimal(a).compareTo(decimal(b));
    }

    /** The exact value of a numeric wire value. */
    public static BigDecimal decimal(Value v) {
        return switch (v.getKindCase()) {
            case INT_VALUE -> BigDecimal.valueOf(v.getIntValue());
            case DECIMAL_VALUE -> new BigDecimal(v.getDecimalValue());
            case DOUBLE_VALUE -> new BigDecimal(v.getDoubleValue());
            case FLOAT_VALUE -> new BigDecimal(v.getFloatValue());
            case BOOL_VALUE -> v.getBoolValue() ? BigDecimal.ONE : BigDecimal.ZERO;
            default -> throw new IllegalArgumentException("not a number: " + v);
        };
    }

    private static ByteString bytes(Value v) {
        return v.getKindCase() == Value.KindCase.BYTES_VALUE ? v.getBytesValue() : ByteString.copyFromUtf8(text(v));
    }

    private static String text(Value v) {
        return switch (v.getKindCase()) {
            case STRING_VALUE -> v.getStringValue();
            case DATE_VALUE -> v.getDateValue();
            case TIME_VALUE -> v.getTimeValue();
            case TIMESTAMP_VALUE -> v.getTimestampValue();
            default -> String.valueOf(decimal(v));
        };
    }

    /** '[-]HHH:MM:SS[.ffffff]' as signed microseconds. */
    static long timeMicros(String t) {
        boolean negative = t.startsWith("-");
        String s = negative ? t.substring(1) : t;
        String[] parts = s.split(":");
        long hours = Long.parseLong(parts[0]);
        long minutes = parts.length > 1 ? Long.parseLong(parts[1]) : 0;
        String sec = parts.length > 2 ? parts[2] : "0";
        int dot = sec.indexOf('.');
        long seconds = Long.parseLong(dot < 0 ? sec : sec.substring(0, dot));
        long micros = 0;
        if (dot >= 0) {
            String frac = (sec.substring(dot + 1) + "000000").substring(0, 6);
            micros = Long.parseLong(frac);
        }
        long total = ((hours * 60 + minutes) * 60 + seconds) * 1_000_000 + micros;
        return negative ? -total : total;
    }
}
