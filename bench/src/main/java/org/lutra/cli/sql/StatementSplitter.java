package org.lutra.cli.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts SQL text into statements at ';' outside quotes ('..', "..", `..`, with backslash and
 * doubled-quote escapes) and comments (-- .., # .., /* .. *&#47;). Fed incrementally, so the
 * interactive shell can run each statement as soon as its ';' arrives.
 */
public final class StatementSplitter {

    private enum Mode { CODE, SINGLE, DOUBLE, BACKTICK, LINE_COMMENT, BLOCK_COMMENT }

    private final StringBuilder pending = new StringBuilder();
    private Mode mode = Mode.CODE;
    private boolean escaped;
    private boolean hasCode; // pending holds more than whitespace and comments

    /** All statements of {@code sql}, trimmed, empty ones dropped; the last needs no ';'. */
    public static List<String> split(String sql) {
        var splitter = new StatementSplitter();
        var out = new ArrayList<>(splitter.feed(sql));
        String rest = splitter.pending();
        if (!rest.isEmpty()) out.add(rest);
        return out;
    }

    /** Adds text; returns the statements it completed (without their ';'). */
    public List<String> feed(String text) {
        var done = new ArrayList<String>();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            char next = i + 1 < text.length() ? text.charAt(i + 1) : '\0';
            switch (mode) {
                case CODE -> {
                    if (c == ';') {
                        if (hasCode) done.add(pending.toString().trim());
                        pending.setLength(0);
                        hasCode = false;
                        continue;
                    }
                    if (c == '\'') mode = Mode.SINGLE;
                    else if (c == '"') mode = Mode.DOUBLE;
                    else if (c == '`') mode = Mode.BACKTICK;
                    else if (c == '#') mode = Mode.LINE_COMMENT;
                    else if (c == '-' && next == '-' && (i + 2 >= text.length() || Character.isWhitespace(text.charAt(i + 2)))) mode = Mode.LINE_COMMENT;
                    else if (c == '/' && next == '*') {
                        pending.append(c).append(next);
                        i++;
                        mode = Mode.BLOCK_COMMENT;
                        continue;
                    }
                    if (mode != Mode.LINE_COMMENT && !Character.isWhitespace(c)) hasCode = true;
                }
                case SINGLE, DOUBLE, BACKTICK -> {
                    char quote = mode == Mode.SINGLE ? '\'' : mode == Mode.DOUBLE ? '"' : '`';
                    if (escaped) escaped = false;
                    else if (c == '\\' && mode != Mode.BACKTICK) escaped = true;
                    else if (c == quote) mode = Mode.CODE; // a doubled quote re-enters the same mode on the next char
                }
                case LINE_COMMENT -> {
                    if (c == '\n') mode = Mode.CODE;
                }
                case BLOCK_COMMENT -> {
                    if (c == '*' && next == '/') {
                        pending.append(c).append(next);
                        i++;
                        mode = Mode.CODE;
                        continue;
                    }
                }
            }
            pending.append(c);
        }
        return done;
    }

    /** The statement fed but not yet terminated by ';', trimmed; empty if it holds only comments. */
    public String pending() {
        return hasCode ? pending.toString().trim() : "";
    }

    /** True when something other than whitespace has been fed since the last ';'. */
    public boolean inStatement() {
        return !pending.toString().isBlank();
    }

}
