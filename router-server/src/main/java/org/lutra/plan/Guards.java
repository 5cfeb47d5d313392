package org.lutra.plan;

import java.util.regex.Pattern;

/**
 * Checks on a statement's text that refuse what the router must not run as it stands: more than
 * one statement, subqueries it would run per partition, session-scoped functions and variables
 * that would run in a pooled backend session.
 */
final class Guards {
    private static final Pattern SELECT_WORD = Pattern.compile("(?i)\\bSELECT\\b");
    private static final Pattern SESSION_STATE = Pattern.compile("(?i)\\b(LAST_INSERT_ID|FOUND_ROWS|ROW_COUNT|CONNECTION_ID|GET_LOCK|RELEASE_LOCK"
            + "|RELEASE_ALL_LOCKS|IS_FREE_LOCK|IS_USED_LOCK|LASTVAL|NEXTVAL|SETVAL|DATABASE|SCHEMA|USER|CURRENT_USER|SESSION_USER|SYSTEM_USER"
            + "|CURRENT_ROLE)\\s*\\(|\\bCURRENT_USER\\b|\\b(NEXT|PREVIOUS)\\s+VALUE\\s+FOR\\b|@@(SESSION|LOCAL)\\.\\w+"
            + "|@@(autocommit|transaction_read_only|tx_read_only|last_insert_id|identity|insert_id"
            + "|warning_count|error_count|in_transaction|sql_mode|time_zone|timestamp|character_set_\\w+|collation_connection|sql_select_limit"
            + "|lock_wait_timeout|foreign_key_checks|unique_checks|sql_safe_updates|max_statement_time|pseudo_thread_id"
            + "|rand_seed\\d|session_track\\w*)\\b|(?<![@\\w])@(?!@)`?\\w+");

    private Guards() {}

    /**
     * One statement per text, as MySQL without multi-statements takes it: the parser would read
     * "UPDATE ...; DELETE ..." as the UPDATE alone and drop the rest without a word.
     */
    static void requireOneStatement(String sql) throws PlanException {
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') i++;
                else if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == ';' && !sql.substring(i + 1).isBlank()) {
                throw new PlanException("42000", 1064, "You have an error in your SQL syntax near '" + sql.substring(i + 1).strip()
                        + "': one statement per execute (multi-statement text is not taken)");
            }
        }
    }

    /**
     * Subqueries could read other tables or other partitions' rows: refuse them for now. A SELECT
     * has one SELECT keyword of its own; an INSERT, UPDATE or DELETE none.
     */
    static void requireNoSubquery(String sql, int own) throws PlanException {
        var m = SELECT_WORD.matcher(stripQuoted(sql));
        int n = 0;
        while (m.find()) n++;
        if (n > own) throw PlanException.unsupported("subqueries yet");
    }

    /**
     * Functions and variables scoped to a MySQL session would run on a pooled backend connection
     * that other sessions share: refuse them rather than answer from someone else's session. The
     * isolation level and innodb_lock_wait_timeout may be read: the router sets them on every
     * backend connection it uses for the session.
     */
    static void requireNoSessionState(String sql) throws PlanException {
        String text = stripQuoted(sql);
        var m = SESSION_STATE.matcher(text);
        while (m.find()) {
            // a table called user: INSERT INTO user (...), FROM user (...)
            var before = text.substring(0, m.start()).stripTrailing();
            if (before.matches("(?is).*\\b(INTO|FROM|JOIN|UPDATE|TABLE)$")) continue;
            throw PlanException.unsupported("session-scoped " + m.group().strip() + " through the router yet (it would run in a pooled backend session)");
        }
    }

    /** Parentheses nested deeper than this are refused before parsing, as MySQL's own parser refuses them. */
    static final int MAX_NESTING = 256;

    /** Refuses a statement whose parentheses nest deeper than {@link #MAX_NESTING}, before the parser spends seconds on it. */
    static void requireShallow(String sql) throws PlanException {
        int depth = 0;
        String text = stripQuoted(sql);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(' && ++depth > MAX_NESTING) throw tooDeep();
            else if (c == ')') depth--;
        }
    }

    /** MySQL's error for a statement too deep for its parser's stack (1436, thread stack overrun). */
    static PlanException tooDeep() {
        return new PlanException("HY000", 1436, "The statement nests expressions too deeply for the router (parentheses deeper than "
                + MAX_NESTING + ", or an operator chain of thousands): simplify it");
    }

    /**
     * The text with every quoted string and identifier replaced by {@code ''}. A scanner, not a
     * regular expression: Java's regex engine recurses once per character of a quoted string and
     * overflows the stack on a few thousand.
     */
    static String stripQuoted(String sql) {
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
