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

    /** The kind of {@code sql}; null is a batch. Reads the first keyword in place: no allocation, it runs for every statement. */
    static StatementKind of(String sql) {
        if (sql == null) return BATCH;
        int at = start(sql);
        if (at < 0) return OTHER;
        if (at < sql.length() && sql.charAt(at) == '(') return SELECT;
        int end = at;
        while (end < sql.length() && end - at <= 16 && Character.isLetter(sql.charAt(end))) end++;
        int length = end - at;
        for (var kind : WORDS) {
            if (kind.word().length() == length && sql.regionMatches(true, at, kind.word(), 0, length)) return kind.kind();
        }
        return OTHER;
    }

    private record Word(String word, StatementKind kind) {}

    private static final Word[] WORDS = {new Word("select", SELECT), new Word("insert", INSERT), new Word("update", UPDATE),
            new Word("delete", DELETE), new Word("with", SELECT), new Word("values", SELECT), new Word("table", SELECT),
            new Word("replace", REPLACE), new Word("create", DDL), new Word("alter", DDL), new Word("drop", DDL), new Word("truncate", DDL),
            new Word("rename", DDL), new Word("begin", TRANSACTION), new Word("start", TRANSACTION), new Word("commit", TRANSACTION),
            new Word("rollback", TRANSACTION), new Word("savepoint", TRANSACTION), new Word("release", TRANSACTION), new Word("xa", TRANSACTION),
            new Word("set", SET), new Word("use", SET), new Word("show", SHOW), new Word("describe", SHOW), new Word("desc", SHOW),
            new Word("explain", EXPLAIN), new Word("load", LOAD), new Word("pause", LOAD), new Word("resume", LOAD), new Word("call", CALL),
            new Word("do", CALL)};

    /** Where the first keyword starts, after blanks and comments; -1 where a comment never ends. */
    static int start(String sql) {
        int i = 0, n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*' && !(i + 2 < n && sql.charAt(i + 2) == '!')) {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) return -1;
                i = end + 2;
            } else if (c == '/' && i + 2 < n && sql.charAt(i + 1) == '*' && sql.charAt(i + 2) == '!') {
                i += 3; // an executable comment's text runs: skip its opener and version digits
                while (i < n && Character.isDigit(sql.charAt(i))) i++;
            } else if (c == '*' && i + 1 < n && sql.charAt(i + 1) == '/') {
                i += 2; // the end of an executable comment
            } else if (c == '#' || (c == '-' && i + 2 < n && sql.charAt(i + 1) == '-' && Character.isWhitespace(sql.charAt(i + 2)))) {
                int end = sql.indexOf('\n', i);
                if (end < 0) return -1;
                i = end + 1;
            } else {
                return i;
            }
        }
        return i;
    }
}
