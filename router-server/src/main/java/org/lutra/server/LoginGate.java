package org.lutra.server;

import org.lutra.protocol.Error;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every listener's login goes through, around its own password check: the login throttle
 * before it, then the checks that may still refuse a correct password (the database, the user's
 * session limit). Errors are MySQL's numbers, the same on every listener.
 */
public final class LoginGate {
    private static final Logger log = LoggerFactory.getLogger(Session.class); // the session's log: its login lines belong there

    private final RouterServer server;
    /** The listener whose logins these are, as the metrics name it ("lutra", "mysql"). */
    private final String listener;

    LoginGate(RouterServer server, String listener) {
        this.server = server;
        this.listener = listener;
    }

    /** The throttle's refusal of {@code user} from {@code address} before its password is checked, or null to go on. */
    public Error refused(long sessionId, String address, String user) {
        String quoted = Session.printable(user);
        if (server.loginThrottle().check(address, user, quoted, System.currentTimeMillis()) instanceof LoginThrottle.Verdict.Refused r) {
            server.metrics().sessionRefused(listener, "login_throttle");
            log.info("session {}: login of user {} from {} refused before its password was checked: {} {}", sessionId, quoted, address,
                    r.vendorCode(), r.message());
            return error(r.sqlState(), r.vendorCode(), r.message());
        }
        return null;
    }

    /** A wrong password (or an unknown user): counted by the throttle; the error to send. */
    public Error failed(long sessionId, String address, String user) {
        String quoted = Session.printable(user);
        server.loginThrottle().failed(address, user, server.credentials().account(user) != null, System.currentTimeMillis());
        log.info("session {}: access denied for user {} from {}", sessionId, quoted, address);
        return error("28000", 1045, "Access denied for user " + quoted);
    }

    /**
     * A proven password: the throttle forgets the pair's failures; then the database ({@code ""}:
     * none named) and the user's session count decide. Null: logged in, counted against the user's
     * limit (the caller's session must end with {@link RouterServer#sessionEnded}); else the error to send.
     */
    public Error admit(long sessionId, String address, String user, String database) {
        server.loginThrottle().succeeded(address, user);
        Error wrongDatabase = checkDatabase(database);
        if (wrongDatabase != null) return wrongDatabase;
        if (!server.sessions().userStarted(user, listener)) {
            int max = server.config().limits().maxSessionsPerUser();
            String quoted = Session.printable(user);
            log.info("session {}: refused, user {} already has {} sessions (max_sessions_per_user)", sessionId, quoted, max);
            return error("42000", 1203, "User " + quoted + " already has more than 'max_user_connections' (" + max + ") active connections");
        }
        return null;
    }

    /** Null when {@code database} is this router's (or empty: none named), else MySQL's 1049. */
    public Error checkDatabase(String database) {
        String served = server.config().database();
        if (database == null || database.isEmpty() || database.equals(served)) return null;
        return error("42000", 1049, "Unknown database " + Session.printable(database) + " (this router serves '" + served + "')");
    }

    /** The users' passwords as the router keeps them. */
    public Credentials credentials() {
        return server.credentials();
    }

    static Error error(String state, int code, String message) {
        return SessionCore.error(state, code, message).getError();
    }
}
