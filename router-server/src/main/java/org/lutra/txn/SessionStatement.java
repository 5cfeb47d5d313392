package org.lutra.txn;

import org.lutra.backend.Backends;
import org.lutra.backend.Connections;
import org.lutra.backend.Deadline;
import org.lutra.backend.SessionState;
import org.lutra.backend.Warnings;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One statement's connections in a session ({@link SessionTransactions#statement}): the open transaction's, else the pool's (or
 * a transaction of its own, see {@link #atomic}); once it ran, {@link #succeeded} or {@link #failed} decides what becomes of
 * the transaction.
 */
public final class SessionStatement implements Connections {
    private final SessionTransactions session;
    private final Transactions service;
    private final Connections pooled;
    private final int sessionIsolation;
    /**
     * The transaction this statement belongs to, fixed when it starts: rows it reads later
     * (a cursor's lookup fallback) never run in a later transaction; once this one has
     * ended, they fail instead.
     */
    private final TransactionState txn;
    private final boolean readOnlyTxn;
    private final SessionState carry;
    private TransactionState implicit;
    /** Where its routing keys go: the session transaction's trace, else its own as an auto-commit statement (written when it succeeds). */
    private org.lutra.trace.KeyTrace trace;
    /**
     * What this statement did in the session's transaction, to tell whether a failure of it can leave the transaction
     * open; none outside one (an auto-commit statement's failure ends nothing).
     */
    private final StatementFootprint footprint;
    private Deadline deadline = Deadline.NONE;
    private Warnings warnings;
    private boolean plainRead;
    private java.util.function.BooleanSupplier neverWaits = () -> false;
    private boolean restartable;

    SessionStatement(SessionTransactions session, Transactions service, int sessionIsolation, TransactionState current, boolean readOnly,
                     SessionState variables, org.lutra.trace.KeyTrace currentTrace) {
        this.session = session;
        this.service = service;
        this.sessionIsolation = sessionIsolation;
        this.pooled = Connections.pooled(service.backends(), sessionIsolation);
        this.txn = current;
        this.readOnlyTxn = readOnly;
        this.carry = variables;
        this.trace = current != null ? currentTrace : service.recorder().begin();
        this.footprint = current != null ? new StatementFootprint() : null;
    }

    /** This statement's backend warnings go to {@code warnings}. */
    public SessionStatement reporting(Warnings warnings) {
        this.warnings = warnings;
        return this;
    }

    @Override
    public Warnings warnings() {
        return warnings;
    }

    /**
     * Marks this statement a plain read (its rows come from routes that no operator of the
     * router queries again while they stream): then, inside a transaction, its rows stream from
     * the pinned connections, and whatever uses such a connection next reads their rest into the
     * router first. Unmarked, they are read whole.
     */
    public SessionStatement plainRead() {
        this.plainRead = true;
        return this;
    }

    /**
     * Whether this statement is a locking read that never waits for a lock (NOWAIT, SKIP LOCKED), as its plan says:
     * its lock wait timeout is no deadlock across shards, and leaves the transaction open where a transaction on one
     * partition would stay open. Asked only when the statement fails in a transaction: reading it off the plan's
     * SQL on every statement cost a point select 12 us of router CPU (bench point, 16 clients).
     */
    public SessionStatement neverWaits(java.util.function.BooleanSupplier neverWaits) {
        this.neverWaits = neverWaits;
        return this;
    }

    /** This statement runs within {@code deadline}. */
    public SessionStatement within(Deadline deadline) {
        this.deadline = deadline;
        return this;
    }

    @Override
    public Deadline deadline() {
        return deadline;
    }

    @Override
    public org.lutra.trace.KeyTrace trace() {
        return trace;
    }

    /** Its keys are the router's own business (ALTER TABLE ... SET PARTITION reading the keys to move): not traced. */
    public SessionStatement untraced() {
        this.trace = org.lutra.trace.KeyTrace.NONE;
        return this;
    }

    @Override
    public Lease lease(int partition, Use use) throws SQLException {
        return lease(partition, use == Use.WRITE ? TransactionState.Access.WRITE : TransactionState.Access.READ);
    }

    @Override
    public Lease consistentRead(int partition) throws SQLException {
        return lease(partition, TransactionState.Access.CONSISTENT_READ);
    }

    private Lease lease(int partition, TransactionState.Access access) throws SQLException {
        boolean write = access == TransactionState.Access.WRITE;
        if (write && readOnlyTxn) {
            throw new SQLException("Cannot execute statement in a READ ONLY transaction", "25006", 1792);
        }
        TransactionState t = txn != null ? txn : implicit;
        if (txn != null) footprint.asks(partition, write);
        var rows = txn != null && plainRead ? TransactionState.Rows.MAY_STREAM : TransactionState.Rows.READ_WHOLE;
        Lease lease = t != null ? t.lease(partition, access, rows) : pooled.lease(partition, write ? Use.WRITE : Use.READ);
        var placement = service.backends().placement(partition);
        try {
            if (lease instanceof BranchLease pinned) pinned.carry(carry); // a transaction's connection: of the transactions pool
            else placement.carry(lease.connection(), carry, placement.pool());
        } catch (SQLException e) {
            SQLException located = Backends.located(placement, e);
            lease.release(located); // not this statement's footprint: the transaction cannot go on after it
            throw located;
        }
        return txn != null ? footprint.track(lease) : lease;
    }

    @Override
    public SessionState variables() {
        return carry;
    }

    @Override
    public void broken(SQLException cause) {
        TransactionState t = txn != null ? txn : implicit;
        if (t != null) t.broken(cause);
    }

    @Override
    public boolean transactional() {
        return txn != null || implicit != null;
    }

    @Override
    public int isolation() {
        TransactionState t = txn != null ? txn : implicit;
        return t != null ? t.isolation() : sessionIsolation == Connection.TRANSACTION_NONE ? Connection.TRANSACTION_REPEATABLE_READ : sessionIsolation;
    }

    @Override
    public boolean begun(int partition) {
        TransactionState t = txn != null ? txn : implicit;
        return t != null && t.begun(partition);
    }

    @Override
    public java.util.OptionalLong snapshotBatches(int partition, String group) {
        TransactionState t = txn != null ? txn : implicit;
        return t != null ? t.snapshotBatches(partition, group) : null;
    }

    @Override
    public void snapshotBatches(int partition, String group, java.util.OptionalLong moves) {
        TransactionState t = txn != null ? txn : implicit;
        if (t != null) t.snapshotBatches(partition, group, moves);
    }

    @Override
    public void everySnapshotBatches(int partition) {
        TransactionState t = txn != null ? txn : implicit;
        if (t != null) t.everySnapshotBatches(partition);
    }

    @Override
    public boolean onlySnapshotOf(int partition) {
        TransactionState t = txn != null ? txn : implicit;
        return t != null && t.onlySnapshotOf(partition);
    }

    @Override
    public boolean consistentReadsOnly() {
        TransactionState t = txn != null ? txn : implicit;
        return t == null || t.consistentReadsOnly();
    }

    @Override
    public void atomic() {
        if (txn == null && implicit == null) implicit = service.begin(sessionIsolation);
    }

    /** The statement succeeded: commit it if it ran as a transaction of its own. */
    public void succeeded() throws SQLException {
        if (implicit != null) {
            TransactionState t = implicit;
            implicit = null;
            t.commit();
        }
        if (txn == null) trace.committed(); // an auto-commit statement is its own transaction
    }

    /** The statement failed with {@code e}: roll back what must be, and return the error to report. */
    public SQLException failed(Exception e) {
        if (implicit != null) {
            TransactionState t = implicit;
            implicit = null;
            SQLException reported = session.abort(t, e, false);
            // a deadlock a detector found (the router's, or a shard's own 1213), not a lock wait timeout reported as a suspected
            // deadlock: that statement waited the whole timeout already, and running it again could wait it five times over
            restartable = t.failure() instanceof DeadlockVictim || e instanceof SQLException s && s.getErrorCode() == SessionTransactions.DEADLOCK;
            return reported;
        }
        if (txn != null && session.isCurrent(txn)) {
            if (e instanceof SQLException s && undoneByItsBackend(s)) return s;
            // the statement's partitions count whether or not its failure stopped its other sub-queries before they joined
            return session.abort(txn, e, true, txn.lockingPartitionsWith(footprint.partitions()));
        }
        return e instanceof SQLException s ? s : Internal.error(e);
    }

    /**
     * Whether the failed statement may simply run again: an auto-commit statement that ran as a transaction of its own
     * over several partitions and was rolled back whole as a deadlock victim. One MariaDB never deadlocks two such
     * statements (each locks its rows in one scan order), but their sub-queries run on the partitions side by side and
     * may lock in different orders; nothing of the victim was visible, so running it again is what one MariaDB's
     * client would have seen.
     */
    public boolean restartable() {
        return restartable && !deadline.expired();
    }

    /** It is run again (counted in SHOW LUTRA STATUS's deadlock_restarts). */
    public void restarting() {
        service.stats().deadlockRestarts.increment();
    }

    /**
     * Whether the failed statement changed nothing once its backend undid it, and the transaction can go
     * on as one MariaDB's would (see {@link StatementFootprint}); never after the statement's deadline (a
     * KILL QUERY or an aborted connection stopped it).
     */
    private boolean undoneByItsBackend(SQLException e) {
        if (deadline.expired() || txn.failure() == null) return false;
        // a partition the transaction never began on (a sub-query that found it failed already) has nothing to roll back
        if (!footprint.undoneByItsBackend(e, txn.lockingPartitionsWith(footprint.partitions()), neverWaits.getAsBoolean(),
                p -> txn.begun(p) && txn.rollsBackOnTimeout(p))) return false;
        return txn.statementUndone(footprint.failures());
    }
}
