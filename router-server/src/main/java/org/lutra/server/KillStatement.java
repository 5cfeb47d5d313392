package org.lutra.server;

import java.sql.SQLException;
import java.util.regex.Pattern;

/**
 * MySQL's {@code KILL [CONNECTION | QUERY] id} (MariaDB's {@code HARD}/{@code SOFT} and {@code ID}
 * words too): answered by the router for its own sessions, whose ids are the connection ids its
 * listeners hand out. Connector/J's {@code Statement.cancel()} sends {@code KILL QUERY id} on a
 * connection of its own. A user may stop only its own sessions, as MySQL's users without the
 * PROCESS privilege.
 */
record KillStatement(long target, boolean queryOnly) {
    private static final Pattern KILL = Pattern.compile("(?is)\\s*KILL(?:\\s+(?:HARD|SOFT))?(?:\\s+(CONNECTION|QUERY))?(?:\\s+ID)?\\s+(\\d{1,19})\\s*;?\\s*");

    /** Stops session {@code target} for {@code user}: its running statement, or ({@code !queryOnly}) the whole connection. */
    interface Killer {
        void kill(String user, long target, boolean queryOnly) throws SQLException;
    }

    /** The KILL that {@code sql} is, or null when it is another statement; a cheap test first, as this runs on every statement. */
    static KillStatement parse(String sql) {
        int i = 0;
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) i++;
        if (!sql.regionMatches(true, i, "KILL", 0, 4)) return null;
        var m = KILL.matcher(sql);
        if (!m.matches()) return null;
        try {
            return new KillStatement(Long.parseLong(m.group(2)), "QUERY".equalsIgnoreCase(m.group(1)));
        } catch (NumberFormatException e) {
            return null; // beyond a long: no session has that id, the planner answers it
        }
    }

    void run(String user, Killer killer) throws SQLException {
        killer.kill(user, target, queryOnly);
    }
}
