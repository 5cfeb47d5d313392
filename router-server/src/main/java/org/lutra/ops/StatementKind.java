package org.lutra.ops;

import java.util.Locale;

/**
 * A statement's kind as a metric label: from its first keyword, one of a fixed few, so that label
 * values stay bounded whatever clients send (no statement text ever becomes a label). Read from the
 * text rather than the plan: statements refused before any plan exists are counted by kind too.
 */
enum StatementKind {
    SELECT, INSERT, UPDATE, DELETE, REPLACE, DDL, TRANSACTION, SET, SHOW, EXPLAIN, LOAD, CALL, BATCH, OTHER;

    final String label = name().toLowerCase(Locale.ROOT);

    /** The kind of {@code sql}; null is a batch. */
    static StatementKind of(String sql) {
        if (sql == null) return BATCH;
        String word = firstWord(sql);
        return switch (word) {
            case "select", "with", "values", "table", "(" -> SELECT;
            case "insert" -> INSERT;
            case "update" -> UPDATE;
            case "delete" -> DELETE;
            case "replace" -> REPLACE;
            case "create", "alter", "drop", "truncate", "rename" -> DDL;
            case "begin", "start", "commit", "rollback", "savepoint", "release", "xa" -> TRANSACTION;
            case "set", "use" -> SET;
            case "show", "describe", "desc" -> SHOW;
            case "explain" -> EXPLAIN;
            case "load", "pause", "resume" -> LOAD;
            case "call", "do" -> CALL;
            default -> OTHER;
        };
    }

    /** The first keyword, lower case, after blanks and comments (at most 16 characters read of it). */
    static String firstWord(String sql) {
        int i = 0, n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*' && !(i + 2 < n && sql.charAt(i + 2) == '!')) {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) return "";
                i = end + 2;
            } else if (c == '/' && i + 2 < n && sql.charAt(i + 1) == '*' && sql.charAt(i + 2) == '!') {
                i += 3; // an executable comment's text runs: skip its opener and version digits
                while (i < n && Character.isDigit(sql.charAt(i))) i++;
            } else if (c == '*' && i + 1 < n && sql.charAt(i + 1) == '/') {
                i += 2; // the end of an executable comment
            } else if (c == '#' || (c == '-' && i + 2 < n && sql.charAt(i + 1) == '-' && Character.isWhitespace(sql.charAt(i + 2)))) {
                int end = sql.indexOf('\n', i);
                if (end < 0) return "";
                i = end + 1;
            } else {
                break;
            }
        }
        if (i < n && sql.charAt(i) == '(') return "(";
        int start = i;
        while (i < n && i - start < 16 && Character.isLetter(sql.charAt(i))) i++;
        return sql.substring(start, i).toLowerCase(Locale.ROOT);
    }
}
