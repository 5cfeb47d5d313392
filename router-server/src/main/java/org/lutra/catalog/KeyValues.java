package org.lutra.catalog;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * Turns a value from SQL text or a bound parameter into the key a partitioning function sees,
 * following MySQL's comparison rules closely enough that routing never misses a row.
 *
 * <p>The rule: return a key only when every row the backend would match has exactly that key;
 * otherwise return null and the caller broadcasts. Examples: {@code id = '27'} and
 * {@code id = 27.0} route as 27; {@code id = '27abc'} (MySQL matches 27 with a warning) and
 * {@code name = 5} (MySQL compares numerically: '5', '05', '5.0' all match) broadcast.
 * String keys drop trailing spaces because MySQL's PAD SPACE collations ignore them.
 */
public final class KeyValues {
    private static final Pattern INTEGRAL_TEXT = Pattern.compile("\\s*[+-]?\\d+(\\.0*)?\\s*");
    private static final double EXACT_DOUBLE_LIMIT = 9.007199254740992E15; // 2^53

    private KeyValues() {}

    /** The routing key for {@code value} in a column of {@code type}, or null if it cannot be routed exactly. */
    public static Object normalize(Object value, KeyType type) {
        if (value == null) {
            return null;
        }
        return type == KeyType.LONG ? asLong(value) : asString(value);
    }

    private static Long asLong(Object value) {
        return switch (value) {
            case Long l -> l;
            case Integer i -> (long) i;
            case Short s -> (long) s;
            case Byte b -> (long) b;
            case Boolean b -> b ? 1L : 0L;
            case BigDecimal d -> exactLong(d);
            case java.math.BigInteger b -> b.bitLength() < 64 ? b.longValue() : null;
            case Double d -> exactLong(d);
            case Float f -> exactLong(f.doubleValue());
            case String s -> INTEGRAL_TEXT.matcher(s).matches() ? exactLong(new BigDecimal(s.trim())) : null;
            default -> null;
        };
    }

    private static Long exactLong(double d) {
        if (Double.isFinite(d) && Math.abs(d) < EXACT_DOUBLE_LIMIT && d == Math.rint(d)) {
            return (long) d;
        }
        return null;
    }

    private static Long exactLong(BigDecimal d) {
        try {
            return d.stripTrailingZeros().longValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    private static String asString(Object value) {
        if (!(value instanceof String s)) {
            return null; // a number compared with a string column compares numerically in MySQL
        }
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }

    /** A key as a JDBC parameter: a collated key binds its value (the backend matches every equal spelling). */
    public static Object bindable(Object key) {
        if (key instanceof TupleKey) throw new IllegalArgumentException("a tuple binds one parameter per part: " + key);
        return key instanceof CollatedKey c ? c.value() : key;
    }

    /** Stable hash used by {@code hash(col)} partitioning and DEFAULT NEW rules: the same on every router. */
    public static int bucket(Object key, int buckets) {
        if (key instanceof Long l) {
            return (int) Math.floorMod(l, (long) buckets);
        }
        if (key instanceof TupleKey t) return t.bucket(buckets);
        var crc = new CRC32();
        if (key instanceof CollatedKey c) crc.update(c.weight()); // equal values, one weight, one bucket
        else crc.update(((String) key).getBytes(StandardCharsets.UTF_8));
        return (int) Math.floorMod(crc.getValue(), (long) buckets);
    }

    /**
     * Orders keys as MySQL orders the column: numerically, or by code point for binary string collations;
     * collated keys by weight (a total order, used to order locks; the column's order only under NO PAD).
     */
    public static int compare(Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        if (a instanceof CollatedKey x && b instanceof CollatedKey y) {
            return x.compareTo(y);
        }
        if (a instanceof TupleKey x && b instanceof TupleKey y) {
            return x.compareTo(y);
        }
        String s = (String) a;
        String t = (String) b;
        int i = 0;
        int j = 0;
        while (i < s.length() && j < t.length()) {
            int c = s.codePointAt(i);
            int d = t.codePointAt(j);
            if (c != d) {
                return Integer.compare(c, d);
            }
            i += Character.charCount(c);
            j += Character.charCount(d);
        }
        return Integer.compare(s.length() - i, t.length() - j);
    }
}
