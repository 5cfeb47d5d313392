package org.lutra.jdbc;

/**
 * Lexical facts about MySQL statement text that the driver needs without a parser: how many
 * '?' placeholders there are outside string literals, quoted identifiers and comments, and whether
 * the statement returns a result set.
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

    /** Whether a statement returns a result set, as Connector/J's {@code QueryInfo.getQueryReturnType} tells it from the text. */
    enum ReturnType { PRODUCES_RESULT_SET, MAY_PRODUCE_RESULT_SET, DOES_NOT_PRODUCE_RESULT_SET, NONE }

    /**
     * Connector/J 9's rule, which its {@code executeQuery} applies before sending anything (a statement that neither
     * produces nor may produce a result set is refused there): by the statement's first keyword, after whitespace,
     * comments and opening parentheses. Produces: ANALYZE, CHECK, DESC[RIBE], EXPLAIN, HELP, OPTIMIZE, REPAIR, SELECT and
     * TABLE without INTO, SHOW, VALUES, XA RECOVER, WITH ... SELECT/TABLE/VALUES; may: CALL, EXECUTE, WITH before other
     * statements than UPDATE/DELETE, and the router's own {@code LOAD LOOKUP TABLE} (it answers a report); no keyword: NONE.
     */
    static ReturnType returnType(String sql) {
        int at = keywordStart(sql, 0);
        if (at < 0) return ReturnType.NONE;
        String rest = sql.substring(at);
        if (startsWithWord(rest, "SELECT") || startsWithWord(rest, "TABLE")) {
            return intoAtTopLevel(sql, at) ? ReturnType.DOES_NOT_PRODUCE_RESULT_SET : ReturnType.PRODUCES_RESULT_SET;
        }
        for (String k : new String[] {"ANALYZE", "CHECK", "DESC", "EXPLAIN", "HELP", "OPTIMIZE", "REPAIR", "SHOW", "VALUES"}) {
            if (startsWith(rest, k)) return ReturnType.PRODUCES_RESULT_SET;
        }
        if (startsWith(rest, "CALL") || startsWith(rest, "EXECUTE")) return ReturnType.MAY_PRODUCE_RESULT_SET;
        if (startsWith(rest, "XA")) {
            int next = keywordStart(sql, at + 2);
            return next >= 0 && startsWith(sql.substring(next), "RECOVER") ? ReturnType.PRODUCES_RESULT_SET : ReturnType.DOES_NOT_PRODUCE_RESULT_SET;
        }
        if (startsWith(rest, "LOAD")) {
            int next = keywordStart(sql, at + 4);
            return next >= 0 && startsWithWord(sql.substring(next), "LOOKUP") ? ReturnType.MAY_PRODUCE_RESULT_SET : ReturnType.DOES_NOT_PRODUCE_RESULT_SET;
        }
        if (startsWith(rest, "WITH")) {
            String context = withContext(sql, at + 4);
            if (context.equals("SELECT") || context.equals("TABLE") || context.equals("VALUES")) return ReturnType.PRODUCES_RESULT_SET;
            if (context.equals("UPDATE") || context.equals("DELETE")) return ReturnType.DOES_NOT_PRODUCE_RESULT_SET;
            return ReturnType.MAY_PRODUCE_RESULT_SET;
        }
        return ReturnType.DOES_NOT_PRODUCE_RESULT_SET;
    }

    /** The index of the first letter or digit at or after {@code from} outside comments and quoted text, or -1. */
    private static int keywordStart(String sql, int from) {
        int n = sql.length();
        for (int i = from; i < n; i++) {
            char c = sql.charAt(i);
            int skipped = skipNonCode(sql, i);
            if (skipped != i) {
                i = skipped;
                continue;
            }
            if (Character.isLetterOrDigit(c)) return i;
        }
        return -1;
    }

    /** From {@code i}: past a comment or quoted text starting there (its last index), or {@code i} itself. */
    private static int skipNonCode(String sql, int i) {
        int n = sql.length();
        char c = sql.charAt(i);
        if (c == '\'' || c == '"' || c == '`') return skipQuoted(sql, i, c);
        if (c == '#') return skipToLineEnd(sql, i);
        if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-' && (i + 2 >= n || Character.isWhitespace(sql.charAt(i + 2)))) return skipToLineEnd(sql, i);
        if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
            if (i + 2 < n && sql.charAt(i + 2) == '!') { // MySQL's executable comment: its text is code, after the version digits
                int j = i + 3;
                while (j < n && Character.isDigit(sql.charAt(j))) j++;
                return j - 1;
            }
            int end = sql.indexOf("*/", i + 2);
            return end < 0 ? n : end + 1;
        }
        if (c == '*' && i + 1 < n && sql.charAt(i + 1) == '/') return i + 1; // the end of an executable comment
        return i;
    }

    /** Whether a word INTO follows {@code from} outside parentheses, comments and quoted text (SELECT ... INTO @v). */
    private static boolean intoAtTopLevel(String sql, int from) {
        int depth = 0;
        for (int i = from; i < sql.length(); i++) {
            int skipped = skipNonCode(sql, i);
            if (skipped != i) {
                i = skipped;
                continue;
            }
            char c = sql.charAt(i);
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (depth == 0 && (c == 'i' || c == 'I') && (i == 0 || !isWordChar(sql.charAt(i - 1))) && startsWithWord(sql.substring(i), "INTO")) return true;
        }
        return false;
    }

    /** The keyword after a WITH clause's common table expressions (upper case), or "". */
    private static String withContext(String sql, int from) {
        int depth = 0;
        boolean afterBlock = false;
        for (int i = from; i < sql.length(); i++) {
            int skipped = skipNonCode(sql, i);
            if (skipped != i) {
                i = skipped;
                continue;
            }
            char c = sql.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (--depth == 0) afterBlock = true;
            } else if (depth == 0 && c == ',') {
                afterBlock = false;
            } else if (depth == 0 && afterBlock && Character.isLetter(c)) {
                int end = i;
                while (end < sql.length() && isWordChar(sql.charAt(end))) end++;
                return sql.substring(i, end).toUpperCase(java.util.Locale.ROOT);
            }
        }
        return "";
    }

    private static boolean startsWith(String text, String keyword) {
        return text.regionMatches(true, 0, keyword, 0, keyword.length());
    }

    private static boolean startsWithWord(String text, String keyword) {
        return startsWith(text, keyword) && (text.length() == keyword.length() || !isWordChar(text.charAt(keyword.length())));
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
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
