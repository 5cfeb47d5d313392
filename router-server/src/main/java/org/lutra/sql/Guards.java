package org.lutra.sql;

import java.util.regex.Pattern;

/**
 * Checks on a statement's text that refuse what the router must not run as it stands: more than
 * one statement, subqueries it would run per partition, session-scoped functions and variables
 * that would run in a pooled backend session.
 *
 * <p>Its length is that list: each guard is a few lines with its reason, kept in one class so that what the router
 * refuses in a statement's text is read in one place.
 */
public final class Guards {
    private static final Pattern SELECT_WORD = Pattern.compile("(?i)\\bSELECT\\b");
    /** Session variables every backend connection of the session carries ({@code org.lutra.plan.SessionSettings#CARRIED}): reading them is exact. */
    private static final String CARRIED = "(?!(?:sql_mode|time_zone|lc_time_names|default_week_format|foreign_key_checks|unique_checks|sql_notes|sql_safe_updates)\\b)";
    private static final Pattern SESSION_STATE = Pattern.compile("(?i)\\b(LAST_INSERT_ID|FOUND_ROWS|ROW_COUNT|CONNECTION_ID|GET_LOCK|RELEASE_LOCK"
            + "|RELEASE_ALL_LOCKS|IS_FREE_LOCK|IS_USED_LOCK|LASTVAL|NEXTVAL|SETVAL|DATABASE|SCHEMA|USER|CURRENT_USER|SESSION_USER|SYSTEM_USER"
            + "|CURRENT_ROLE)\\s*\\(|\\bCURRENT_USER\\b|\\b(NEXT|PREVIOUS)\\s+VALUE\\s+FOR\\b|@@(SESSION|LOCAL)\\." + CARRIED + "\\w+"
            + "|@@(autocommit|transaction_read_only|tx_read_only|last_insert_id|identity|insert_id"
            + "|warning_count|error_count|in_transaction|timestamp|character_set_\\w+|collation_connection|sql_select_limit"
            + "|lock_wait_timeout|max_statement_time|pseudo_thread_id"
            + "|rand_seed\\d|session_track\\w*)\\b");
    /**
     * Writes of user variables inside a statement ({@code @x := ...}, {@code SELECT ... INTO @x}):
     * they would change one backend connection's copy only. Reads of {@code @x} are exact: every
     * backend connection the session uses carries its user variables.
     */
    private static final Pattern USER_VARIABLE_WRITE = Pattern.compile("(?i):=|\\bINTO\\s+@");

    private Guards() {}

    /**
     * One statement per text, as MySQL without multi-statements takes it: the parser would read
     * "UPDATE ...; DELETE ..." as the UPDATE alone and drop the rest without a word.
     */
    public static void requireOneStatement(String sql) throws PlanException {
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') i++;
                else if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == ';') {
                int next = i + 1;
                while (next < sql.length() && Character.isWhitespace(sql.charAt(next))) next++;
                if (next == sql.length()) return;
                String rest = sql.substring(next, Math.min(sql.length(), next + 80));
                throw new PlanException("42000", 1064, "You have an error in your SQL syntax near '" + rest
                        + (next + 80 < sql.length() ? "..." : "") + "': one statement per execute (multi-statement text is not taken)");
            }
        }
    }

    /**
     * MySQL has no numbered placeholders; the parser reads {@code ? 7} as the seventh parameter.
     * Such text (the client's own, or {@code k = 7 7} after its first literal became a '?') is a
     * syntax error, as MySQL says, rather than a parameter count that fails on execution.
     */
    public static void requireNoNumberedParameter(String sql) throws PlanException {
        String text = stripQuoted(sql); // a '?' inside quotes is text
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (text.startsWith("/*", i) || c == '#' || text.startsWith("-- ", i)) {
                i = skipSpaceAndComments(text, i) - 1;
            } else if (c == '?') {
                int next = skipSpaceAndComments(text, i + 1);
                int end = next;
                while (end < text.length() && Character.isDigit(text.charAt(end))) end++;
                boolean number = end > next && (end == text.length() || !(Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_' || text.charAt(end) == '$'));
                if (number) {
                    throw new PlanException("42000", 1064, "You have an error in your SQL syntax near '" + text.substring(next, end) + "'");
                }
            }
        }
    }

    private static int skipSpaceAndComments(String sql, int i) {
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? sql.length() : close + 2;
            } else if (c == '#' || sql.startsWith("-- ", i)) {
                int nl = sql.indexOf('\n', i);
                i = nl < 0 ? sql.length() : nl + 1;
            } else {
                break;
            }
        }
        return i;
    }

    /**
     * Subqueries could read other tables or other partitions' rows: refuse them for now. A SELECT
     * has one SELECT keyword of its own; an INSERT, UPDATE or DELETE none.
     */
    public static void requireNoSubquery(String sql, int own) throws PlanException {
        var refusal = subquery(sql, own);
        if (refusal.isPresent()) throw refusal.get();
    }

    /** Why {@link #requireNoSubquery} refuses {@code sql}, or empty where it does not. */
    public static java.util.Optional<PlanException> subquery(String sql, int own) {
        return selectWords(sql) > own ? java.util.Optional.of(PlanException.unsupported("subqueries yet")) : java.util.Optional.empty();
    }

    /** How many SELECT words {@code sql} holds outside quotes and comments: its SELECTs and subqueries. */
    public static int selectWords(String sql) {
        var m = SELECT_WORD.matcher(stripQuoted(sql));
        int n = 0;
        while (m.find()) n++;
        return n;
    }

    /**
     * Functions and variables scoped to a MySQL session would run on a pooled backend connection
     * that other sessions share: refuse them rather than answer from someone else's session. The
     * isolation level and innodb_lock_wait_timeout may be read: the router sets them on every
     * backend connection it uses for the session.
     */
    public static void requireNoSessionState(String sql) throws PlanException {
        var refusal = sessionState(sql);
        if (refusal.isPresent()) throw refusal.get();
    }

    /** Why {@link #requireNoSessionState} refuses {@code sql}, or empty where it does not. */
    public static java.util.Optional<PlanException> sessionState(String sql) {
        String text = stripQuoted(sql);
        var m = SESSION_STATE.matcher(text);
        while (m.find()) {
            // a table called user: INSERT INTO user (...), FROM user (...)
            if (afterTableKeyword(text, m.start())) continue;
            return java.util.Optional.of(PlanException.unsupported("session-scoped " + m.group().strip()
                    + " through the router yet (it would run in a pooled backend session)"));
        }
        return userVariableWrite(sql);
    }

    /** Refuses {@code @x := ...} and {@code SELECT ... INTO @x} in a statement: one backend connection's copy would change. */
    public static void requireNoUserVariableWrite(String sql) throws PlanException {
        var refusal = userVariableWrite(sql);
        if (refusal.isPresent()) throw refusal.get();
    }

    private static java.util.Optional<PlanException> userVariableWrite(String sql) {
        String text = stripQuoted(sql);
        if (text.stripLeading().regionMatches(true, 0, "SET", 0, 3)) return java.util.Optional.empty(); // a SET's own assignments: SessionSettings checks its expressions
        if (USER_VARIABLE_WRITE.matcher(text).find()) {
            return java.util.Optional.of(PlanException.unsupported("assigning a user variable inside a statement (:= or INTO @x) through the router:"
                    + " it would change one backend connection's copy; use SET @x = ..."));
        }
        return java.util.Optional.empty();
    }

    /**
     * Refuses, before the parser sees it, a statement nested deeper than {@code maxDepth}: open
     * parentheses, open CASE expressions and a run of prefix operators (NOT, !, ~, unary - and +,
     * BINARY, EXISTS) count one level each. JSQLParser and the planner recurse once or more per
     * level (10,000 parentheses cost the parser seconds of lookahead, then overflow its stack);
     * MySQL's own parser refuses such statements too ("memory exhausted", 1064). A scanner, linear
     * in the text; quoted strings, identifiers and comments do not count, executable comments
     * ({@code /*!50000 ... *}{@code /}) do, nested ones one level each. Names longer than
     * {@link #MAX_NAME} are refused too, and so are chains of more than {@code maxChain} binary
     * operators (AND, OR, arithmetic, bit operators) in one expression: the parser builds them as a
     * tree as deep as the chain, which its visitors and printer walk recursively (a chain of 8,000
     * ORs overflowed a 1 MB thread stack). Commas, clause keywords and parentheses start a new chain.
     */
    public static void requireShallow(String sql, int maxDepth, int maxChain) throws PlanException {
        int parens = 0;
        int cases = 0;
        int comments = 0; // open executable comments
        int prefix = 0; // prefix operators since the last operand
        int[] chain = new int[maxDepth + 2]; // binary operators since the last separator, per level of parentheses
        boolean operand = false; // the last token ends an operand, so a following - or + is binary
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                int end = closing(sql, i);
                if (c == '`' && (end < 0 ? n : end) - i - 1 > MAX_NAME) throw nameTooLong(sql, i + 1);
                i = end < 0 ? n : end + 1;
                operand = true;
                prefix = 0;
                continue;
            }
            if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) throw new PlanException("42000", 1064, "You have an error in your SQL syntax: a comment opened at character "
                        + (i + 1) + " is never closed");
                boolean executable = sql.startsWith("/*!", i) || sql.startsWith("/*M!", i);
                if (executable) { // its text is SQL; nested ones count as levels
                    i += sql.charAt(i + 2) == 'M' ? 4 : 3;
                    while (i < n && Character.isDigit(sql.charAt(i))) i++;
                    comments++;
                } else {
                    i = end + 2;
                }
                continue;
            }
            if (c == '*' && i + 1 < n && sql.charAt(i + 1) == '/' && comments > 0) {
                comments--;
                i += 2;
                continue;
            }
            if (c == '#' || c == '-' && i + 2 < n && sql.charAt(i + 1) == '-' && Character.isWhitespace(sql.charAt(i + 2))) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
                continue;
            }
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            if (Character.isLetterOrDigit(c) || c == '_' || c == '$') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) i++;
                if (i - start > MAX_NAME && !Character.isDigit(c)) throw nameTooLong(sql, start);
                String word = i - start <= 8 ? sql.substring(start, i).toUpperCase(java.util.Locale.ROOT) : "";
                switch (word) {
                    case "NOT", "BINARY", "EXISTS" -> {
                        prefix++;
                        operand = false;
                    }
                    case "CASE" -> {
                        cases++;
                        operand = false;
                    }
                    case "END" -> {
                        if (cases > 0) cases--;
                        operand = true;
                        prefix = 0;
                    }
                    case "AND", "OR", "XOR", "DIV", "MOD" -> {
                        if (++chain[parens] > maxChain) throw chainTooLong(maxChain);
                        operand = false;
                    }
                    case "SELECT", "FROM", "WHERE", "ON", "BY", "HAVING", "WHEN", "THEN", "ELSE", "SET", "VALUES", "LIMIT" -> {
                        chain[parens] = 0;
                        operand = false;
                    }
                    case "IN", "IS", "LIKE", "BETWEEN", "INTERVAL", "DISTINCT", "ALL", "ANY", "SOME", "REGEXP", "RLIKE", "ESCAPE" -> operand = false;
                    default -> {
                        operand = true;
                        prefix = 0;
                    }
                }
            } else {
                i++;
                switch (c) {
                    case '(' -> {
                        parens++;
                        if (parens < chain.length) chain[parens] = 0;
                        operand = false;
                    }
                    case ')' -> {
                        if (parens > 0) parens--;
                        operand = true;
                        prefix = 0;
                    }
                    case '!', '~' -> {
                        if (c == '!' && i < n && sql.charAt(i) == '=') {
                            i++;
                        } else {
                            prefix++;
                        }
                        operand = false;
                    }
                    case '-', '+' -> {
                        if (!operand) prefix++;
                        else if (++chain[parens] > maxChain) throw chainTooLong(maxChain);
                        operand = false;
                    }
                    case '*', '/', '%', '|', '&', '^' -> {
                        if (++chain[parens] > maxChain) throw chainTooLong(maxChain);
                        operand = false;
                    }
                    case ',', ';' -> {
                        chain[parens] = 0;
                        operand = false;
                    }
                    default -> operand = false;
                }
            }
            if (parens + cases + prefix + comments > maxDepth) throw tooDeep(maxDepth);
        }
    }

    /**
     * Longest name taken: MySQL's limit for aliases (names of tables and columns: 64). A longer one
     * is refused before it reaches a shard, where its error would end the transaction.
     */
    public static final int MAX_NAME = 256;

    private static PlanException nameTooLong(String sql, int start) {
        return new PlanException("42000", 1059, "Identifier name '" + sql.substring(start, start + 64) + "...' is too long");
    }

    private static PlanException chainTooLong(int maxChain) {
        return new PlanException("42000", 1064, "The statement chains more than " + maxChain
                + " operators (AND, OR, +, ...) in one expression (max_operator_chain): use IN (...) or split it");
    }

    /** MySQL's parser error for a statement nested past its stack ("memory exhausted", 1064). */
    public static PlanException tooDeep(int maxDepth) {
        return new PlanException("42000", 1064, "The statement nests expressions too deeply (more than " + maxDepth
                + " levels of parentheses, CASE or NOT/-/~ operators; max_nesting_depth): simplify it");
    }

    /** The last resort, for a statement within the depth limit whose recursion still overflowed the stack. */
    public static PlanException tooDeep() {
        return new PlanException("42000", 1064, "The statement nests expressions too deeply for the router"
                + " (an operator chain of thousands of terms, or deep nesting): simplify it");
    }

    /** Refuses a statement longer than {@code maxChars} before anything else reads it (max_statement_bytes). */
    public static void requireShort(String sql, int maxChars) throws PlanException {
        if (sql.length() > maxChars) {
            throw new PlanException("42000", 1153, "The statement is " + sql.length() + " characters long; the router takes at most "
                    + maxChars + " (max_statement_bytes)");
        }
    }

    /** Whether the word before {@code at} is INTO, FROM, JOIN, UPDATE or TABLE: looks back one word only. */
    private static boolean afterTableKeyword(String text, int at) {
        int end = at;
        while (end > 0 && Character.isWhitespace(text.charAt(end - 1))) end--;
        int start = end;
        while (start > 0 && end - start < 7 && Character.isLetterOrDigit(text.charAt(start - 1))) start--;
        if (start > 0 && (Character.isLetterOrDigit(text.charAt(start - 1)) || text.charAt(start - 1) == '_')) return false;
        return text.substring(start, end).toUpperCase(java.util.Locale.ROOT).matches("INTO|FROM|JOIN|UPDATE|TABLE");
    }

    private static final Pattern LOCKING = Pattern.compile("(?i)\\bFOR\\s+(UPDATE|SHARE)\\b|\\bLOCK\\s+IN\\s+SHARE\\s+MODE\\b");

    /** Whether {@code sql} is a locking read ({@code FOR UPDATE}, {@code FOR SHARE}, {@code LOCK IN SHARE MODE}): it reads the latest rows, not a snapshot. */
    public static boolean lockingRead(String sql) {
        // asked of every sub-query of a transaction: most texts have neither word, and need no copy or scan by the pattern
        if (!containsIgnoreCase(sql, "UPDATE") && !containsIgnoreCase(sql, "SHARE")) return false;
        return LOCKING.matcher(stripQuoted(sql)).find();
    }

    private static boolean containsIgnoreCase(String text, String upperWord) {
        char first = upperWord.charAt(0);
        char firstLower = Character.toLowerCase(first);
        for (int i = 0, last = text.length() - upperWord.length(); i <= last; i++) {
            char c = text.charAt(i);
            if ((c == first || c == firstLower) && text.regionMatches(true, i, upperWord, 0, upperWord.length())) return true;
        }
        return false;
    }

    private static final Pattern NEVER_WAITS = Pattern.compile("(?is).*\\b(NOWAIT|SKIP\\s+LOCKED)\\s*;?\\s*$");

    /**
     * Whether {@code sql} is a locking read that never waits for a lock ({@code ... FOR UPDATE NOWAIT}, {@code LOCK IN
     * SHARE MODE NOWAIT}, {@code SKIP LOCKED}): its lock wait timeout (1205) comes at once, so it cannot be part of a
     * deadlock. {@code WAIT n} waits, and is not one.
     */
    public static boolean neverWaitingLockingRead(String sql) {
        String text = stripQuoted(sql);
        return LOCKING.matcher(text).find() && NEVER_WAITS.matcher(text).matches();
    }

    /**
     * The text with every quoted string and identifier replaced by {@code ''}. A scanner, not a
     * regular expression: Java's regex engine recurses once per character of a quoted string and
     * overflows the stack on a few thousand.
     */
    public static String stripQuoted(String sql) {
        var out = new StringBuilder(sql.length());
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c != '\'' && c != '"' && c != '`') {
                out.append(c);
                i++;
                continue;
            }
            int end = closing(sql, i);
            if (end < 0) { // unterminated: as it is
                out.append(sql, i, sql.length());
                break;
            }
            out.append("''");
            i = end + 1;
        }
        return out.toString();
    }

    /** The text with the inside of every quoted string and identifier blanked, each character where it was. */
    public static String stripQuotedKeepingLength(String sql) {
        var out = new StringBuilder(sql);
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c != '\'' && c != '"' && c != '`') continue;
            int end = closing(sql, i);
            if (end < 0) end = sql.length();
            for (int j = i + 1; j < end; j++) out.setCharAt(j, ' ');
            i = end;
        }
        return out.toString();
    }

    /** Where the quote opened at {@code start} closes, or -1: backslash escapes in strings, doubled quotes. */
    private static int closing(String sql, int start) {
        char q = sql.charAt(start);
        for (int i = start + 1; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\\' && q != '`') {
                i++;
            } else if (c == q) {
                if (q == '\'' && i + 1 < sql.length() && sql.charAt(i + 1) == '\'') {
                    i++; // '' inside a string
                    continue;
                }
                return i;
            }
        }
        return -1;
    }

}
