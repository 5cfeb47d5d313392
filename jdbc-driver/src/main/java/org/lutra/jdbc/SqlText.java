package org.lutra.jdbc;

/**
 * Lexical facts about MySQL statement text that the driver needs without a parser: how many
 * '?' placeholders there are outside string literals, quoted identifiers and comments.
 */
final class SqlText {
    private SqlText() {}

    static int countParameters(String sql) {
        int count = 0;
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            switch (c) {
                case '\'', '"', '`' -> i = skipQuoted(sql, i, c);
                case '#' -> i = skipToLineEnd(sql, i);
                case '-' -> {
                    // MySQL: "-- " starts a comment only when followed by whitespace or the end.
                    if (i + 1 < n && sql.charAt(i + 1) == '-' && (i + 2 >= n || Character.isWhitespace(sql.charAt(i + 2)))) {
                        i = skipToLineEnd(sql, i);
                    }
                }
                case '/' -> {
                    if (i + 1 < n && sql.charAt(i + 1) == '*') {
                        int end = sql.indexOf("*/", i + 2);
                        i = end < 0 ? n : end + 1;
                    }
                }
                case '?' -> count++;
                default -> { }
            }
        }
        return count;
    }

    /** Index of the closing quote; doubled quotes and (outside backticks) backslashes escape. */
    private static int skipQuoted(String sql, int start, char quote) {
        int n = sql.length();
        for (int i = start + 1; i < n; i++) {
            char c = sql.charAt(i);
            if (c == '\\' && quote != '`') {
                i++;
            } else if (c == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return n;
    }

    private static int skipToLineEnd(String sql, int start) {
        int end = sql.indexOf('\n', start);
        return end < 0 ? sql.length() : end;
    }
}
