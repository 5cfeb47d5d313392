package org.lutra.plan;

import java.util.Arrays;
import java.util.Set;

/**
 * MySQL text that the SQL parser does not read as MySQL does, rewritten before parsing into text
 * that means exactly the same:
 * <ul>
 *   <li>executable comments {@code /*! ... *}{@code /}, {@code /*!40001 ... *}{@code /} and MariaDB's
 *       {@code /*M! ... *}{@code /}: MySQL runs their content, the parser would drop it (so
 *       {@code SELECT 1 /*! + 1 *}{@code /} would answer 1): the content is kept, the markers go;</li>
 *   <li>stacked unary signs ({@code SELECT + - 92}, {@code 20 DIV - - 96}, {@code SELECT DISTINCT + - a}),
 *       which the parser refuses: every sign but the last gets parentheses, {@code +(-92)};</li>
 *   <li>a CASE operand that starts with a sign or is an {@code IF()} ({@code CASE -57 WHEN ...},
 *       {@code CASE IF(a, 1, 2) WHEN ...}), which the parser refuses: it gets parentheses;</li>
 *   <li>double-quoted strings (a string in MySQL's default sql_mode, an identifier to the parser)
 *       become single-quoted;</li>
 *   <li>comments become a space ({@code #} is an operator to the parser, and a comment left in a
 *       rewritten shard statement would hide the rest of its line).</li>
 * </ul>
 * The rewrite keeps, for every character of the new text, the position it came from, so that
 * result labels can still be the text the client wrote.
 *
 * <p>Its length is one pass over the text: the rewrites share one scanner of quotes, comments and positions
 * ({@code Writer}), since each must know where strings, identifiers and comments begin and end, and split apart they
 * would each scan for that again.
 */
final class Dialect {
    /**
     * The rewritten text, and for each of its characters the index of the original character it stands for (null: the
     * text is the original, each character its own).
     */
    record Rewritten(String text, int[] origin) {
        /**
         * The original text of the rewritten range [begin, end), as MySQL reads it: executable
         * comments' markers removed, their content kept.
         */
        String original(String sql, int begin, int end) {
            if (begin >= end) return "";
            return withoutExecutableMarkers(origin == null ? sql.substring(begin, end) : sql.substring(origin[begin], origin[end - 1] + 1));
        }

        /**
         * {@code text} with the markers of executable comments ({@code /*!50001}, {@code /*M!}, their
         * closing {@code *}{@code /}) taken out and everything else kept: plain comments, their closing
         * marker included, and quoted text.
         */
        static String withoutExecutableMarkers(String text) {
            var out = new StringBuilder(text.length());
            boolean executable = false;
            int i = 0;
            while (i < text.length()) {
                char c = text.charAt(i);
                if (c == '\'' || c == '"' || c == '`') {
                    int j = i + 1;
                    while (j < text.length() && text.charAt(j) != c) j += text.charAt(j) == '\\' && c != '`' ? 2 : 1;
                    j = Math.min(j + 1, text.length());
                    out.append(text, i, j);
                    i = j;
                } else if (text.startsWith("/*!", i) || text.startsWith("/*M!", i)) {
                    i += text.charAt(i + 2) == 'M' ? 4 : 3;
                    while (i < text.length() && Character.isDigit(text.charAt(i))) i++;
                    executable = true;
                } else if (executable && text.startsWith("*/", i)) {
                    i += 2;
                    executable = false;
                } else if (text.startsWith("/*", i)) {
                    int close = text.indexOf("*/", i + 2);
                    int j = close < 0 ? text.length() : close + 2;
                    out.append(text, i, j);
                    i = j;
                } else if (c == '#' || text.startsWith("--", i) && (i + 2 == text.length() || Character.isWhitespace(text.charAt(i + 2)))) {
                    int eol = text.indexOf('\n', i);
                    int j = eol < 0 ? text.length() : eol;
                    out.append(text, i, j);
                    i = j;
                } else {
                    out.append(c);
                    i++;
                }
            }
            return out.toString();
        }
    }

    /** Tokens after which + or - is a sign rather than an addition or subtraction. */
    private static final Set<String> BEFORE_SIGN = Set.of("SELECT", "WHERE", "AND", "OR", "NOT", "XOR", "DIV", "MOD", "WHEN", "THEN", "ELSE",
            "ON", "HAVING", "BY", "SET", "VALUES", "RETURN", "LIKE", "BETWEEN", "IN", "IS", "CASE", "INTERVAL", "LIMIT", "OFFSET",
            "DISTINCT", "DISTINCTROW", "ALL");

    /** A CASE operand the parser refuses: one that starts with a sign, or an IF(). */
    private static final java.util.regex.Pattern CASE_OPERAND = java.util.regex.Pattern.compile("(?i)\\bCASE\\s*([-+]|IF\\s*\\()");

    /** The backends' version as executable comments compare it (MariaDB 11.4). */
    private static final int SERVER_VERSION = 110405;

    private Dialect() {}

    static Rewritten rewrite(String sql) {
        if (sql.indexOf("/*") < 0 && sql.indexOf('"') < 0 && sql.indexOf('#') < 0 && !sql.contains("--") && !hasSignPair(sql)
                && !(mentionsCase(sql) && CASE_OPERAND.matcher(sql).find())) return new Rewritten(sql, null);
        return new Writer(sql).run();
    }

    private static boolean hasSignPair(String sql) {
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '+' || c == '-') {
                int j = i + 1;
                while (j < sql.length() && Character.isWhitespace(sql.charAt(j))) j++;
                if (j < sql.length() && (sql.charAt(j) == '+' || sql.charAt(j) == '-') && !sql.startsWith("--", i)) return true;
            }
        }
        return false;
    }

    /** Whether the word CASE may be in {@code sql}: a scan for its letters, cheaper than the pattern on the many texts without it. */
    private static boolean mentionsCase(String sql) {
        for (int i = sql.length() - 4; i >= 0; i--) {
            if (sql.regionMatches(true, i, "CASE", 0, 4)) return true;
        }
        return false;
    }

    private static final class Writer {
        private final String sql;
        private final StringBuilder out = new StringBuilder();
        private int[] origin = new int[64];
        private String previous = "";   // previous significant token, upper case ("" at the start)

        Writer(String sql) {
            this.sql = sql;
        }

        Rewritten run() {
            int i = 0;
            while (i < sql.length()) i = step(i, sql.length());
            return new Rewritten(out.toString(), Arrays.copyOf(origin, out.length()));
        }

        /** Copies one token (or whitespace/comment) starting at {@code i}; returns where the next starts. */
        private int step(int i, int limit) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                emit(c, i);
                return i + 1;
            }
            if (c == '#' || c == '-' && (sql.startsWith("-- ", i) || sql.startsWith("--\t", i) || sql.startsWith("--\n", i) || i + 2 == sql.length() && sql.startsWith("--", i))) {
                // a comment to the end of the line: a space for the parser (which reads # as an operator)
                int end = sql.indexOf('\n', i);
                end = end < 0 || end > limit ? limit : end;
                emit(' ', i);
                return end;
            }
            if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) {
                    copy(i, limit);
                    return limit;
                }
                boolean executable = sql.startsWith("/*!", i) || sql.startsWith("/*M!", i);
                if (!executable) {
                    emit(' ', i);
                    return end + 2;
                }
                boolean mariaOnly = sql.startsWith("/*M!", i);
                int digits = i + (mariaOnly ? 4 : 3);
                int content = digits;
                while (content < end && content - digits < 6 && Character.isDigit(sql.charAt(content))) content++;
                int version = content > digits ? Integer.parseInt(sql.substring(digits, content)) : 0;
                // as MariaDB (the shards) reads them: five-digit versions from 50700 are MySQL's alone and
                // skipped (checked on 11.4: 50699 runs, 50700 and 80000 do not); newer than the server: skipped
                boolean runs = !(!mariaOnly && content - digits == 5 && version >= 50700) && version <= SERVER_VERSION;
                if (!runs) {
                    emit(' ', i);
                    return end + 2;
                }
                emit(' ', i);
                int j = content;
                while (j < end) j = step(j, end);
                emit(' ', end);
                return end + 2;
            }
            if (c == '\'' || c == '`') {
                int end = quoteEnd(i, c, limit);
                copy(i, end);
                previous = c == '`' ? "`" : "'";
                return end;
            }
            if (c == '"') {
                int end = quoteEnd(i, c, limit);
                if (!closes(i, limit)) { // unterminated: left as it is, for the parser to refuse (closing it would change the statement)
                    copy(i, end);
                    return end;
                }
                doubleQuoted(i, end);
                previous = "'";
                return end;
            }
            if (previous.equals("CASE") && (c == '+' || c == '-' || ifCall(i, limit))) {
                int end = caseOperandEnd(i, limit);
                if (end > i) {
                    emit('(', i);
                    int p = i;
                    while (p < end) p = step(p, end);
                    emit(')', end - 1);
                    previous = ")";
                    return end;
                }
            }
            if ((c == '+' || c == '-') && signPosition()) {
                return signs(i, limit);
            }
            if (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '@' || c == '.') {
                int end = i + 1;
                while (end < limit && (Character.isLetterOrDigit(sql.charAt(end)) || "_$@.".indexOf(sql.charAt(end)) >= 0)) end++;
                copy(i, end);
                previous = sql.substring(i, end).toUpperCase(java.util.Locale.ROOT);
                return end;
            }
            emit(c, i);
            previous = String.valueOf(c);
            return i + 1;
        }

        private boolean signPosition() {
            if (previous.isEmpty() || BEFORE_SIGN.contains(previous)) return true;
            return previous.length() == 1 && "(,=<>!+-*/%^&|~".contains(previous);
        }

        /** A run of signs in sign position: all but the last get parentheses around the rest. */
        private int signs(int i, int limit) {
            var positions = new java.util.ArrayList<Integer>();
            int j = i;
            while (j < limit) {
                char c = sql.charAt(j);
                if ((c == '+' || c == '-') && !sql.startsWith("--", j)) {
                    positions.add(j);
                    j++;
                } else if (Character.isWhitespace(c)) {
                    j++;
                } else {
                    break;
                }
            }
            if (positions.size() == 1) {
                emit(sql.charAt(i), i);
                previous = String.valueOf(sql.charAt(i));
                return i + 1;
            }
            for (int k = 0; k < positions.size() - 1; k++) {
                emit(sql.charAt(positions.get(k)), positions.get(k));
                emit('(', positions.get(k + 1));
            }
            int last = positions.getLast();
            emit(sql.charAt(last), last);
            previous = String.valueOf(sql.charAt(last));
            // the operand: one token, or a parenthesized group
            int at = j;
            int end = operandEnd(at, limit);
            int p = at;
            while (p < end) p = step(p, end);
            for (int k = 0; k < positions.size() - 1; k++) emit(')', end - 1);
            return end;
        }

        /** Whether an IF( call starts at {@code i}. */
        private boolean ifCall(int i, int limit) {
            if (!sql.regionMatches(true, i, "IF", 0, 2)) return false;
            int j = i + 2;
            while (j < limit && Character.isWhitespace(sql.charAt(j))) j++;
            return j < limit && sql.charAt(j) == '(';
        }

        /**
         * Where the operand of a CASE starting at {@code at} ends: after its last character before the
         * WHEN at its own depth (outside quotes and parentheses); {@code at} when there is none.
         */
        private int caseOperandEnd(int at, int limit) {
            int depth = 0;
            int lastSignificant = at;
            for (int k = at; k < limit; k++) {
                char d = sql.charAt(k);
                if (d == '\'' || d == '"' || d == '`') {
                    k = quoteEnd(k, d, limit) - 1;
                    lastSignificant = k + 1;
                } else if (d == '(') {
                    depth++;
                } else if (d == ')') {
                    if (--depth < 0) return at;
                    lastSignificant = k + 1;
                } else if (depth == 0 && (d == 'W' || d == 'w') && sql.regionMatches(true, k, "WHEN", 0, 4)
                        && (k == 0 || !Character.isLetterOrDigit(sql.charAt(k - 1)) && sql.charAt(k - 1) != '_')
                        && (k + 4 == limit || !Character.isLetterOrDigit(sql.charAt(k + 4)) && sql.charAt(k + 4) != '_')) {
                    return lastSignificant;
                } else if (!Character.isWhitespace(d)) {
                    lastSignificant = k + 1;
                }
            }
            return at;
        }

        private int operandEnd(int at, int limit) {
            if (at >= limit) return at;
            char c = sql.charAt(at);
            if (c == '(') {
                int depth = 0;
                for (int k = at; k < limit; k++) {
                    char d = sql.charAt(k);
                    if (d == '\'' || d == '"' || d == '`') {
                        k = quoteEnd(k, d, limit) - 1;
                    } else if (d == '(') {
                        depth++;
                    } else if (d == ')' && --depth == 0) {
                        return k + 1;
                    }
                }
                return limit;
            }
            if (c == '\'' || c == '"' || c == '`') return quoteEnd(at, c, limit);
            int end = at;
            while (end < limit && (Character.isLetterOrDigit(sql.charAt(end)) || "_$@.".indexOf(sql.charAt(end)) >= 0)) end++;
            if (end < limit && sql.charAt(end) == '(') return operandEnd(end, limit); // a function call
            if (sql.regionMatches(true, at, "CASE", 0, 4) && end == at + 4) return caseEnd(end, limit);
            return end;
        }

        /** After the END that closes a CASE whose keyword ends at {@code from} (inner CASEs, quotes and parentheses skipped). */
        private int caseEnd(int from, int limit) {
            int open = 1;
            for (int k = from; k < limit; k++) {
                char d = sql.charAt(k);
                if (d == '\'' || d == '"' || d == '`') {
                    k = quoteEnd(k, d, limit) - 1;
                } else if (Character.isLetter(d) && (k == 0 || !Character.isLetterOrDigit(sql.charAt(k - 1)) && sql.charAt(k - 1) != '_')) {
                    int w = k;
                    while (w < limit && (Character.isLetterOrDigit(sql.charAt(w)) || sql.charAt(w) == '_')) w++;
                    String word = sql.substring(k, w);
                    if (word.equalsIgnoreCase("CASE")) open++;
                    else if (word.equalsIgnoreCase("END") && --open == 0) return w;
                    k = w - 1;
                }
            }
            return limit;
        }

        /** "x" as 'x': doubled "" becomes ", a bare ' gets a backslash; backslash escapes stay as they are. */
        private void doubleQuoted(int begin, int end) {
            emit('\'', begin);
            for (int k = begin + 1; k < end - 1; k++) {
                char c = sql.charAt(k);
                if (c == '\\' && k + 1 < end - 1) {
                    emit(c, k);
                    emit(sql.charAt(k + 1), k + 1);
                    k++;
                } else if (c == '"' && k + 1 < end - 1 && sql.charAt(k + 1) == '"') {
                    emit('"', k);
                    k++;
                } else if (c == '\'') {
                    emit('\\', k);
                    emit('\'', k);
                } else {
                    emit(c, k);
                }
            }
            emit('\'', end - 1);
        }

        /** Whether the quote opened at {@code begin} closes before {@code limit} ({@link #quoteEnd} stops at the limit otherwise). */
        private boolean closes(int begin, int limit) {
            char quote = sql.charAt(begin);
            for (int j = begin + 1; j < limit; j++) {
                char d = sql.charAt(j);
                if (d == '\\' && quote != '`') {
                    j++;
                } else if (d == quote) {
                    if (j + 1 < limit && sql.charAt(j + 1) == quote) j++; else return true;
                }
            }
            return false;
        }

        private int quoteEnd(int i, char quote, int limit) {
            int j = i + 1;
            while (j < limit) {
                char d = sql.charAt(j);
                if (d == '\\' && quote != '`') {
                    j += 2;
                } else if (d == quote) {
                    if (j + 1 < limit && sql.charAt(j + 1) == quote) j += 2; else return j + 1;
                } else {
                    j++;
                }
            }
            return limit;
        }

        private void copy(int from, int to) {
            for (int k = from; k < to; k++) emit(sql.charAt(k), k);
        }

        private void emit(char c, int from) {
            if (out.length() == origin.length) origin = Arrays.copyOf(origin, origin.length * 2);
            origin[out.length()] = Math.min(from, sql.length() - 1);
            out.append(c);
        }
    }
}
