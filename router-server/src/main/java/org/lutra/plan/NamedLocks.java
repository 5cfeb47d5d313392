package org.lutra.plan;

import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL's user-level locks as clients use them — {@code SELECT GET_LOCK(?, 10)}, {@code SELECT
 * RELEASE_LOCK('name')}, {@code IS_FREE_LOCK}, {@code RELEASE_ALL_LOCKS()}, each alone in its
 * SELECT (Flyway serializes migrations with them). A lock belongs to a session until released or
 * the session ends, so the router takes it on a backend connection the session holds for as long as
 * it holds a lock ({@code server.SessionLocks}), never on a pooled one. Inside other statements, and
 * {@code IS_USED_LOCK} (it answers a backend connection's id), they stay refused.
 */
final class NamedLocks {
    private static final String ARG = "\\?|'(?:[^'\\\\]|\\\\.|'')*'|[-+]?\\d+(?:\\.\\d+)?";
    private static final Pattern CALL = Pattern.compile("(?is)\\s*SELECT\\s+((GET_LOCK|RELEASE_LOCK|IS_FREE_LOCK|RELEASE_ALL_LOCKS)\\s*\\(\\s*"
            + "((?:" + ARG + ")(?:\\s*,\\s*(?:" + ARG + "))*)?\\s*\\))(?:\\s+(?:AS\\s+)?(`(?:[^`]|``)+`|\\w+))?\\s*;?\\s*");
    private static final Pattern ONE_ARG = Pattern.compile("(?s)\\s*(" + ARG + ")\\s*(?:,|$)");

    private NamedLocks() {}

    private static org.lutra.protocol.Value literal(String text) {
        var v = org.lutra.protocol.Value.newBuilder();
        if (text.startsWith("'")) return v.setStringValue(Literals.unescape(text.substring(1, text.length() - 1), '\'')).build();
        return text.matches("[-+]?\\d+") ? v.setIntValue(Long.parseLong(text)).build() : v.setDecimalValue(text).build();
    }

    /** Whether {@code sql} has "_LOCK" in it, as each of the four functions' names: a scan cheaper than the pattern. */
    private static boolean mentionsLock(String sql) {
        for (int i = sql.indexOf('_'); i >= 0; i = sql.indexOf('_', i + 1)) {
            if (sql.regionMatches(true, i, "_LOCK", 0, 5)) return true;
        }
        return false;
    }

    /** The plan, or null when {@code sql} is not such a SELECT. */
    static SessionCommand plan(String sql) throws PlanException {
        if (sql.length() > 2_000 || !mentionsLock(sql)) return null;
        Matcher m = CALL.matcher(sql);
        if (!m.matches()) return null;
        String function = m.group(2).toUpperCase(Locale.ROOT);
        var args = new ArrayList<Object>();
        int params = 0;
        if (m.group(3) != null) {
            Matcher a = ONE_ARG.matcher(m.group(3));
            while (a.lookingAt()) {
                String arg = a.group(1);
                args.add(arg.equals("?") ? (Object) params++ : literal(arg));
                if (a.end() == m.group(3).length()) break;
                a.region(a.end(), m.group(3).length());
            }
        }
        int expected = switch (function) {
            case "GET_LOCK" -> 2;
            case "RELEASE_ALL_LOCKS" -> 0;
            default -> 1;
        };
        if (args.size() != expected) {
            throw new PlanException("42000", 1582, "Incorrect parameter count in the call to native function '" + function + "'");
        }
        String label = m.group(4) != null ? KeyFinder.unquote(m.group(4)) : m.group(1);
        return new SessionCommand.NamedLock(function, List.copyOf(args), label, params);
    }
}
