package org.lutra.server;

import org.lutra.config.RouterConfig;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Failed logins counted per (address, user) pair, per address and per user, and the lockouts
 * they earn. A locked-out attempt is refused before its password is checked, so guessing goes
 * no faster by asking more often.
 *
 * <p>Three counters, so that an attacker cannot lock a user out from everywhere:
 * <ul>
 *   <li>a pair (address, user) is locked after few failures ({@code login_failures_per_address_user}),
 *       for a lockout that doubles with every failure after, up to a bound — one address guessing
 *       one user's password gets a guess every few minutes;</li>
 *   <li>a user (guessed from many addresses) and an address (trying many users) are locked after
 *       many failures, but only for pairs that have not logged in before: a client that logged in
 *       as that user from that address goes on doing so while the user or its address is attacked
 *       from elsewhere. Failed logins of unknown user names count for pairs and addresses only.</li>
 * </ul>
 * Refused attempts count nothing (hammering a locked pair does not extend the lockout), a
 * successful login clears its pair. A counter whose last failure is older than the window
 * starts again. The table holds at most {@code login_throttle_entries} counters, forgetting the
 * least recently seen first; an attacker's own counters stay recent as long as it attacks.
 */
final class LoginThrottle {
    /** What a login attempt may do. */
    sealed interface Verdict {
        record Allowed() implements Verdict {}

        /** Refused before the password is checked, with MySQL's error for it. */
        record Refused(String sqlState, int vendorCode, String message) implements Verdict {}
    }

    static final Verdict ALLOWED = new Verdict.Allowed();

    private static final class Counter {
        int failures;
        long lastFailure;
        long lockedUntil;
        long lockMillis;
        boolean loggedIn; // pairs only: this address has logged in as this user
    }

    private final RouterConfig.Limits limits;
    private final boolean enabled;
    private final Map<String, Counter> counters;

    LoginThrottle(RouterConfig.Limits limits) {
        this.limits = limits;
        this.enabled = limits.loginThrottleEntries() > 0;
        int max = Math.max(1, limits.loginThrottleEntries());
        this.counters = new LinkedHashMap<>(16, 0.75f, true /* access order: least recently seen first */) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Counter> eldest) {
                return size() > max;
            }
        };
    }

    /**
     * Whether {@code user} may try a password from {@code address} now. {@code quotedUser} is the
     * name as it may appear in a message ({@link Session#printable}).
     */
    synchronized Verdict check(String address, String user, String quotedUser, long nowMillis) {
        if (!enabled) return ALLOWED;
        var pair = counters.get(pairKey(address, user));
        if (pair != null && pair.lockedUntil > nowMillis) return accountBlocked(quotedUser, address, pair, nowMillis);
        if (pair != null && pair.loggedIn) return ALLOWED;
        var byUser = counters.get(userKey(user));
        if (byUser != null && byUser.lockedUntil > nowMillis) return accountBlocked(quotedUser, address, byUser, nowMillis);
        var byAddress = counters.get(addressKey(address));
        if (byAddress != null && byAddress.lockedUntil > nowMillis) {
            return new Verdict.Refused("HY000", 1129, "Host '" + address + "' is blocked because of " + byAddress.failures
                    + " failed logins; try again in " + seconds(byAddress.lockedUntil - nowMillis) + " s");
        }
        return ALLOWED;
    }

    /** A wrong password, or an unknown user ({@code knownUser} false: no user counter for a name no account has). */
    synchronized void failed(String address, String user, boolean knownUser, long nowMillis) {
        if (!enabled) return;
        count(pairKey(address, user), limits.loginFailuresPerAddressUser(), nowMillis);
        count(addressKey(address), limits.loginFailuresPerAddress(), nowMillis);
        if (knownUser) count(userKey(user), limits.loginFailuresPerUser(), nowMillis);
    }

    synchronized void succeeded(String address, String user) {
        if (!enabled) return;
        var pair = counters.computeIfAbsent(pairKey(address, user), k -> new Counter());
        pair.failures = 0;
        pair.lockedUntil = 0;
        pair.lockMillis = 0;
        pair.loggedIn = true;
    }

    synchronized int size() {
        return counters.size();
    }

    private void count(String key, int threshold, long now) {
        var c = counters.computeIfAbsent(key, k -> new Counter());
        if (now - c.lastFailure > limits.loginFailureWindowSeconds() * 1000L) {
            c.failures = 0;
            c.lockMillis = 0;
        }
        c.failures++;
        c.lastFailure = now;
        if (c.failures >= threshold) {
            // 1 s, 2 s, 4 s, ... up to the bound
            c.lockMillis = c.lockMillis == 0 ? limits.loginLockoutSeconds() * 1000L
                    : Math.min(2 * c.lockMillis, limits.loginLockoutMaxSeconds() * 1000L);
            c.lockedUntil = now + c.lockMillis;
        }
    }

    /** MySQL 8's error for an account locked by FAILED_LOGIN_ATTEMPTS, in seconds rather than days. */
    private static Verdict accountBlocked(String quotedUser, String address, Counter c, long now) {
        return new Verdict.Refused("HY000", 3955, "Access denied for user " + quotedUser + "@'" + address + "'. Account is blocked for "
                + seconds(c.lockMillis) + " second(s) (" + seconds(c.lockedUntil - now) + " second(s) remaining) due to " + c.failures
                + " consecutive failed logins.");
    }

    private static long seconds(long millis) {
        return (millis + 999) / 1000;
    }

    // NUL cannot occur in an address, so no user name makes one key look like another
    private static String pairKey(String address, String user) {
        return "p\0" + address + "\0" + bounded(user);
    }

    private static String userKey(String user) {
        return "u\0" + bounded(user);
    }

    /** A name as long as a frame allows would make one counter cost kilobytes: long names are cut (and told apart by a hash). */
    private static String bounded(String user) {
        return user.length() <= 128 ? user : user.substring(0, 128) + "\0" + user.length() + ":" + user.hashCode();
    }

    private static String addressKey(String address) {
        return "a\0" + address;
    }
}
