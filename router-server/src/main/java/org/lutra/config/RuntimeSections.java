package org.lutra.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The configuration's {@code transactions:} and {@code limits:} sections: how distributed transactions are run and
 * recovered, and what one client, and all of them together, may cost the router. {@link RouterConfig} implements this
 * interface only so that the records are named {@code RouterConfig.Transactions} and {@code RouterConfig.Limits}, as
 * everywhere else; nothing else implements it.
 */
public interface RuntimeSections {
    /**
     * @param routerName       this router's name, stable across restarts and different for every router
     *                         sharing the backends: its XA transaction ids carry it, and at start it
     *                         resolves the in-doubt branches of its own earlier lives at once
     * @param lockWaitSeconds  innodb_lock_wait_timeout on every backend connection: bounds waits,
     *                         including cross-shard deadlocks no single shard can see
     * @param recoverySeconds  how often XA RECOVER is reconciled with the decision log
     * @param recoveryGraceSeconds a prepared branch of another router (or an earlier life) is resolved
     *                         only once it is this old, so live transactions are left to finish
     * @param prepareTimeoutMillis phase one (XA END + XA PREPARE on every writer) must end within this, else
     *                         the transaction is rolled back; a backend that stops answering is cut off
     *                         by a socket timeout (Connection.setNetworkTimeout)
     * @param decisionTimeoutMillis writing and committing the decision row must end within this. Together
     *                         with the prepare timeout it is the coordinator's bound: a coordinator that
     *                         has not decided by then aborts instead, so it can never commit after
     *                         recovery may have rolled its branches back (their sum must stay under the grace)
     * @param commitTimeoutMillis each statement of phase two (XA COMMIT), of rolling back, and of recovery;
     *                         a branch not committed by then is left to recovery (the transaction is committed)
     * @param deadlockCheckMillis a transaction whose locking statement has run this long makes the router look for a
     *                         deadlock across partitions in the shards' lock-wait views (docs/transactions.md); 0 = the
     *                         default (50), a negative value turns the detector off (lock_wait_timeout_seconds alone)
     */
    public record Transactions(
            @JsonProperty("router_name") String routerName,
            @JsonProperty("lock_wait_timeout_seconds") int lockWaitSeconds,
            @JsonProperty("recovery_interval_seconds") int recoverySeconds,
            @JsonProperty("recovery_grace_seconds") int recoveryGraceSeconds,
            @JsonProperty("prepare_timeout_ms") int prepareTimeoutMillis,
            @JsonProperty("decision_timeout_ms") int decisionTimeoutMillis,
            @JsonProperty("commit_timeout_ms") int commitTimeoutMillis,
            @JsonProperty("deadlock_check_ms") int deadlockCheckMillis) {
        /** A phase's default: 5 s, or less when the grace is short, so that both decide-phases fit in half the grace. */
        private static final int PHASE_DEFAULT_MILLIS = 5_000;

        public Transactions {
            routerName = routerName == null || routerName.isBlank() ? "router" : routerName;
            if (!routerName.matches("[A-Za-z0-9_.-]{1,16}")) {
                throw new IllegalArgumentException("config: transactions.router_name '" + routerName
                        + "' must be 1-16 characters of A-Z a-z 0-9 _ . - (it is part of every XA transaction id)");
            }
            lockWaitSeconds = lockWaitSeconds <= 0 ? 10 : lockWaitSeconds;
            recoverySeconds = recoverySeconds <= 0 ? 10 : recoverySeconds;
            recoveryGraceSeconds = recoveryGraceSeconds <= 0 ? 60 : recoveryGraceSeconds;
            int phaseDefault = Math.min(PHASE_DEFAULT_MILLIS, recoveryGraceSeconds * 1000 / 4);
            prepareTimeoutMillis = prepareTimeoutMillis <= 0 ? phaseDefault : prepareTimeoutMillis;
            decisionTimeoutMillis = decisionTimeoutMillis <= 0 ? phaseDefault : decisionTimeoutMillis;
            commitTimeoutMillis = commitTimeoutMillis <= 0 ? PHASE_DEFAULT_MILLIS : commitTimeoutMillis;
            deadlockCheckMillis = deadlockCheckMillis == 0 ? DEADLOCK_CHECK_DEFAULT_MILLIS : Math.max(-1, deadlockCheckMillis);
            if ((long) prepareTimeoutMillis + decisionTimeoutMillis >= recoveryGraceSeconds * 1000L) {
                throw new IllegalArgumentException("config: transactions.prepare_timeout_ms + decision_timeout_ms ("
                        + prepareTimeoutMillis + " + " + decisionTimeoutMillis + ") must be less than recovery_grace_seconds ("
                        + recoveryGraceSeconds + " s): recovery may roll back a prepared branch once it is that old, so a"
                        + " coordinator must have decided before");
            }
        }

        /** How long a locking statement runs before the router looks for a deadlock across partitions, by default. */
        private static final int DEADLOCK_CHECK_DEFAULT_MILLIS = 50;

        public Transactions(String routerName, int lockWaitSeconds, int recoverySeconds, int recoveryGraceSeconds) {
            this(routerName, lockWaitSeconds, recoverySeconds, recoveryGraceSeconds, 0, 0, 0);
        }

        public Transactions(String routerName, int lockWaitSeconds, int recoverySeconds, int recoveryGraceSeconds,
                            int prepareTimeoutMillis, int decisionTimeoutMillis, int commitTimeoutMillis) {
            this(routerName, lockWaitSeconds, recoverySeconds, recoveryGraceSeconds, prepareTimeoutMillis, decisionTimeoutMillis,
                    commitTimeoutMillis, 0);
        }

        /** Whether the router looks for deadlocks across partitions itself (else only the lock wait timeout ends them). */
        public boolean detectsDeadlocks() {
            return deadlockCheckMillis > 0;
        }

        /** The coordinator's bound from the start of phase one to its decision, in nanoseconds. */
        public long decideWithinNanos() {
            return (prepareTimeoutMillis + (long) decisionTimeoutMillis) * 1_000_000L;
        }

        public static Transactions defaults() {
            return new Transactions(null, 0, 0, 0);
        }
    }

    /**
     * Bounds on what clients can make the router spend. Every field is optional (0 = the default).
     *
     * @param maxStatementBytes  longest statement text (UTF-16 chars, as parsed) the router plans; a longer one is
     *                           refused with 42000/1153 before parsing (as max_allowed_packet, without closing)
     * @param maxNestingDepth    deepest nesting of parentheses and unary operators (NOT NOT ..., - - ...) planned;
     *                           deeper is refused before parsing (42000/1064)
     * @param maxOperatorChain   most binary operators (AND, OR, +, ...) in one expression; more is refused before parsing (42000/1064)
     * @param parseTimeoutMillis a statement the parser has not finished by then is refused (42000/1064)
     * @param planCacheBytes     the plan cache's budget, weighed by the statement texts it holds
     * @param loginTimeoutSeconds the whole handshake (challenge to login reply) must end within this
     * @param maxLoginFrameBytes largest frame accepted before a client has logged in (then max_frame_bytes)
     * @param idleTimeoutSeconds a session waiting this long for its client's next request is closed (MySQL's wait_timeout)
     * @param maxSessions        sessions at once, logged in or not (1040, 08004 "Too many connections" beyond)
     * @param maxSessionsPerUser sessions of one user at once (1203, 42000); 0 = no limit but max_sessions
     * @param statementTimeoutMillis a statement still running after this long is stopped on the backends and
     *                           answered with 70100/1969 (MariaDB's max_statement_time); 0 = none, as MySQL. A
     *                           client's query timeout applies when shorter
     * @param loginFailuresPerAddressUser failed logins of one user from one address (each less than
     *                           {@code loginFailureWindowSeconds} after the previous one) before that pair is locked
     *                           out (3955); each further failure doubles the lockout
     * @param loginFailuresPerUser failed logins of one user from anywhere before it is locked out (3955) for
     *                           addresses it has not logged in from before
     * @param loginFailuresPerAddress failed logins from one address, any user, before the address is blocked
     *                           (1129) for pairs that have not logged in before
     * @param loginLockoutSeconds the first lockout; it doubles with every failure after, up to {@code loginLockoutMaxSeconds}
     * @param loginLockoutMaxSeconds the longest lockout
     * @param loginFailureWindowSeconds a failure this long after the previous one starts the count again
     * @param loginThrottleEntries addresses, users and pairs remembered at most (least recently seen forgotten first);
     *                           0 in a test's Limits = the default; a negative value turns throttling off
     */
    public record Limits(
            @JsonProperty("max_statement_bytes") int maxStatementBytes,
            @JsonProperty("max_nesting_depth") int maxNestingDepth,
            @JsonProperty("max_operator_chain") int maxOperatorChain,
            @JsonProperty("parse_timeout_ms") int parseTimeoutMillis,
            @JsonProperty("plan_cache_bytes") long planCacheBytes,
            @JsonProperty("login_timeout_seconds") int loginTimeoutSeconds,
            @JsonProperty("max_login_frame_bytes") int maxLoginFrameBytes,
            @JsonProperty("idle_timeout_seconds") int idleTimeoutSeconds,
            @JsonProperty("max_sessions") int maxSessions,
            @JsonProperty("max_sessions_per_user") int maxSessionsPerUser,
            @JsonProperty("statement_timeout_ms") long statementTimeoutMillis,
            @JsonProperty("login_failures_per_address_user") int loginFailuresPerAddressUser,
            @JsonProperty("login_failures_per_user") int loginFailuresPerUser,
            @JsonProperty("login_failures_per_address") int loginFailuresPerAddress,
            @JsonProperty("login_lockout_seconds") int loginLockoutSeconds,
            @JsonProperty("login_lockout_max_seconds") int loginLockoutMaxSeconds,
            @JsonProperty("login_failure_window_seconds") int loginFailureWindowSeconds,
            @JsonProperty("login_throttle_entries") int loginThrottleEntries) {
        /** The limits before login throttling had knobs: those at their defaults. */
        public Limits(int maxStatementBytes, int maxNestingDepth, int maxOperatorChain, int parseTimeoutMillis, long planCacheBytes,
                      int loginTimeoutSeconds, int maxLoginFrameBytes, int idleTimeoutSeconds, int maxSessions, int maxSessionsPerUser,
                      long statementTimeoutMillis) {
            this(maxStatementBytes, maxNestingDepth, maxOperatorChain, parseTimeoutMillis, planCacheBytes, loginTimeoutSeconds,
                    maxLoginFrameBytes, idleTimeoutSeconds, maxSessions, maxSessionsPerUser, statementTimeoutMillis, 0, 0, 0, 0, 0, 0, 0);
        }

        public Limits {
            maxStatementBytes = maxStatementBytes <= 0 ? 4 << 20 : maxStatementBytes;
            maxNestingDepth = maxNestingDepth <= 0 ? 256 : maxNestingDepth;
            maxOperatorChain = maxOperatorChain <= 0 ? 2_000 : maxOperatorChain;
            parseTimeoutMillis = parseTimeoutMillis <= 0 ? 3_000 : parseTimeoutMillis;
            planCacheBytes = planCacheBytes <= 0 ? 64L << 20 : planCacheBytes;
            loginTimeoutSeconds = loginTimeoutSeconds <= 0 ? 10 : loginTimeoutSeconds;
            maxLoginFrameBytes = maxLoginFrameBytes <= 0 ? 64 << 10 : maxLoginFrameBytes;
            idleTimeoutSeconds = idleTimeoutSeconds <= 0 ? 28_800 : idleTimeoutSeconds;
            maxSessions = maxSessions <= 0 ? 1_000 : maxSessions;
            maxSessionsPerUser = Math.max(0, maxSessionsPerUser);
            statementTimeoutMillis = Math.max(0, statementTimeoutMillis);
            loginFailuresPerAddressUser = loginFailuresPerAddressUser <= 0 ? 5 : loginFailuresPerAddressUser;
            loginFailuresPerUser = loginFailuresPerUser <= 0 ? 50 : loginFailuresPerUser;
            loginFailuresPerAddress = loginFailuresPerAddress <= 0 ? 50 : loginFailuresPerAddress;
            loginLockoutSeconds = loginLockoutSeconds <= 0 ? 1 : loginLockoutSeconds;
            loginLockoutMaxSeconds = loginLockoutMaxSeconds <= 0 ? 300 : Math.max(loginLockoutSeconds, loginLockoutMaxSeconds);
            loginFailureWindowSeconds = loginFailureWindowSeconds <= 0 ? 900 : loginFailureWindowSeconds;
            loginThrottleEntries = loginThrottleEntries == 0 ? 10_000 : Math.max(-1, loginThrottleEntries);
        }

        /** These limits without login throttling (a test whose hostile client shares the legitimate client's address and user). */
        public Limits withoutLoginThrottle() {
            return withLoginThrottle(0, 0, 0, 0, 0, -1);
        }

        /** These limits with login throttling as given (for tests: a hostile client next to the legitimate one). */
        public Limits withLoginThrottle(int perAddressUser, int perUser, int perAddress, int lockoutSeconds, int lockoutMaxSeconds,
                                        int entries) {
            return new Limits(maxStatementBytes, maxNestingDepth, maxOperatorChain, parseTimeoutMillis, planCacheBytes, loginTimeoutSeconds,
                    maxLoginFrameBytes, idleTimeoutSeconds, maxSessions, maxSessionsPerUser, statementTimeoutMillis, perAddressUser, perUser,
                    perAddress, lockoutSeconds, lockoutMaxSeconds, loginFailureWindowSeconds, entries);
        }

        /** The deadline of a statement whose client asked for {@code clientMillis} (0 = none). */
        public long statementDeadlineMillis(long clientMillis) {
            if (clientMillis <= 0) return statementTimeoutMillis;
            return statementTimeoutMillis <= 0 ? clientMillis : Math.min(clientMillis, statementTimeoutMillis);
        }

        public static Limits defaults() {
            return new Limits(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
    }
}
