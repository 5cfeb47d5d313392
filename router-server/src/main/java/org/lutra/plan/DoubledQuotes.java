package org.lutra.plan;

import org.lutra.sql.SqlSpans;

/**
 * Rewrites a doubled quote inside a string literal ({@code 'it''s'}) as its backslash escape ({@code 'it\'s'}),
 * which MySQL reads alike (the router refuses NO_BACKSLASH_ESCAPES). JSQLParser 5.4, reading backslash escapes,
 * ends a literal at a doubled quote that follows an escaped backslash ({@code 'a\\''b'}: Connector/J's escaping
 * of the value {@code a\'b}). The text keeps its length, so a syntax error's column stays the client's.
 */
final class DoubledQuotes {
    private DoubledQuotes() {}

    static String asBackslashEscapes(String sql) {
        if (sql.indexOf('\\') < 0 || sql.indexOf("''") < 0 && sql.indexOf("\"\"") < 0) return sql; // nothing the parser misreads
        char[] out = null;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = SqlSpans.quoted(sql, i, c);
                for (int j = i + 1; j < end - 1; j++) {
                    char d = sql.charAt(j);
                    if (d == '\\') j++;
                    else if (d == c) { // a doubled quote: quoted() let it stand for itself
                        if (out == null) out = sql.toCharArray();
                        out[j] = '\\';
                        j++;
                    }
                }
                i = end;
            } else if (c == '`') {
                i = SqlSpans.quoted(sql, i, c);
            } else if (c == '#' || c == '-' && i + 2 < sql.length() && sql.charAt(i + 1) == '-' && Character.isWhitespace(sql.charAt(i + 2))) {
                i = SqlSpans.lineEnd(sql, i);
            } else if (c == '/' && sql.startsWith("/*", i) && !sql.startsWith("/*!", i) && !sql.startsWith("/*M!", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? sql.length() : close + 2;
            } else {
                i++;
            }
        }
        return out == null ? sql : new String(out);
    }
}
