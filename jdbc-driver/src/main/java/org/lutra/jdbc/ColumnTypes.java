package org.lutra.jdbc;

import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * MySQL column types as DatabaseMetaData describes them: the text of {@code SHOW COLUMNS}' Type
 * ("int(10) unsigned zerofill", "decimal(12,4)", "enum('x','yy')") read into the JDBC type, name,
 * size and digits that Connector/J reports for the same column (tools compare the two), and the
 * list {@code getTypeInfo} answers.
 */
final class ColumnTypes {
    private ColumnTypes() {}

    /**
     * One column's type.
     *
     * @param decimalDigits    null where digits do not apply (integers, text, temporals)
     * @param charOctetLength  null for types that are not character or binary strings
     */
    record Described(int jdbcType, String typeName, int columnSize, Integer decimalDigits, Integer charOctetLength) {}

    private static final Pattern ARGS = Pattern.compile("\\(([^)]*)\\)");

    static Described describe(String mysqlType) {
        String text = mysqlType.trim();
        String lower = text.toLowerCase(Locale.ROOT);
        int open = lower.indexOf('(');
        int space = lower.indexOf(' ');
        int end = open >= 0 && (space < 0 || open < space) ? open : space >= 0 ? space : lower.length();
        String base = lower.substring(0, end);
        boolean unsigned = lower.contains(" unsigned");
        String args = open >= 0 ? text.substring(open + 1, closing(text, open)) : null;
        Integer m = null, d = null;
        if (args != null && !base.equals("enum") && !base.equals("set")) {
            String[] parts = args.split(",");
            m = parseOrNull(parts[0]);
            d = parts.length > 1 ? parseOrNull(parts[1]) : null;
        }
        String u = unsigned ? " UNSIGNED" : "";
        return switch (base) {
            case "bit" -> new Described(Types.BIT, "BIT", m == null ? 1 : m, null, null);
            case "bool", "boolean" -> new Described(Types.BIT, "BIT", 1, null, null);
            // TINYINT(1) is a boolean to Connector/J (tinyInt1isBit), and so to Lutra's result sets
            case "tinyint" -> m != null && m == 1 && !unsigned ? new Described(Types.BIT, "BIT", 1, null, null)
                    : new Described(Types.TINYINT, "TINYINT" + u, 3, null, null);
            case "smallint" -> new Described(Types.SMALLINT, "SMALLINT" + u, 5, null, null);
            case "mediumint" -> new Described(Types.INTEGER, "MEDIUMINT" + u, unsigned ? 8 : 7, null, null);
            case "int", "integer" -> new Described(Types.INTEGER, "INT" + u, 10, null, null);
            case "bigint" -> new Described(Types.BIGINT, "BIGINT" + u, unsigned ? 20 : 19, null, null);
            case "decimal", "numeric", "dec", "fixed" -> new Described(Types.DECIMAL, "DECIMAL" + u, m == null ? 10 : m, d == null ? 0 : d, null);
            case "float" -> new Described(Types.REAL, "FLOAT" + u, m == null ? 12 : m, d == null ? 0 : d, null);
            case "double", "real", "double precision" -> new Described(Types.DOUBLE, "DOUBLE" + u, m == null ? 22 : m, d == null ? 0 : d, null);
            case "date" -> new Described(Types.DATE, "DATE", 10, null, null);
            case "year" -> new Described(Types.DATE, "YEAR", 4, null, null); // yearIsDateType, as Connector/J
            case "time" -> new Described(Types.TIME, "TIME", 8 + fraction(m), null, null);
            case "datetime" -> new Described(Types.TIMESTAMP, "DATETIME", 19 + fraction(m), null, null);
            case "timestamp" -> new Described(Types.TIMESTAMP, "TIMESTAMP", 19 + fraction(m), null, null);
            case "char" -> text(Types.CHAR, "CHAR", m == null ? 1 : m);
            case "varchar" -> text(Types.VARCHAR, "VARCHAR", m == null ? 65535 : m);
            case "tinytext" -> text(Types.VARCHAR, "TINYTEXT", 255);
            case "text" -> text(Types.LONGVARCHAR, "TEXT", 65535);
            case "mediumtext" -> text(Types.LONGVARCHAR, "MEDIUMTEXT", 16777215);
            case "longtext" -> text(Types.LONGVARCHAR, "LONGTEXT", Integer.MAX_VALUE);
            case "json" -> text(Types.LONGVARCHAR, "JSON", 1073741824); // MySQL 8's JSON; MariaDB's is LONGTEXT
            case "binary" -> text(Types.BINARY, "BINARY", m == null ? 1 : m);
            case "varbinary" -> text(Types.VARBINARY, "VARBINARY", m == null ? 65535 : m);
            case "tinyblob" -> text(Types.VARBINARY, "TINYBLOB", 255);
            case "blob" -> text(Types.LONGVARBINARY, "BLOB", 65535);
            case "mediumblob" -> text(Types.LONGVARBINARY, "MEDIUMBLOB", 16777215);
            case "longblob" -> text(Types.LONGVARBINARY, "LONGBLOB", Integer.MAX_VALUE);
            case "enum" -> text(Types.CHAR, "ENUM", longestMember(args));
            case "set" -> text(Types.CHAR, "SET", setLength(args));
            case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection", "geomcollection" ->
                    new Described(Types.BINARY, "GEOMETRY", 65535, null, null);
            // MariaDB's UUID, INET4, INET6, and whatever comes next: Connector/J has no name for them either
            default -> new Described(Types.OTHER, "UNKNOWN", 65535, null, null);
        };
    }

    private static Described text(int jdbcType, String name, int size) {
        return new Described(jdbcType, name, size, null, size);
    }

    private static int fraction(Integer fsp) {
        return fsp == null || fsp == 0 ? 0 : fsp + 1;
    }

    private static Integer parseOrNull(String s) {
        try {
            return Integer.valueOf(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The ')' that closes the '(' at {@code open}, skipping quoted members of ENUM and SET. */
    private static int closing(String text, int open) {
        boolean quoted = false;
        for (int i = open + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                if (quoted && i + 1 < text.length() && text.charAt(i + 1) == '\'') i++;
                else quoted = !quoted;
            } else if (c == '\\' && quoted) {
                i++;
            } else if (c == ')' && !quoted) {
                return i;
            }
        }
        return text.length();
    }

    /** The members of an ENUM or SET, unquoted: "'x','y''s'" -> [x, y's]. */
    static List<String> members(String args) {
        var out = new ArrayList<String>();
        if (args == null) return out;
        var cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < args.length(); i++) {
            char c = args.charAt(i);
            if (quoted) {
                if (c == '\'' && i + 1 < args.length() && args.charAt(i + 1) == '\'') {
                    cur.append('\'');
                    i++;
                } else if (c == '\\' && i + 1 < args.length()) {
                    cur.append(args.charAt(++i));
                } else if (c == '\'') {
                    quoted = false;
                    out.add(cur.toString());
                    cur.setLength(0);
                } else {
                    cur.append(c);
                }
            } else if (c == '\'') {
                quoted = true;
            }
        }
        return out;
    }

    private static int longestMember(String args) {
        return members(args).stream().mapToInt(String::length).max().orElse(0);
    }

    private static int setLength(String args) {
        var members = members(args);
        return members.stream().mapToInt(String::length).sum() + Math.max(0, members.size() - 1);
    }

    // ---- getTypeInfo ------------------------------------------------------------------------

    /** One row of getTypeInfo; the columns that are the same for every MySQL type are filled in by {@link #typeInfoRows}. */
    record TypeInfo(String name, int jdbcType, int precision, boolean quoted, String createParams, boolean unsigned,
                    boolean autoIncrement, String localName, int minScale, int maxScale) {}

    private static final String INT_PARAMS = "[(M)] [UNSIGNED] [ZEROFILL]";
    private static final String CHARSET_PARAMS = " [CHARACTER SET charset_name] [COLLATE collation_name]";

    /** MySQL's types, ordered by DATA_TYPE as JDBC asks; aliases (INTEGER, REAL, LONG VARCHAR) as rows of their own. */
    static final List<TypeInfo> TYPES = List.of(
            t("BIT", Types.BIT, 1, false, "[(M)]", false, false, "BIT", 0, 0),
            t("TINYINT", Types.TINYINT, 3, false, INT_PARAMS, false, true, "TINYINT", 0, 0),
            t("TINYINT UNSIGNED", Types.TINYINT, 3, false, INT_PARAMS, true, true, "TINYINT UNSIGNED", 0, 0),
            t("BIGINT", Types.BIGINT, 19, false, INT_PARAMS, false, true, "BIGINT", 0, 0),
            t("BIGINT UNSIGNED", Types.BIGINT, 20, false, INT_PARAMS, true, true, "BIGINT UNSIGNED", 0, 0),
            t("LONG VARBINARY", Types.LONGVARBINARY, 16777215, true, "", false, false, "MEDIUMBLOB", 0, 0),
            t("MEDIUMBLOB", Types.LONGVARBINARY, 16777215, true, "", false, false, "MEDIUMBLOB", 0, 0),
            t("LONGBLOB", Types.LONGVARBINARY, Integer.MAX_VALUE, true, "", false, false, "LONGBLOB", 0, 0),
            t("BLOB", Types.LONGVARBINARY, 65535, true, "[(M)]", false, false, "BLOB", 0, 0),
            t("VARBINARY", Types.VARBINARY, 65535, true, "(M)", false, false, "VARBINARY", 0, 0),
            t("TINYBLOB", Types.VARBINARY, 255, true, "", false, false, "TINYBLOB", 0, 0),
            t("BINARY", Types.BINARY, 255, true, "(M)", false, false, "BINARY", 0, 0),
            t("LONG VARCHAR", Types.LONGVARCHAR, 16777215, true, CHARSET_PARAMS, false, false, "MEDIUMTEXT", 0, 0),
            t("MEDIUMTEXT", Types.LONGVARCHAR, 16777215, true, CHARSET_PARAMS, false, false, "MEDIUMTEXT", 0, 0),
            t("LONGTEXT", Types.LONGVARCHAR, Integer.MAX_VALUE, true, CHARSET_PARAMS, false, false, "LONGTEXT", 0, 0),
            t("TEXT", Types.LONGVARCHAR, 65535, true, "[(M)]" + CHARSET_PARAMS, false, false, "TEXT", 0, 0),
            t("CHAR", Types.CHAR, 255, true, "[(M)]" + CHARSET_PARAMS, false, false, "CHAR", 0, 0),
            t("ENUM", Types.CHAR, 65535, true, "('value1','value2',...)" + CHARSET_PARAMS, false, false, "ENUM", 0, 0),
            t("SET", Types.CHAR, 64, true, "('value1','value2',...)" + CHARSET_PARAMS, false, false, "SET", 0, 0),
            t("DECIMAL", Types.DECIMAL, 65, false, "[(M[,D])] [UNSIGNED] [ZEROFILL]", false, false, "DECIMAL", -308, 308),
            t("NUMERIC", Types.DECIMAL, 65, false, "[(M[,D])] [UNSIGNED] [ZEROFILL]", false, false, "DECIMAL", -308, 308),
            t("INTEGER", Types.INTEGER, 10, false, INT_PARAMS, false, true, "INT", 0, 0),
            t("INT", Types.INTEGER, 10, false, INT_PARAMS, false, true, "INT", 0, 0),
            t("MEDIUMINT", Types.INTEGER, 7, false, INT_PARAMS, false, true, "MEDIUMINT", 0, 0),
            t("INTEGER UNSIGNED", Types.INTEGER, 10, false, INT_PARAMS, true, true, "INT UNSIGNED", 0, 0),
            t("INT UNSIGNED", Types.INTEGER, 10, false, INT_PARAMS, true, true, "INT UNSIGNED", 0, 0),
            t("MEDIUMINT UNSIGNED", Types.INTEGER, 8, false, INT_PARAMS, true, true, "MEDIUMINT UNSIGNED", 0, 0),
            t("SMALLINT", Types.SMALLINT, 5, false, INT_PARAMS, false, true, "SMALLINT", 0, 0),
            t("SMALLINT UNSIGNED", Types.SMALLINT, 5, false, INT_PARAMS, true, true, "SMALLINT UNSIGNED", 0, 0),
            t("FLOAT", Types.REAL, 12, false, "[(M,D)] [UNSIGNED] [ZEROFILL]", false, false, "FLOAT", -38, 38),
            t("DOUBLE", Types.DOUBLE, 22, false, "[(M,D)] [UNSIGNED] [ZEROFILL]", false, false, "DOUBLE", -308, 308),
            t("DOUBLE PRECISION", Types.DOUBLE, 22, false, "[(M,D)] [UNSIGNED] [ZEROFILL]", false, false, "DOUBLE", -308, 308),
            t("REAL", Types.DOUBLE, 22, false, "[(M,D)] [UNSIGNED] [ZEROFILL]", false, false, "DOUBLE", -308, 308),
            t("DOUBLE UNSIGNED", Types.DOUBLE, 22, false, "[(M,D)] [UNSIGNED] [ZEROFILL]", true, false, "DOUBLE UNSIGNED", -308, 308),
            t("DOUBLE PRECISION UNSIGNED", Types.DOUBLE, 22, false, "[(M,D)] [UNSIGNED] [ZEROFILL]", true, false, "DOUBLE UNSIGNED", -308, 308),
            t("VARCHAR", Types.VARCHAR, 65535, true, "(M)" + CHARSET_PARAMS, false, false, "VARCHAR", 0, 0),
            t("TINYTEXT", Types.VARCHAR, 255, true, CHARSET_PARAMS, false, false, "TINYTEXT", 0, 0),
            t("BOOL", Types.BOOLEAN, 3, false, "", false, true, "BOOLEAN", 0, 0),
            t("DATE", Types.DATE, 10, true, "", false, false, "DATE", 0, 0),
            t("YEAR", Types.DATE, 4, false, "[(4)]", false, false, "YEAR", 0, 0),
            t("TIME", Types.TIME, 16, true, "[(fsp)]", false, false, "TIME", 0, 0),
            t("DATETIME", Types.TIMESTAMP, 26, true, "[(fsp)]", false, false, "DATETIME", 0, 0),
            t("TIMESTAMP", Types.TIMESTAMP, 26, true, "[(fsp)]", false, false, "TIMESTAMP", 0, 0));

    private static TypeInfo t(String name, int jdbcType, int precision, boolean quoted, String createParams, boolean unsigned,
                              boolean autoIncrement, String localName, int minScale, int maxScale) {
        return new TypeInfo(name, jdbcType, precision, quoted, createParams, unsigned, autoIncrement, localName, minScale, maxScale);
    }
}
