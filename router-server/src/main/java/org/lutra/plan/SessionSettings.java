package org.lutra.plan;

import org.lutra.exec.SessionCommand;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code SET} of session variables — {@code SET sql_mode = ..., time_zone = '+05:00', @x = 5} —
 * planned as a list of assignments ({@link SessionCommand.SetVariables}). The session checks them on a
 * backend, which evaluates each expression and normalizes the value, and from then on every backend
 * connection its statements use carries the values ({@code org.lutra.backend.SessionState}).
 *
 * <p>Which system variables a session may set: only those whose whole effect is on how each backend
 * evaluates the statements it gets ({@link #CARRIED}). Variables the router itself depends on are
 * refused: {@code div_precision_increment} and {@code group_concat_max_len} (the router computes
 * AVG and joins GROUP_CONCAT pieces), {@code sql_select_limit} and {@code max_statement_time} (they
 * would apply per partition, not to the statement), {@code innodb_lock_wait_timeout} and the
 * network timeouts (the router's own bounds), {@code sql_auto_is_null} and the like (a backend
 * session's state). Expressions that would read a table or a backend session's own state (a
 * subquery, LAST_INSERT_ID(), ...) are refused: they would run on one pooled connection.
 */
final class SessionSettings {
    /** System variables a session may set: each backend connection it uses carries them. */
    static final Set<String> CARRIED = Set.of("sql_mode", "time_zone", "lc_time_names", "default_week_format", "foreign_key_checks",
            "unique_checks", "sql_notes", "sql_safe_updates");

    /**
     * Matched against the statement without its surrounding whitespace and final {@code ;}: a lazy group followed by
     * optional whitespace backtracks over every split of a long whitespace run (ProtocolFuzzIT held a session in
     * this match with a few thousand newlines after a SET).
     */
    private static final Pattern SET = Pattern.compile("(?is)SET\\s+(.*)");
    /** Matched against a stripped item, for the same reason. */
    private static final Pattern ASSIGNMENT = Pattern.compile("(?is)(?:(SESSION|LOCAL|GLOBAL|PERSIST|PERSIST_ONLY)\\s+"
            + "|@@(?:(SESSION|LOCAL|GLOBAL)\\.)?)?(@)?(\\w+|`(?:[^`]|``)+`|'(?:[^'\\\\]|\\\\.)+')\\s*:?=\\s*(.*)");
    private static final Pattern ASSIGNS = Pattern.compile(":=");
    /** A Unicode NAMES item among other assignments (MariaDB Connector/J sends {@code set autocommit=1,NAMES utf8mb4}): acknowledged, as alone. */
    private static final Pattern UNICODE_NAMES = Pattern.compile("(?is)NAMES\\s+['\"`]?(?:utf8mb4|utf8mb3|utf8)['\"`]?");
    private static final Pattern SELECT_WORD = Pattern.compile("(?i)\\bSELECT\\b");

    private SessionSettings() {}

    /** The plan for {@code SET ...} of session variables, or null when {@code sql} is not a SET. */
    static SessionCommand plan(String sql) throws PlanException {
        String statement = sql.strip();
        if (statement.endsWith(";")) statement = statement.substring(0, statement.length() - 1).stripTrailing();
        Matcher set = SET.matcher(statement);
        if (!set.matches()) return null;
        var assignments = new ArrayList<SessionCommand.Assignment>();
        int params = 0;
        for (String item : topLevelItems(set.group(1))) {
            if (UNICODE_NAMES.matcher(item.strip()).matches()) continue;
            Matcher m = ASSIGNMENT.matcher(item.strip());
            if (!m.matches()) {
                throw PlanException.unsupported("this SET through the router (" + excerpt(item) + "): the router takes SET of the session "
                        + "variables " + String.join(", ", new java.util.TreeSet<>(CARRIED)) + " and of user variables (@x), one SET NAMES, "
                        + "autocommit or transaction setting per statement");
            }
            String scope = m.group(1) != null ? m.group(1) : m.group(2);
            boolean user = m.group(3) != null;
            String name = unquote(m.group(4));
            String expression = m.group(5);
            if (!user) {
                name = name.toLowerCase(Locale.ROOT);
                if (scope != null && !scope.equalsIgnoreCase("SESSION") && !scope.equalsIgnoreCase("LOCAL")) {
                    throw PlanException.unsupported("SET " + scope.toUpperCase(Locale.ROOT) + " " + name
                            + " through the router: the backends' global settings are theirs (SET SESSION " + name + " is taken)");
                }
                if (!CARRIED.contains(name)) {
                    throw PlanException.unsupported("SET " + name + " through the router: "
                            + (SessionVariables.MANAGED.contains(name) || name.startsWith("character_set") || name.startsWith("collation")
                                    ? "set it in a SET statement of its own" : "only " + String.join(", ", new java.util.TreeSet<>(CARRIED))
                                    + " and user variables are carried to every backend connection the session uses; the backends' own "
                                    + name + " applies (SELECT @@" + name + " shows it)"));
                }
            }
            String text = Guards.stripQuoted(expression);
            if (SELECT_WORD.matcher(text).find()) throw PlanException.unsupported("a subquery in SET through the router (it would run on one partition)");
            if (ASSIGNS.matcher(text).find()) throw PlanException.unsupported("assignments (:=) inside a SET expression through the router");
            Guards.requireNoSessionState(expression);
            params += ParamCounter.countOf(expression);
            assignments.add(new SessionCommand.Assignment(user ? "@" + name : name, expression));
        }
        return new SessionCommand.SetVariables(List.copyOf(assignments), params);
    }

    private static String excerpt(String item) {
        String s = item.strip();
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }

    private static String unquote(String name) {
        if (name.startsWith("`")) return name.substring(1, name.length() - 1).replace("``", "`");
        if (name.startsWith("'")) return name.substring(1, name.length() - 1).replace("\\'", "'").replace("''", "'");
        return name;
    }

    /** The comma-separated items of a SET list: commas inside quotes or parentheses do not separate. */
    static List<String> topLevelItems(String list) {
        var items = new ArrayList<String>();
        String masked = Guards.stripQuotedKeepingLength(list);
        int depth = 0;
        int start = 0;
        for (int i = 0; i < masked.length(); i++) {
            char c = masked.charAt(i);
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (c == ',' && depth == 0) {
                items.add(list.substring(start, i));
                start = i + 1;
            }
        }
        items.add(list.substring(start));
        return items;
    }
}
