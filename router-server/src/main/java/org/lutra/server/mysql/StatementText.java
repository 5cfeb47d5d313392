package org.lutra.server.mysql;

import java.util.ArrayList;
import java.util.List;

/**
 * What the MySQL listener reads of a statement's text itself: its '?' placeholders (COM_STMT_PREPARE
 * tells the client how many) and where multi-statement text (CLIENT_MULTI_STATEMENTS) splits. Both
 * skip quoted strings and identifiers and comments, as MySQL's lexer does; an executable comment
 * ({@code /*! ... *}{@code /}) is code.
 */
final class StatementText {
    private StatementText() {}

    static int paramCount(String sql) {
        int count = 0;
        for (int i = 0; i < sql.length(); ) {
            int skip = skipped(sql, i);
            if (skip > i) {
                i = skip;
                continue;
            }
            if (sql.charAt(i) == '?') count++;
            i++;
        }
        return count;
    }

    /** The statements of {@code sql} in order, each without its ';'; text after the last ';' that is blank or only comments is none. */
    static List<String> split(String sql) {
        var statements = new ArrayList<String>();
        int start = 0;
        boolean code = false; // the current piece has something besides blanks and comments
        for (int i = 0; i < sql.length(); ) {
            int skip = skipped(sql, i);
            if (skip > i) {
                if (quote(sql.charAt(i))) code = true;
                i = skip;
                continue;
            }
            char c = sql.charAt(i);
            if (c == ';') {
                if (code) statements.add(sql.substring(start, i));
                start = i + 1;
                code = false;
            } else if (!Character.isWhitespace(c)) {
                code = true;
            }
            i++;
        }
        if (code) statements.add(sql.substring(start));
        if (statements.isEmpty()) statements.add(sql); // the router answers an empty statement as MySQL does (1065)
        return statements;
    }

    private static boolean quote(char c) {
        return c == '\'' || c == '"' || c == '`';
    }

    /** The index after the quoted text or comment starting at {@code i}, or {@code i} if none starts there. */
    private static int skipped(String sql, int i) {
        char c = sql.charAt(i);
        if (quote(c)) {
            for (int j = i + 1; j < sql.length(); j++) {
                char d = sql.charAt(j);
                if (d == '\\' && c != '`') j++;
                else if (d == c) {
                    if (j + 1 < sql.length() && sql.charAt(j + 1) == c) j++; // a doubled quote
                    else return j + 1;
                }
            }
            return sql.length();
        }
        if (c == '#' || c == '-' && sql.startsWith("--", i) && (i + 2 == sql.length() || Character.isWhitespace(sql.charAt(i + 2)))) {
            int end = sql.indexOf('\n', i);
            return end < 0 ? sql.length() : end + 1;
        }
        if (c == '/' && sql.startsWith("/*", i) && !sql.startsWith("/*!", i) && !sql.startsWith("/*M!", i)) {
            int end = sql.indexOf("*/", i + 2);
            return end < 0 ? sql.length() : end + 2;
        }
        return i;
    }
}
