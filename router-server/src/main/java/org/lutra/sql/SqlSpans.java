package org.lutra.sql;

/** Where quoted text and line comments end in a statement's text, for the small scanners that must skip them. */
public final class SqlSpans {
    private SqlSpans() {}

    /**
     * The index after the quote that closes the one at {@code open} ({@code quote}: ' " or `); a doubled quote
     * stands for itself, a backslash escapes the next character except between back-quotes; the text's end if
     * it never closes.
     */
    public static int quoted(String sql, int open, char quote) {
        for (int i = open + 1; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\\' && quote != '`') i++;
            else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) i++;
                else return i + 1;
            }
        }
        return sql.length();
    }

    /** The index after the line that {@code from} is on (a {@code #} or {@code -- } comment ends there). */
    public static int lineEnd(String sql, int from) {
        int nl = sql.indexOf('\n', from);
        return nl < 0 ? sql.length() : nl + 1;
    }
}
