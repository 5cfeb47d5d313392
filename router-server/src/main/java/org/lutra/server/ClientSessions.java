package org.lutra.server;

import org.lutra.config.RouterConfig;
import org.lutra.exec.RouterMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client connections of every listener: their ids, the max_sessions and max_sessions_per_user counts, and what one
 * session does to another (KILL, a driver's cancel) or the router to all of them (the idle sweep, the close).
 */
public final class ClientSessions {
    private static final Logger log = LoggerFactory.getLogger(ClientSessions.class);
    private static final long KILL_WAIT_MILLIS = 5_000;

    private final RouterConfig.Limits limits;
    private final RouterMetrics metrics;
    private final Set<ClientConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong ids = new AtomicLong();
    private final Map<String, AtomicInteger> perUser = new ConcurrentHashMap<>();

    ClientSessions(RouterConfig.Limits limits, RouterMetrics metrics) {
        this.limits = limits;
        this.metrics = metrics;
    }

    /** Whether a new connection may start (max_sessions counts connections of every listener, logged in or not). */
    public boolean roomForAnother() {
        return open.size() < limits.maxSessions();
    }

    /** A new session id, unique across listeners: MySQL clients see it as their connection id. */
    public long nextId() {
        return ids.incrementAndGet();
    }

    /** The id {@link #nextId} handed out last. */
    long lastId() {
        return ids.get();
    }

    /** Tracks a new connection of any listener (idle sweep, KILL, max_sessions); {@link #ended} forgets it. */
    public void started(ClientConnection connection) {
        open.add(connection);
    }

    /** A connection of any listener ended; {@code user}: the user it was counted for at login, null if it never logged in. */
    public void ended(ClientConnection connection, String user) {
        open.remove(connection);
        if (user != null) perUser.get(user).decrementAndGet();
    }

    /** Connections open now, of every listener, logged in or not. */
    public int count() {
        return open.size();
    }

    /**
     * Counts a logged-in session of {@code user}; false (and nothing counted) if the user is at max_sessions_per_user, a refusal
     * the metrics count for {@code listener}.
     */
    boolean userStarted(String user, String listener) {
        int max = limits.maxSessionsPerUser();
        var count = perUser.computeIfAbsent(user, u -> new AtomicInteger());
        if (count.incrementAndGet() > max && max > 0) {
            count.decrementAndGet();
            metrics.sessionRefused(listener, "max_sessions_per_user");
            return false;
        }
        return true;
    }

    /**
     * KILL [QUERY] {@code target} from a session of {@code user}: stops that session's statement, or closes its
     * connection. MySQL's errors for an id no session has (1094) and for another user's session (1095).
     */
    void kill(String user, long target, boolean queryOnly) throws SQLException {
        // answered after the stopped statement's error (Connector/J's cancel() reports a 1317 it reads after the KILL's
        // answer as its own MySQLStatementCancelledException, error 0); a statement slow to stop does not hold the KILL longer
        var found = open.stream().filter(s -> s.id() == target).findFirst().orElse(null);
        var core = found == null ? null : found.core();
        if (core == null) throw new SQLException("Unknown thread id: " + target, "HY000", 1094);
        if (!core.user().equals(user)) throw new SQLException("You are not owner of thread " + target, "HY000", 1095);
        log.info("session {}: {} by KILL from a session of its user", target, queryOnly ? "statement stopped" : "connection closed");
        core.cancel(0);
        if (queryOnly) found.awaitCommandEnd(KILL_WAIT_MILLIS);
        else found.close();
    }

    /** A client's Statement.cancel(): the session with that id and key stops its statement. */
    void cancel(long sessionId, byte[] key, long requestId) {
        open.forEach(s -> {
            if (s instanceof Session lutra) lutra.cancel(sessionId, key, requestId);
        });
    }

    /** Closes the connections that waited longer than {@code idleNanos} for their client's next request. */
    void closeIdle(long now, long idleNanos) {
        open.forEach(session -> session.closeIfIdle(now, idleNanos));
    }

    void closeAll() {
        open.forEach(ClientConnection::close);
    }
}
