package org.lutra.txn;

import org.lutra.backend.SessionState;
import org.lutra.exec.SessionCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One session's transaction state, with MySQL's rules:
 * <ul>
 *   <li>auto-commit on (the default): each statement is its own transaction. One that may change
 *       rows on several partitions runs as a transaction of its own, committed with XA if needed,
 *       so it is all-or-nothing; one that touches a single partition is a plain auto-commit statement;</li>
 *   <li>{@code BEGIN} / {@code START TRANSACTION} opens a transaction until COMMIT or ROLLBACK; a
 *       BEGIN inside an open transaction first commits it (as MySQL does);</li>
 *   <li>{@code SET autocommit = 0}: a transaction opens with the next statement and lasts until
 *       COMMIT or ROLLBACK; {@code SET autocommit = 1} commits an open one.</li>
 * </ul>
 * A statement that fails on a backend with an error after which MySQL undoes only the statement (a
 * duplicate key, a constraint, a bad value, a lock wait timeout) leaves the transaction open, as in
 * MySQL, when the router can promise that its backend's statement rollback undid everything the
 * statement did (it wrote on one partition only and changed nothing else: {@link StatementFootprint}).
 * Any other failure rolls the whole transaction back at once (releasing its locks on every shard),
 * and the session then refuses statements until the application says COMMIT or ROLLBACK: a
 * transaction is never half applied.
 *
 * <p>Savepoints ({@code SAVEPOINT}, {@code ROLLBACK TO}, {@code RELEASE}) belong to the open
 * transaction ({@link TransactionState}) and end with it. In a transaction holding a savepoint, a
 * statement that failed with an error after which MySQL undoes only the statement (a duplicate key,
 * a constraint) leaves the transaction open but failed: {@code ROLLBACK TO} a savepoint undoes the
 * statement's effects on every partition with the rest that followed the savepoint, and the
 * transaction goes on (Spring's nested transactions); anything else until then is refused (25000),
 * and COMMIT rolls it back (40000).
 */
public final class SessionTransactions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionTransactions.class);
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    static final int DEADLOCK = 1213;

    private final Transactions service;
    private boolean autocommit = true;
    /** TRANSACTION_NONE = the backends' default. */
    private int sessionIsolation = Connection.TRANSACTION_NONE;
    private int nextIsolation = Connection.TRANSACTION_NONE;
    /** The open transaction (explicit, or with auto-commit off), or null. */
    private TransactionState current;
    /** The keys the open transaction touched, if it was drawn into the trace's sample; else a do-nothing one. */
    private org.lutra.trace.KeyTrace currentTrace = org.lutra.trace.KeyTrace.NONE;
    private boolean readOnly;
    /** SET SESSION TRANSACTION READ ONLY: every transaction of the session, auto-commit statements too; null = not for the next one. */
    private boolean sessionReadOnly;
    private Boolean nextReadOnly;
    /** Why the open transaction was rolled back, until the application ends it. */
    private SQLException abortedBy;
    /** The variables the session set (sql_mode, time_zone, @x, ...): carried by every backend connection its statements use. */
    private SessionState variables = SessionState.EMPTY;

    SessionTransactions(Transactions service) {
        this.service = service;
    }

    // ---- transaction control ----------------------------------------------------------------------

    public void control(SessionCommand.Control control) throws SQLException {
        switch (control) {
            case SessionCommand.Begin b -> {
                // After a deadlock (1213) MySQL has rolled the whole transaction back and a BEGIN starts the next one, which
                // is how clients retry (sysbench, frameworks): the application was told it lost the transaction, so nothing
                // of it can be committed by mistake. Other failures still want the ROLLBACK that says the application knows.
                if (abortedBy != null && abortedBy.getErrorCode() == DEADLOCK) abortedBy = null;
                requireNotAborted("BEGIN");
                commitCurrent();
                current = open(b.readOnly());
            }
            case SessionCommand.Commit c -> commitCurrent();
            case SessionCommand.Rollback r -> rollbackCurrent();
            case SessionCommand.Savepoint s -> {
                requireNotAborted("SAVEPOINT");
                if (current == null && !autocommit) current = open(false);
                if (current != null) onBranches(t -> t.savepoint(s.name())); // in auto-commit mode MySQL accepts it and keeps nothing
            }
            case SessionCommand.RollbackToSavepoint r -> {
                requireNotAborted("ROLLBACK TO SAVEPOINT");
                if (current == null) throw Savepoints.doesNotExist(r.name());
                onBranches(t -> t.rollbackTo(r.name()));
            }
            case SessionCommand.ReleaseSavepoint r -> {
                requireNotAborted("RELEASE SAVEPOINT");
                if (current == null) throw Savepoints.doesNotExist(r.name());
                onBranches(t -> t.release(r.name()));
            }
            case SessionCommand.SetAutocommit a -> {
                if (a.on() && !autocommit) {
                    try {
                        commitCurrent();
                    } finally {
                        autocommit = true;
                    }
                }
                autocommit = a.on();
            }
            case SessionCommand.SetReadOnly r -> {
                if (r.forSession()) {
                    sessionReadOnly = r.readOnly();
                } else {
                    if (current != null && current.partitions() > 0) {
                        throw new SQLException("Transaction characteristics can't be changed while a transaction is in progress", "25001", 1568);
                    }
                    nextReadOnly = r.readOnly();
                }
            }
            case SessionCommand.SetIsolation i -> {
                if (i.forSession()) {
                    sessionIsolation = i.level();
                } else {
                    if (current != null && current.partitions() > 0) {
                        throw new SQLException("Transaction characteristics can't be changed while a transaction is in progress", "25001", 1568);
                    }
                    nextIsolation = i.level();
                }
            }
        }
    }

    /**
     * Before DDL: MySQL commits the open transaction implicitly. The router does so for a
     * transaction that has written nothing (a migration tool's reads of its history table, or
     * nothing at all with auto-commit off: ending it changes no row); one that wrote is refused
     * (25000, 1179) — its writes would be committed by a statement that says nothing about them,
     * and over several partitions the DDL after them is not atomic with them.
     */
    public void commitBeforeDdl() throws SQLException {
        requireNotAborted("DDL");
        if (current == null) return;
        if (current.wrote()) {
            throw new SQLException("DDL inside a transaction that has written is refused (MySQL would commit the transaction "
                    + "implicitly): COMMIT or ROLLBACK first", "25000", 1179);
        }
        commitCurrent();
    }

    /** The connections for the next statement (which must then call {@link SessionStatement#succeeded} or {@link SessionStatement#failed}). */
    public SessionStatement statement() throws SQLException {
        requireNotAborted("this statement");
        if (current == null && !autocommit) current = open(false);
        return new SessionStatement(this, service, sessionIsolation, current, current != null ? readOnly : sessionReadOnly, variables,
                currentTrace);
    }

    /** Whether {@code t} is the session's open transaction still. */
    boolean isCurrent(TransactionState t) {
        return t == current;
    }

    public boolean autocommit() {
        return autocommit;
    }

    public boolean inTransaction() {
        return current != null || abortedBy != null;
    }

    /** Whether the next statements may not write: the open transaction's characteristic, else the session's. */
    public boolean readOnly() {
        return current != null ? readOnly : nextReadOnly != null ? nextReadOnly : sessionReadOnly;
    }

    /** The isolation level the next statements run at, as a java.sql.Connection constant. */
    public int isolation() {
        int level = current != null || nextIsolation == Connection.TRANSACTION_NONE ? sessionIsolation : nextIsolation;
        return level == Connection.TRANSACTION_NONE ? Connection.TRANSACTION_REPEATABLE_READ : level;
    }

    public SessionState variables() {
        return variables;
    }

    /** The session's variables from now on (a SET the router checked on a backend: {@code org.lutra.server.SessionSet}). */
    public void variables(SessionState variables) {
        this.variables = variables;
    }

    /** The client is gone: roll back what it left open. */
    @Override
    public void close() {
        if (current != null) {
            log.debug("session ended inside {}: rolling it back", current);
            current.rollback();
            current = null;
        }
    }

    /** A transaction of the router's own work (a move's batch), apart from the session's, at REPEATABLE READ; it yields its locks. */
    public TransactionState own() {
        return service.beginYielding();
    }

    /** @param declaredReadOnly START TRANSACTION READ ONLY (else the session's or next transaction's characteristic decides) */
    private TransactionState open(boolean declaredReadOnly) {
        int level = nextIsolation != Connection.TRANSACTION_NONE ? nextIsolation : sessionIsolation;
        nextIsolation = Connection.TRANSACTION_NONE;
        readOnly = declaredReadOnly || (nextReadOnly != null ? nextReadOnly : sessionReadOnly);
        nextReadOnly = null;
        currentTrace = service.recorder().begin();
        return service.begin(level, readOnly);
    }

    private interface SavepointAction {
        void run(TransactionState t) throws SQLException;
    }

    /** A savepoint statement on the open transaction's branches: one that fails on a backend rolls the transaction back, as any statement. */
    private void onBranches(SavepointAction action) throws SQLException {
        try {
            action.run(current);
        } catch (SQLException e) {
            throw abort(current, e, true);
        }
    }

    private void commitCurrent() throws SQLException {
        if (abortedBy != null) {
            SQLException cause = abortedBy;
            abortedBy = null;
            throw new SQLException("Transaction was rolled back after an error, nothing was committed: " + cause.getMessage(),
                    "40000", cause.getErrorCode(), cause);
        }
        if (current == null) return;
        current.drainStreams(); // past its bound the COMMIT is refused and the transaction stays open
        TransactionState t = current;
        var trace = currentTrace;
        current = null;
        currentTrace = org.lutra.trace.KeyTrace.NONE;
        t.commit();
        trace.committed();
    }

    private void rollbackCurrent() {
        abortedBy = null;
        currentTrace = org.lutra.trace.KeyTrace.NONE;
        if (current == null) return;
        TransactionState t = current;
        current = null;
        t.rollback();
    }

    private void requireNotAborted(String what) throws SQLException {
        if (abortedBy != null) {
            throw new SQLException("Transaction was rolled back after an error (" + abortedBy.getMessage()
                    + "); issue ROLLBACK before " + what, "25000", 0, abortedBy);
        }
    }

    /**
     * A failed statement inside a transaction. If it failed on a backend (or the router failed
     * mid-way), the transaction is rolled back now; an error raised before any backend ran the
     * statement leaves an explicit transaction open, as MySQL does. Lock wait timeouts and
     * deadlocks become SQLState 40001, so that applications and pools retry; with locks held on
     * several partitions a lock wait timeout may be a deadlock across shards, which no single shard
     * can detect.
     */
    SQLException abort(TransactionState t, Exception e, boolean explicit) {
        return abort(t, e, explicit, t.lockingPartitionsWith(java.util.Set.of()));
    }

    /**
     * As above; {@code partitions}: those where the transaction may hold locks, with the failed statement's (some of which its
     * failure kept it from joining): a consistent read locks nothing, and cannot be part of a deadlock.
     */
    SQLException abort(TransactionState t, Exception e, boolean explicit, int partitions) {
        SQLException error = e instanceof SQLException s ? s : Internal.error(e);
        if (explicit && e instanceof SQLException && t.failure() == null) return error;
        if (explicit && t.recoverableBySavepoint()) {
            // MySQL undid only the statement on each branch: the application may roll back to a savepoint
            return new SQLException(error.getMessage() + " (the transaction is kept for ROLLBACK TO SAVEPOINT, which undoes this statement"
                    + " with what followed the savepoint, or ROLLBACK)", error.getSQLState(), error.getErrorCode(), error);
        }
        t.rollback();
        // the router's deadlock detector stopped this statement to break a cycle: that is the answer, not the interruption
        SQLException reported = t.failure() instanceof DeadlockVictim victim ? victim.reported(error) : retryable(error, partitions);
        if (explicit) {
            current = null;
            currentTrace = org.lutra.trace.KeyTrace.NONE;
            abortedBy = reported;
        }
        return reported;
    }

    private SQLException retryable(SQLException e, int partitions) {
        int code = e.getErrorCode();
        if (code == DEADLOCK) {
            return new SQLException(e.getMessage() + " (the whole transaction was rolled back)", "40001", code, e);
        }
        if (code == LOCK_WAIT_TIMEOUT && partitions > 1) {
            // Reported as MySQL reports a deadlock (1213), so that applications and frameworks
            // that retry deadlock victims retry this one too.
            service.stats().deadlocksByTimeout.increment();
            return new SQLException("Deadlock suspected: " + e.getMessage() + " while this transaction holds locks on " + partitions
                    + " partitions (a deadlock across shards ends this way where the router's detector cannot see it); the whole transaction "
                    + "was rolled back, retry it", "40001", DEADLOCK, e);
        }
        if (code == LOCK_WAIT_TIMEOUT) {
            return new SQLException(e.getMessage() + " (the whole transaction was rolled back)", "40001", code, e);
        }
        return new SQLException(e.getMessage() + " (the whole transaction was rolled back)", e.getSQLState(), code, e);
    }
}
