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

    static String stripQuoted(String sql) {
        return sql.replaceAll("'(?:[^'\\\\]|\\\\.|'')*'|`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\"", "''");
    }

}
