package org.lutra.catalog;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A column's SQL type as far as converting a value into it goes ({@link StoredValue}): the kind, its length (characters
 * of a CHAR/VARCHAR, bytes of a BINARY/VARBINARY, bits of a BIT, digits of a DECIMAL), a DECIMAL's scale, UNSIGNED,
 * and the character set of a text column where the definition names it (null: the table's or server's default).
 *
 * @param charset "binary" for BINARY, VARBINARY and BLOB; the named character set of a text column (also the
 *                prefix of its collation); null when the definition names none
 */
public record ColumnType(Kind kind, int length, int scale, boolean unsigned, String charset) {
    public enum Kind { TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT, DECIMAL, YEAR, BIT, CHAR, VARCHAR, BINARY, VARBINARY, OTHER }

    /** {@code INT (11) UNSIGNED ZEROFILL}, {@code varchar(12) CHARACTER SET utf8mb4}: the name, the arguments, the rest. */
    private static final Pattern TYPE = Pattern.compile("(?is)\\s*(\\w+)\\s*(?:\\(\\s*([^)]*)\\))?(.*)");
    private static final Pattern CHARSET = Pattern.compile("(?i)\\b(?:CHARACTER\\s+SET|CHARSET)\\s*=?\\s*`?(\\w+)`?");
    private static final Pattern COLLATE = Pattern.compile("(?i)\\bCOLLATE\\s*=?\\s*`?(\\w+)`?");

    /**
     * The type of a column definition: {@code typeName} as the parser prints it ({@code INT UNSIGNED},
     * {@code DECIMAL (10, 2)}), {@code specs} the rest of the definition (its COLLATE, if any).
     */
    public static ColumnType parse(String typeName, String specs) {
        var m = TYPE.matcher(typeName == null ? "" : typeName);
        if (!m.matches()) return new ColumnType(Kind.OTHER, 0, 0, false, null);
        String name = m.group(1).toUpperCase(Locale.ROOT);
        String[] args = m.group(2) == null ? new String[0] : m.group(2).split("\\s*,\\s*");
        String rest = (m.group(3) + " " + (specs == null ? "" : specs)).toUpperCase(Locale.ROOT);
        boolean unsigned = rest.matches("(?s).*\\bUNSIGNED\\b.*") || rest.matches("(?s).*\\bZEROFILL\\b.*");
        int first = args.length > 0 ? number(args[0], -1) : -1;
        Kind kind = switch (name) {
            case "TINYINT", "BOOL", "BOOLEAN" -> Kind.TINYINT;
            case "SMALLINT" -> Kind.SMALLINT;
            case "MEDIUMINT" -> Kind.MEDIUMINT;
            case "INT", "INTEGER" -> Kind.INT;
            case "BIGINT" -> Kind.BIGINT;
            case "DECIMAL", "DEC", "NUMERIC", "FIXED" -> Kind.DECIMAL;
            case "YEAR" -> Kind.YEAR;
            case "BIT" -> Kind.BIT;
            case "CHAR", "CHARACTER", "NCHAR" -> Kind.CHAR;
            case "VARCHAR", "NVARCHAR" -> Kind.VARCHAR;
            case "BINARY" -> Kind.BINARY;
            case "VARBINARY" -> Kind.VARBINARY;
            default -> Kind.OTHER;
        };
        int length = switch (kind) {
            case DECIMAL -> first < 0 ? 10 : first;
            case BIT, CHAR, BINARY -> first < 0 ? 1 : first;
            case VARCHAR, VARBINARY -> first;
            default -> 0;
        };
        int scale = kind == Kind.DECIMAL && args.length > 1 ? number(args[1], 0) : 0;
        String charset = null;
        if (kind == Kind.BINARY || kind == Kind.VARBINARY) {
            charset = "binary";
        } else if (kind == Kind.CHAR || kind == Kind.VARCHAR) {
            var cs = CHARSET.matcher(rest);
            var collate = COLLATE.matcher(rest);
            if (cs.find()) charset = cs.group(1).toLowerCase(Locale.ROOT);
            else if (collate.find()) charset = collate.group(1).toLowerCase(Locale.ROOT).replaceFirst("_.*", "");
        }
        if ((kind == Kind.VARCHAR || kind == Kind.VARBINARY) && length < 0) kind = Kind.OTHER;
        return new ColumnType(kind, length, scale, unsigned, charset);
    }

    private static int number(String s, int otherwise) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    public boolean integer() {
        return switch (kind) {
            case TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT -> true;
            default -> false;
        };
    }

    public boolean text() {
        return kind == Kind.CHAR || kind == Kind.VARCHAR || kind == Kind.BINARY || kind == Kind.VARBINARY;
    }

    public boolean binary() {
        return "binary".equals(charset);
    }

    /** The smallest value of an integer kind. */
    long min() {
        if (unsigned) return 0;
        return switch (kind) {
            case TINYINT -> Byte.MIN_VALUE;
            case SMALLINT -> Short.MIN_VALUE;
            case MEDIUMINT -> -(1 << 23);
            case INT -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
    }

    /** The largest value of an integer kind; BIGINT UNSIGNED's is {@link #maxUnsignedBigint()}. */
    long max() {
        return switch (kind) {
            case TINYINT -> unsigned ? 255 : Byte.MAX_VALUE;
            case SMALLINT -> unsigned ? 65_535 : Short.MAX_VALUE;
            case MEDIUMINT -> unsigned ? (1 << 24) - 1 : (1 << 23) - 1;
            case INT -> unsigned ? 4_294_967_295L : Integer.MAX_VALUE;
            default -> Long.MAX_VALUE;
        };
    }

    static java.math.BigInteger maxUnsignedBigint() {
        return java.math.BigInteger.ONE.shiftLeft(64).subtract(java.math.BigInteger.ONE);
    }
}
