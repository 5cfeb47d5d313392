package org.lutra.plan;

import org.lutra.exec.Plan;
import org.lutra.exec.Planned;
import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads of system variables as MySQL clients send them on connect or by habit —
 * {@code SELECT @@version, @@session.sql_mode AS mode} and {@code SHOW [SESSION] VARIABLES [LIKE 'p']}
 * — answered for the client's session. The variables the router keeps per session (autocommit,
 * the isolation level, read-only, in_transaction) come from the session; every other one from a
 * partition's pooled connection, which is exactly what the session's statements run with, since
 * the router changes nothing else on those connections. Variables that only a backend session
 * could answer (the last insert id, warning counts, its thread id) are refused in a SELECT and left
 * out of SHOW VARIABLES.
 */
public final class SessionVariables {
    /** Kept by the router per session: answered from the session, not from a backend. */
    static final Set<String> MANAGED = Set.of("autocommit", "in_transaction", "transaction_isolation", "tx_isolation",
            "transaction_read_only", "tx_read_only");
    /** A backend session's own state, which a pooled connection would answer for another client. */
    static final Set<String> UNANSWERABLE = Set.of("last_insert_id", "identity", "insert_id", "warning_count", "error_count",
            "pseudo_thread_id", "rand_seed1", "rand_seed2", "last_gtid", "gtid_next", "session_track_gtids");

    private static final String ITEM = "@@(?:(session|local|global)\\.)?(\\w+)(?:\\s+(?:AS\\s+)?(\\w+|`(?:[^`]|``)+`|'(?:[^'\\\\]|\\\\.|'')*'|\"[^\"]*\"))?";
    private static final Pattern ONE = Pattern.compile("(?is)" + ITEM);
    private static final Pattern SELECT = Pattern.compile("(?is)\\s*SELECT\\s+(" + ITEM + "(?:\\s*,\\s*" + ITEM + ")*)\\s*;?\\s*");
    private static final Pattern SHOW = Pattern.compile("(?is)\\s*SHOW\\s+(?:(SESSION|LOCAL|GLOBAL)\\s+)?VARIABLES"
            + "(?:\\s+LIKE\\s+'((?:[^'\\\\]|\\\\.|'')*)')?\\s*;?\\s*");

    private static final Pattern WARNINGS = Pattern.compile("(?is)\\s*SHOW\\s+(COUNT\\s*\\(\\s*\\*\\s*\\)\\s+)?(WARNINGS|ERRORS)"
            + "(?:\\s+LIMIT\\s+(\\d{1,18})(?:\\s*,\\s*(\\d{1,18}))?)?\\s*;?\\s*");
    private static final Pattern STATUS = Pattern.compile("(?is)\\s*SHOW\\s+(?:SESSION\\s+|LOCAL\\s+|GLOBAL\\s+)?STATUS\\b.*");

    /** The session's last generated id, which the router keeps itself (LAST_INSERT_ID(expr) stays refused by the guards). */
    private static final Pattern LAST_INSERT_ID = Pattern.compile("(?is)\\s*SELECT\\s+(LAST_INSERT_ID\\s*\\(\\s*\\))"
            + "(?:\\s+(?:AS\\s+)?(\\w+|`(?:[^`]|``)+`))?\\s*;?\\s*");

    private SessionVariables() {}

    /** Whether the router keeps {@code variable} per session (it answers for it, not a backend). */
    public static boolean managed(String variable) {
        return MANAGED.contains(variable.toLowerCase(Locale.ROOT));
    }

    /**
     * The plan for a read of variables, or null if {@code sql} is none. {@code maxStatement}: the longest statement the
     * router takes, which {@code @@max_allowed_packet} never exceeds (Connector/J sizes rewritten batches by it).
     */
    static Planned plan(String sql, int maxStatement) throws PlanException {
        Matcher m = LAST_INSERT_ID.matcher(sql);
        if (m.matches()) {
            String label = m.group(2) == null ? m.group(1) : m.group(2).startsWith("`") ? m.group(2).substring(1, m.group(2).length() - 1).replace("``", "`") : m.group(2);
            return new SessionCommand.LastInsertId(label);
        }
        m = WARNINGS.matcher(sql);
        if (m.matches()) {
            boolean errors = m.group(2).equalsIgnoreCase("ERRORS");
            if (m.group(1) != null) return new SessionCommand.ShowWarnings(errors, true, 0, Long.MAX_VALUE);
            if (m.group(3) == null) return new SessionCommand.ShowWarnings(errors, false, 0, Long.MAX_VALUE);
            return m.group(4) == null ? new SessionCommand.ShowWarnings(errors, false, 0, Long.parseLong(m.group(3)))
                    : new SessionCommand.ShowWarnings(errors, false, Long.parseLong(m.group(3)), Long.parseLong(m.group(4)));
        }
        if (STATUS.matcher(sql).matches()) {
            throw PlanException.unsupported("SHOW STATUS through the router: a backend's counters describe that server, not this session "
                    + "or the logical database; SHOW LUTRA STATUS gives the router's");
        }
        m = SELECT.matcher(sql);
        if (m.matches()) return select(m.group(1), maxStatement);
        m = SHOW.matcher(sql);
        if (m.matches()) {
            boolean global = m.group(1) != null && m.group(1).equalsIgnoreCase("GLOBAL");
            String backend = "SHOW " + (global ? "GLOBAL" : "SESSION") + " VARIABLES" + (m.group(2) == null ? "" : " LIKE '" + m.group(2) + "'");
            return new Plan.SessionVariables(backend, List.of(), !global);
        }
        return null;
    }

    private static Plan select(String items, int maxStatement) throws PlanException {
        var backend = new StringBuilder("SELECT ");
        var managed = new ArrayList<String>();
        Matcher item = ONE.matcher(items);
        int column = 0;
        while (item.find()) {
            String scope = item.group(1) == null ? "" : item.group(1).toLowerCase(Locale.ROOT);
            String name = item.group(2).toLowerCase(Locale.ROOT);
            boolean global = scope.equals("global");
            String label = item.group(3) != null ? item.group(3) : item.group(0).strip(); // MySQL's label: the text written
            if (!global && UNANSWERABLE.contains(name)) {
                throw PlanException.unsupported("@@" + name + " through the router (it belongs to one backend session; "
                        + "a pooled connection would answer for another client)");
            }
            if (column++ > 0) backend.append(", ");
            boolean ours = !global && MANAGED.contains(name);
            managed.add(ours ? name : null);
            // the router's own variables: a typed placeholder the session's value replaces
            String variable = "@@" + (scope.isEmpty() ? "" : scope + ".") + name;
            String expression = ours ? (name.endsWith("isolation") ? "CAST(NULL AS CHAR)" : "CAST(NULL AS SIGNED)")
                    : name.equals("max_allowed_packet") ? "LEAST(" + variable + ", " + maxStatement + ")" : variable;
            backend.append(expression).append(" AS ").append(quoteLabel(label));
        }
        return new Plan.SessionVariables(backend.toString(), managed, false);
    }

    private static String quoteLabel(String label) {
        String bare = label;
        if (label.length() >= 2 && (label.startsWith("`") || label.startsWith("'") || label.startsWith("\""))) {
            bare = label.substring(1, label.length() - 1);
        }
        return "`" + bare.replace("`", "``") + "`";
    }
}
