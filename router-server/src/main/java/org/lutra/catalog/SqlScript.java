package org.lutra.catalog;

import java.util.ArrayList;
import java.util.List;

/** Splits a SQL script into statements on ';' outside quotes and comments, remembering each one's first line. */
public final class SqlScript {
    public record Statement(String text, int line) {}

    private SqlScript() {}

    public static List<Statement> split(String script) {
        var out = new ArrayList<Statement>();
        var current = new StringBuilder();
        int line = 1;
        int startLine = -1;
        char quote = 0;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            char next = i + 1 < script.length() ? script.charAt(i + 1) : 0;
            if (quote != 0) {
                current.append(c);
                if (c == '\\' && quote != '`' && next != 0) {
                    current.append(next);
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '-' && next == '-' || c == '#') {
                while (i < script.length() && script.charAt(i) != '\n') i++;
                i--; // let the newline be counted below
                continue;
            } else if (c == '/' && next == '*') {
                int end = script.indexOf("*/", i + 2);
                end = end < 0 ? script.length() : end + 2;
                for (int k = i; k < end; k++) if (script.charAt(k) == '\n') line++;
                i = end - 1;
                current.append(' ');
                continue;
            } else if (c == ';') {
                add(out, current, startLine);
                startLine = -1;
                continue;
            } else {
                if (c == '\'' || c == '"' || c == '`') quote = c;
                current.append(c);
            }
            if (c == '\n') line++;
            if (startLine < 0 && !Character.isWhitespace(c)) startLine = c == '\n' ? line - 1 : line;
        }
        add(out, current, startLine);
        return out;
    }

    private static void add(List<Statement> out, StringBuilder sb, int line) {
        String text = sb.toString().strip();
        if (!text.isEmpty()) out.add(new Statement(text, line));
        sb.setLength(0);
    }

    /**
     * Splits on commas outside quotes (with backslash escapes) and parentheses, each part stripped:
     * a placement clause's ON list, ALTER TABLE's clauses.
     */
    public static List<String> splitTopLevel(String s) {
        var out = new ArrayList<String>();
        int depth = 0;
        char quote = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') i++;
                else if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(s.substring(start, i).strip());
                start = i + 1;
            }
        }
        if (!s.substring(start).isBlank()) out.add(s.substring(start).strip());
        return out;
    }
}
