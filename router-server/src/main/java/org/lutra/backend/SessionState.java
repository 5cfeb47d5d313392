package org.lutra.backend;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;

/**
 * The variables a client session set (system variables such as {@code sql_mode} and
 * {@code time_zone}, and user variables {@code @x}), each as the SQL literal of its value as the
 * backend normalized it. Every backend connection a session's statements use must carry them: a
 * pooled connection's own state is tracked ({@link Carried}), and one combined {@code SET} moves it
 * to the session's only when the two differ (nothing is sent when they agree).
 *
 * @param values name → SQL literal; user variables are named with their {@code @}, system
 *               variables by their lower-case name
 */
public record SessionState(Map<String, String> values) {
    /** What a new backend connection carries: the servers' defaults, no user variables. */
    public static final SessionState EMPTY = new SessionState(Map.of());

    public SessionState {
        values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    /** This state with {@code changes} applied on top. */
    public SessionState with(Map<String, String> changes) {
        var next = new TreeMap<>(values);
        next.putAll(changes);
        // a user variable set to NULL is what an unset one reads as: forget it
        next.entrySet().removeIf(e -> e.getKey().startsWith("@") && e.getValue().equals("NULL"));
        return new SessionState(next);
    }

    /**
     * The one SET statement that moves a connection carrying {@code carried} to this state, or null
     * when it already has it: system variables the session never set go back to the server's
     * default ({@code = DEFAULT}: the global value, what a new connection starts with), user
     * variables it does not have become NULL.
     */
    String changeFrom(SessionState carried) {
        var set = new StringBuilder();
        for (var e : values.entrySet()) {
            if (!e.getValue().equals(carried.values.get(e.getKey()))) append(set, e.getKey(), e.getValue());
        }
        for (String name : carried.values.keySet()) {
            if (!values.containsKey(name)) append(set, name, name.startsWith("@") ? "NULL" : "DEFAULT");
        }
        return set.isEmpty() ? null : set.toString();
    }

    private static void append(StringBuilder set, String name, String value) {
        set.append(set.isEmpty() ? "SET " : ", ");
        if (name.startsWith("@")) set.append("@`").append(name.substring(1).replace("`", "``")).append('`');
        else set.append("SESSION ").append(name);
        set.append(" = ").append(value);
    }

    /**
     * What each pooled backend connection of a placement carries, keyed by the driver's own
     * connection (the pool's proxies change from one borrow to the next). Weak keys: a connection
     * the pool closed is forgotten with it.
     */
    public static final class Carried {
        private final Map<Connection, SessionState> byConnection = Collections.synchronizedMap(new WeakHashMap<>());

        /** Makes {@code connection} carry {@code state}, with one SET if it carries something else. */
        public void apply(Connection connection, SessionState state) throws SQLException {
            Connection physical = connection.unwrap(Connection.class);
            SessionState carried = byConnection.getOrDefault(physical, EMPTY);
            String set = state.changeFrom(carried);
            if (set == null) return;
            byConnection.remove(physical); // unknown until the SET is through
            try (Statement st = physical.createStatement()) {
                st.execute(set);
            }
            if (!state.values.isEmpty()) byConnection.put(physical, state);
        }

        /** {@code connection} now carries {@code state} (a SET the session ran on it itself). */
        public void record(Connection connection, SessionState state) throws SQLException {
            byConnection.put(connection.unwrap(Connection.class), state);
        }

        /** What {@code connection} carries (EMPTY if nothing was set on it). */
        public SessionState of(Connection connection) throws SQLException {
            return byConnection.getOrDefault(connection.unwrap(Connection.class), EMPTY);
        }

        /** Its state is unknown (a SET failed half-way): the caller evicts it from its pool. */
        public void forget(Connection connection) {
            try {
                byConnection.remove(connection.unwrap(Connection.class));
            } catch (SQLException ignored) {
                // a connection that cannot be unwrapped was never recorded
            }
        }
    }
}
