package org.lutra.server.mysql;

import org.lutra.sql.Guards;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether every call in a SELECT is one the prepare answer may run ({@link PrepareDescriber}): a word followed by
 * {@code (} must be a clause keyword or a built-in function of MariaDB that only computes a value. Anything else — a
 * stored function (which may write or wait: only its body would tell), a loadable function, a function that waits,
 * locks or reads the server's files ({@code SLEEP}, {@code GET_LOCK}, {@code MASTER_POS_WAIT}, {@code LOAD_FILE}), the
 * sequence functions, {@code LAST_INSERT_ID(expr)} — keeps the statement from being run at prepare time: it announces
 * no columns, as MySQL does where it cannot tell them. An allow-list, so a function this list does not know is never run.
 */
final class DescribableCalls {
    /** A name before {@code (}, qualified or not; quoted names are {@code ''} after {@link Guards#stripQuoted}. */
    private static final Pattern CALL = Pattern.compile("(?<![\\w@$])((?:[A-Za-z_][\\w$]*|'')(?:\\s*\\.\\s*(?:[A-Za-z_][\\w$]*|''))*)\\s*\\(");

    private static final Set<String> KEYWORDS = Set.of(
            "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "XOR", "IN", "EXISTS", "AS", "ON", "USING", "JOIN", "BY", "HAVING", "WHEN",
            "THEN", "ELSE", "CASE", "END", "ALL", "ANY", "SOME", "LIKE", "RLIKE", "REGEXP", "BETWEEN", "IS", "DISTINCT", "LIMIT", "OFFSET",
            "UNION", "EXCEPT", "INTERSECT", "OVER", "PARTITION", "INTERVAL", "VALUES", "ROW", "DIV", "MOD", "MATCH", "AGAINST", "LATERAL",
            "ESCAPE", "BINARY", "COLLATE", "NULL", "TRUE", "FALSE", "WITH", "RECURSIVE", "ORDER", "GROUP", "DESC", "ASC", "ROWS", "RANGE",
            "PRECEDING", "FOLLOWING", "WINDOW", "CHAR", "CHARACTER", "VARCHAR", "DECIMAL", "NUMERIC", "SIGNED", "UNSIGNED", "INTEGER",
            "INT", "DATE", "DATETIME", "TIME", "TIMESTAMP", "DOUBLE", "FLOAT", "REAL", "JSON", "NCHAR", "SET", "ENUM", "STRAIGHT_JOIN",
            "LEFT", "RIGHT", "INNER", "OUTER", "CROSS", "NATURAL", "FORCE", "USE", "IGNORE", "INDEX", "KEY", "LOCAL", "DUAL", "MEMBER", "OF");

    private static final Set<String> FUNCTIONS = Set.of(
            // control flow, comparison, casts
            "IF", "IFNULL", "NULLIF", "NVL", "NVL2", "COALESCE", "GREATEST", "LEAST", "ISNULL", "INTERVAL", "CAST", "CONVERT", "STRCMP",
            // numbers
            "ABS", "ACOS", "ASIN", "ATAN", "ATAN2", "CEIL", "CEILING", "CONV", "COS", "COT", "CRC32", "CRC32C", "DEGREES", "EXP", "FLOOR",
            "LN", "LOG", "LOG10", "LOG2", "OCT", "PI", "POW", "POWER", "RADIANS", "RAND", "ROUND", "SIGN", "SIN", "SQRT", "TAN", "TRUNCATE",
            "BIT_COUNT", "FORMAT", "HEX", "UNHEX", "BIN",
            // strings
            "ASCII", "CHAR_LENGTH", "CHARACTER_LENGTH", "CHR", "CONCAT", "CONCAT_WS", "ELT", "EXPORT_SET", "FIELD", "FIND_IN_SET", "INSERT",
            "INSTR", "LCASE", "LENGTH", "LENGTHB", "LOCATE", "LOWER", "LPAD", "LTRIM", "MAKE_SET", "MID", "NATURAL_SORT_KEY", "OCTET_LENGTH",
            "ORD", "POSITION", "QUOTE", "REPEAT", "REPLACE", "REVERSE", "RPAD", "RTRIM", "SOUNDEX", "SPACE", "SUBSTR", "SUBSTRING",
            "SUBSTRING_INDEX", "TO_CHAR", "TRIM", "TRIM_ORACLE", "UCASE", "UPPER", "WEIGHT_STRING", "REGEXP_INSTR", "REGEXP_REPLACE",
            "REGEXP_SUBSTR", "FROM_BASE64", "TO_BASE64", "CHARSET", "COLLATION", "COERCIBILITY", "SFORMAT", "FORMAT_BYTES", "FORMAT_PICO_TIME",
            // dates and times
            "ADDDATE", "ADDTIME", "CONVERT_TZ", "CURDATE", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURTIME", "DATE_ADD",
            "DATE_FORMAT", "DATE_SUB", "DATEDIFF", "DAY", "DAYNAME", "DAYOFMONTH", "DAYOFWEEK", "DAYOFYEAR", "EXTRACT", "FROM_DAYS",
            "FROM_UNIXTIME", "GET_FORMAT", "HOUR", "LAST_DAY", "LOCALTIME", "LOCALTIMESTAMP", "MAKEDATE", "MAKETIME", "MICROSECOND",
            "MINUTE", "MONTH", "MONTHNAME", "NOW", "PERIOD_ADD", "PERIOD_DIFF", "QUARTER", "SEC_TO_TIME", "SECOND", "STR_TO_DATE",
            "SUBDATE", "SUBTIME", "SYSDATE", "TIME_FORMAT", "TIME_TO_SEC", "TIMEDIFF", "TIMESTAMPADD", "TIMESTAMPDIFF", "TO_DAYS",
            "TO_SECONDS", "UNIX_TIMESTAMP", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "WEEK", "WEEKDAY", "WEEKOFYEAR", "YEAR", "YEARWEEK",
            // aggregates and windows
            "AVG", "BIT_AND", "BIT_OR", "BIT_XOR", "COUNT", "GROUP_CONCAT", "JSON_ARRAYAGG", "JSON_OBJECTAGG", "MAX", "MIN", "STD", "STDDEV",
            "STDDEV_POP", "STDDEV_SAMP", "SUM", "VAR_POP", "VAR_SAMP", "VARIANCE", "ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK",
            "CUME_DIST", "NTILE", "LAG", "LEAD", "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE", "MEDIAN", "PERCENTILE_CONT", "PERCENTILE_DISC",
            // JSON
            "JSON_ARRAY", "JSON_ARRAY_APPEND", "JSON_ARRAY_INSERT", "JSON_COMPACT", "JSON_CONTAINS", "JSON_CONTAINS_PATH", "JSON_DEPTH",
            "JSON_DETAILED", "JSON_EQUALS", "JSON_EXISTS", "JSON_EXTRACT", "JSON_INSERT", "JSON_KEYS", "JSON_LENGTH", "JSON_LOOSE",
            "JSON_MERGE", "JSON_MERGE_PATCH", "JSON_MERGE_PRESERVE", "JSON_NORMALIZE", "JSON_OBJECT", "JSON_OVERLAPS", "JSON_PRETTY",
            "JSON_QUERY", "JSON_QUOTE", "JSON_REMOVE", "JSON_REPLACE", "JSON_SEARCH", "JSON_SET", "JSON_TYPE", "JSON_UNQUOTE", "JSON_VALID",
            "JSON_VALUE",
            // hashes, encodings, identifiers, values
            "MD5", "SHA", "SHA1", "SHA2", "COMPRESS", "UNCOMPRESS", "UNCOMPRESSED_LENGTH", "INET_ATON", "INET_NTOA", "INET6_ATON",
            "INET6_NTOA", "IS_IPV4", "IS_IPV6", "IS_IPV4_COMPAT", "IS_IPV4_MAPPED", "UUID", "UUID_SHORT", "SYS_GUID", "DATABASE", "SCHEMA",
            "VERSION", "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "CONNECTION_ID", "DEFAULT", "VALUE", "BIT_LENGTH",
            "AES_ENCRYPT", "AES_DECRYPT", "DECODE", "ENCODE", "ENCRYPT", "PASSWORD", "OLD_PASSWORD", "RANDOM_BYTES", "IS_FREE_LOCK", "IS_USED_LOCK",
            "FOUND_ROWS", "ROW_COUNT");

    private DescribableCalls() {}

    /** Whether every call in {@code sql} (quoted text aside) is a keyword or a function of the list above. */
    static boolean allKnown(String sql) {
        String text = Guards.stripQuoted(sql);
        if (text.contains("/*") || text.contains("#") || text.contains("--")) return false; // a comment could hide a call's name from the scan
        var m = CALL.matcher(text);
        while (m.find()) {
            String word = m.group(1).toUpperCase(Locale.ROOT);
            if (word.contains(".") || word.contains("'")) return false; // db.f(...), `f`(...): a stored function
            if (!KEYWORDS.contains(word) && !FUNCTIONS.contains(word)) return false;
        }
        return true;
    }
}
