package org.lutra.catalog;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * The value a column holds after an INSERT (or an UPDATE's SET) writes a value into it, as MariaDB converts it: an
 * INSERT's row is routed, and its foreign keys checked, on that value, not on the value as written — {@code 12.6} into
 * an INT column is stored, and routed, as 13.
 *
 * <p>The rules, each checked against MariaDB's own answers ({@code StoredValueIT} writes them into the table
 * {@code StoredValueTest} reads): exact numbers (decimal literals and parameters) round half away from zero, doubles
 * (literals with an exponent, double parameters) to the nearest even integer; text is read as MariaDB reads a number in
 * text (leading spaces, a sign, digits, a fraction, an exponent; anything after it but spaces is cut off); values out of
 * the column's range become its nearest bound; text longer than a CHAR/VARCHAR/BINARY column is cut to its length, a
 * BINARY column's value padded with zero bytes, a CHAR column's trailing spaces dropped. Where MariaDB's strict mode
 * refuses the write instead ({@link Stored#refusedWhenStrict}), the value is what it stores without strict mode or with
 * IGNORE.
 *
 * <p>{@link #of} answers null where the router cannot tell the stored value (a double into a text column, bytes, a type
 * it does not model).
 */
public final class StoredValue {
    /**
     * What a column holds after the write.
     *
     * @param value             Long (integer kinds, YEAR, BIT), BigInteger (BIGINT UNSIGNED and BIT(64) above Long's
     *                          range), BigDecimal (DECIMAL, at the column's scale), String (text kinds), or null (NULL)
     * @param refusedWhenStrict whether MariaDB in strict mode fails the statement (without IGNORE) instead of storing it
     */
    public record Stored(Object value, boolean refusedWhenStrict) {}

    private static final Stored NULL = new Stored(null, false);
    private static final BigDecimal MAX_EXPONENT_VALUE = new BigDecimal("1e80");

    private StoredValue() {}

    /** The value {@code type} holds after {@code value} (Long, Integer, BigDecimal, Double, Float, Boolean, String, byte[]) is written; null if the router cannot tell. */
    public static Stored of(ColumnType type, Object value) {
        if (value == null) return NULL;
        if (value instanceof Integer i) value = (long) i;
        if (value instanceof Short s) value = (long) s;
        if (value instanceof Byte b) value = (long) b;
        if (value instanceof Boolean b) value = b ? 1L : 0L;
        if (value instanceof Float f) value = f.doubleValue();
        if (value instanceof BigInteger b) value = new BigDecimal(b);
        return switch (type.kind()) {
            case TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT -> integer(type, value);
            case DECIMAL -> decimal(type, value);
            case YEAR -> year(value);
            case BIT -> bit(type, value);
            case CHAR, VARCHAR, BINARY, VARBINARY -> text(type, value);
            case OTHER -> null;
        };
    }

    // ---- numbers ----------------------------------------------------------------------------------

    /** A number read from text as MariaDB reads one ({@code strntoull10rnd}, {@code str2my_decimal}). */
    private record Parsed(BigDecimal number, boolean nothing, boolean rest) {}

    private static Parsed parse(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && space(s.charAt(i))) i++;
        int start = i;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
        int digitsFrom = i;
        while (i < n && digit(s.charAt(i))) i++;
        int intDigits = i - digitsFrom;
        int fracDigits = 0;
        if (i < n && s.charAt(i) == '.') {
            int dot = i++;
            while (i < n && digit(s.charAt(i))) i++;
            fracDigits = i - dot - 1;
            if (intDigits == 0 && fracDigits == 0) i = dot;
        }
        if (intDigits + fracDigits == 0) return new Parsed(BigDecimal.ZERO, true, true);
        String mantissa = s.substring(start, i);
        long exponent = 0;
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int e = i + 1;
            boolean negative = false;
            if (e < n && (s.charAt(e) == '+' || s.charAt(e) == '-')) negative = s.charAt(e++) == '-';
            int expFrom = e;
            while (e < n && digit(s.charAt(e))) e++;
            if (e > expFrom) {
                String digits = s.substring(expFrom, Math.min(e, expFrom + 6));
                exponent = Long.parseLong(digits) * (negative ? -1 : 1);
                i = e;
            }
        }
        int end = i;
        while (i < n && space(s.charAt(i))) i++;
        BigDecimal number = new BigDecimal(mantissa.endsWith(".") ? mantissa.substring(0, mantissa.length() - 1) : mantissa);
        if (number.signum() != 0) {
            if (exponent > 100) number = number.signum() > 0 ? MAX_EXPONENT_VALUE : MAX_EXPONENT_VALUE.negate();
            else if (exponent < -100) number = BigDecimal.ZERO;
            else number = number.scaleByPowerOfTen((int) exponent);
        }
        return new Parsed(number, false, i < n || end < start);
    }

    private static boolean space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B;
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private static Stored integer(ColumnType type, Object value) {
        BigDecimal low = BigDecimal.valueOf(type.min());
        BigDecimal high = type.kind() == ColumnType.Kind.BIGINT && type.unsigned() ? new BigDecimal(ColumnType.maxUnsignedBigint())
                : BigDecimal.valueOf(type.max());
        BigDecimal exact;
        boolean refused = false;
        switch (value) {
            case Long l -> exact = BigDecimal.valueOf(l);
            case BigDecimal d -> {
                if (type.unsigned() && d.signum() < 0) return new Stored(0L, true); // before rounding: -0.4 is out of range too
                exact = d.setScale(0, RoundingMode.HALF_UP);
            }
            case Double d -> {
                // Field_long::store(double): rint, then the bounds compared as doubles (2^63 into BIGINT is its maximum, no error)
                if (d.isNaN() || d.isInfinite()) return null;
                double r = Math.rint(d);
                if (type.unsigned() && r < 0) return new Stored(0L, true);
                if (r < low.doubleValue()) return new Stored(low.longValueExact(), true);
                if (r >= high.doubleValue()) return new Stored(number(high), r > high.doubleValue()
                        || type.kind() == ColumnType.Kind.BIGINT && type.unsigned()); // 2^64 is no BIGINT UNSIGNED
                exact = new BigDecimal(r);
            }
            case String s -> {
                Parsed p = parse(s);
                exact = p.number().setScale(0, RoundingMode.HALF_UP); // rounded first: '-0.4' is 0, in range
                if (type.unsigned() && exact.signum() < 0) return new Stored(0L, true);
                refused = p.nothing() || p.rest();
            }
            default -> {
                return null;
            }
        }
        if (exact.compareTo(low) < 0) return new Stored(low.longValueExact(), true);
        if (exact.compareTo(high) > 0) return new Stored(number(high), true);
        return new Stored(number(exact), refused);
    }

    /** A Long where it fits, else a BigInteger. */
    private static Object number(BigDecimal integral) {
        BigInteger b = integral.toBigIntegerExact();
        return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }

    private static Stored decimal(ColumnType type, Object value) {
        BigDecimal exact;
        boolean refused = false;
        switch (value) {
            case Long l -> exact = BigDecimal.valueOf(l);
            case BigDecimal d -> exact = d;
            case Double d -> {
                if (d.isNaN() || d.isInfinite()) return null;
                exact = BigDecimal.valueOf(d);
            }
            case String s -> {
                Parsed p = parse(s);
                exact = p.number();
                refused = p.nothing() || p.rest();
            }
            default -> {
                return null;
            }
        }
        BigDecimal rounded = exact.setScale(type.scale(), RoundingMode.HALF_UP);
        BigDecimal max = BigDecimal.TEN.pow(type.length() - type.scale()).subtract(BigDecimal.ONE.movePointLeft(type.scale()));
        BigDecimal min = type.unsigned() ? BigDecimal.ZERO.setScale(type.scale()) : max.negate();
        if (rounded.compareTo(max) > 0) return new Stored(max, true);
        if (rounded.compareTo(min) < 0) return new Stored(min, true);
        if (rounded.signum() == 0) rounded = BigDecimal.ZERO.setScale(type.scale()); // no negative zero
        return new Stored(rounded, refused);
    }

    private static Stored year(Object value) {
        long nr;
        boolean refused = false;
        switch (value) {
            case Long l -> nr = l;
            case BigDecimal d -> {
                if (d.signum() < 0) return new Stored(0L, true);
                nr = clampLong(d.setScale(0, RoundingMode.HALF_UP));
            }
            case Double d -> {
                // Field_year::store(double): the range, then the integer part
                if (d.isNaN() || d.isInfinite()) return null;
                if (d < 0 || d > 2155) return new Stored(0L, true);
                nr = (long) d.doubleValue();
            }
            case String s -> {
                Parsed p = parse(s);
                if (p.nothing()) return new Stored(0L, true);
                nr = clampLong(p.number().setScale(0, RoundingMode.HALF_UP));
                refused = p.rest();
                if (nr == 0 && s.length() != 4) return new Stored(2000L, refused); // '0' and '00' are 2000, '0000' is 0000
            }
            default -> {
                return null;
            }
        }
        if (nr < 0 || nr >= 100 && nr <= 1900 || nr > 2155) return new Stored(0L, true);
        if (nr == 0) return new Stored(0L, refused);
        if (nr < 70) return new Stored(2000 + nr, refused);
        if (nr < 100) return new Stored(1900 + nr, refused);
        return new Stored(nr, refused);
    }

    /** C's (longlong) of a double on x86-64: the integer part, and 0x8000000000000000 for what does not fit. */
    private static long cLong(double d) {
        return d >= 0x1p63 || d < -0x1p63 ? Long.MIN_VALUE : (long) d;
    }

    private static long clampLong(BigDecimal integral) {
        if (integral.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) return Long.MAX_VALUE;
        if (integral.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) return Long.MIN_VALUE;
        return integral.longValueExact();
    }

    private static Stored bit(ColumnType type, Object value) {
        int bits = Math.max(1, Math.min(64, type.length()));
        BigInteger ones = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        BigInteger v;
        switch (value) {
            case Long l -> v = BigInteger.valueOf(l);
            case BigDecimal d -> {
                if (d.signum() < 0) return new Stored(0L, true);
                v = d.setScale(0, RoundingMode.HALF_UP).toBigInteger();
            }
            case Double d -> {
                // Field_bit::store(double): the integer part, as a 64-bit pattern
                if (d.isNaN() || d.isInfinite()) return null;
                v = BigInteger.valueOf(cLong(d));
            }
            case String s -> v = new BigInteger(1, s.getBytes(StandardCharsets.UTF_8));
            case byte[] b -> v = new BigInteger(1, b);
            default -> {
                return null;
            }
        }
        if (v.signum() < 0) v = v.add(BigInteger.ONE.shiftLeft(64)); // stored as its 64-bit pattern
        if (v.bitLength() > bits) return new Stored(number(new BigDecimal(ones)), true);
        return new Stored(number(new BigDecimal(v)), false);
    }

    // ---- text -------------------------------------------------------------------------------------

    private static Stored text(ColumnType type, Object value) {
        String s = switch (value) {
            case String t -> t;
            case Long l -> Long.toString(l);
            case BigDecimal d -> d.toPlainString();
            default -> null; // a double's text depends on the column's length (my_gcvt); bytes need a character set
        };
        if (s == null) return null;
        if (type.binary()) return binary(type, s);
        // a character the column's character set lacks is stored as '?': one character still, so the length holds; the key
        // of such a value is the collation's to refuse (org.lutra.catalog.KeyCollation)
        int chars = s.codePointCount(0, s.length());
        boolean refused = false;
        if (chars > type.length()) {
            int cut = s.offsetByCodePoints(0, type.length());
            refused = !s.substring(cut).isBlank() || s.substring(cut).chars().anyMatch(c -> c != ' ');
            s = s.substring(0, cut);
        }
        if (type.kind() == ColumnType.Kind.CHAR) s = s.stripTrailing().length() == s.length() ? s : stripSpaces(s);
        return new Stored(s, refused);
    }

    private static String stripSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') end--;
        return s.substring(0, end);
    }

    private static Stored binary(ColumnType type, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        boolean refused = false;
        if (bytes.length > type.length()) {
            refused = true;
            bytes = java.util.Arrays.copyOf(bytes, type.length());
        }
        if (type.kind() == ColumnType.Kind.BINARY && bytes.length < type.length()) bytes = java.util.Arrays.copyOf(bytes, type.length());
        var decoder = StandardCharsets.UTF_8.newDecoder();
        try {
            return new Stored(decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString(), refused);
        } catch (java.nio.charset.CharacterCodingException cut) {
            return null; // a character cut in half: not text the router can route on
        }
    }
}
