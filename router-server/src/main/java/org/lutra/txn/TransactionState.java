package org.lutra.txn;

import org.lutra.backend.Connections;
import org.lutra.exec.RouterMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One open transaction (the thesis's TransactionState): the partitions it touched, one pinned
 * connection per partition, which of them wrote, and how it ends.
 *
 * <p>Commit: with at most one writing partition, every branch commits alone, in parallel (the
 * read-only ones are simply released): one round trip, no XA decision, no log. With two or more
 * writers, XA two-phase commit, presumed abort: prepare the writers and release the readers in
 * parallel, make the decision durable in the coordinator branch ({@link DecisionLog}), then
 * commit the prepared branches in parallel. A branch that cannot be committed in phase two is
 * left prepared for {@link Recovery}, which finds the decision.
 *
 * <p>Savepoints: one is set on every branch open when the application sets it, and a branch that
 * opens later gets every savepoint the transaction holds at its start, before its first statement
 * — all of its work follows them, so ROLLBACK TO any of them undoes it. ROLLBACK TO runs on every
 * branch and gives each the written/read-only status it had at the savepoint (a branch whose writes
 * were all undone commits as a reader again).
 *
 * <p>State checks: a transaction serves one statement at a time; once it has ended, using it
 * is an error. A failed sub-query marks it failed, and it can then only be rolled back — unless its
 * statement was undone by its backend alone ({@link #statementUndone}) or a savepoint undoes it.
 *
 * <p>Why one class of over 400 lines: its state (branches, failure, status, the partitions it may lock,
 * savepoints) changes under the transaction's monitor, and what is left here reads or writes it there. How the
 * branches end is {@link CommitProtocol}; one sub-query's use of a branch, {@link BranchLease}.
 */
public final class TransactionState implements Connections {
    private static final Logger log = LoggerFactory.getLogger(TransactionState.class);

    enum Status { ACTIVE, ENDING, COMMITTED, ROLLED_BACK }

    private final Transactions service;
    private final int isolation;
    private final Map<Integer, Branch> branches = new LinkedHashMap<>();
    /**
     * The partitions where the transaction may hold row locks: it wrote there (or tried to), ran a locking read (the
     * router's own too: home rows, placement rows, secondary-lookup entries), or read at all at SERIALIZABLE. A
     * partition it only read with consistent reads holds none. Never shrinks: InnoDB keeps the locks of a failed
     * statement, and ROLLBACK TO SAVEPOINT releases none.
     */
    private final java.util.Set<Integer> locking = new java.util.HashSet<>();
    private final Savepoints savepoints = new Savepoints();
    /** The move-batch counts read in the transaction's snapshots, by partition and group ({@link #snapshotBatches}). */
    private final Map<String, java.util.OptionalLong> snapshotBatches = new java.util.concurrent.ConcurrentHashMap<>();
    /** The partitions whose snapshot's counts of every group are in {@link #snapshotBatches} (a group missing there has none). */
    private final java.util.Set<Integer> everySnapshotBatches = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private Branch coordinator;
    private GlobalId id;
    private volatile Status status = Status.ACTIVE;
    private volatile SQLException failure;
    /** The failure left a branch's transaction in doubt (a savepoint command failed): only a whole rollback is right. */
    private volatile boolean wholeOnly;

    /** A move batch's transaction: its branches yield their locks (see {@link org.lutra.backend.Backends.Placement#YIELDING_LOCK_WAIT_SECONDS}). */
    private final boolean yields;
    /** Wall-clock start, which orders the victims of deadlocks across partitions (the youngest is rolled back: {@link WaitForGraph}). */
    final long startedMillis = System.currentTimeMillis();

    /**
     * Declared READ ONLY: its sessions' writes are refused before they reach a backend, so no branch can write and
     * every branch is a plain transaction (BEGIN .. COMMIT), none an XA branch (XA START .. XA END, XA COMMIT).
     */
    private final boolean readOnly;

    TransactionState(Transactions service, int isolation, boolean yields, boolean readOnly) {
        this.service = service;
        this.isolation = isolation;
        this.yields = yields;
        this.readOnly = readOnly;
    }

    // ---- running statements ---------------------------------------------------------------------

    /** What a sub-query does on the branch it leases. */
    public enum Access {
        /** It writes (and locks the rows it writes). */
        WRITE,
        /** It reads and may lock rows: a locking read, or any read at SERIALIZABLE. */
        READ,
        /** A consistent read, which locks nothing ({@link Connections#consistentRead}). */
        CONSISTENT_READ;

        /** Whether the partition becomes one where the transaction may hold locks. */
        boolean locks() {
            return this != CONSISTENT_READ;
        }
    }

    /** Whether a read's rows may stream from the branch while the statement goes on. */
    public enum Rows {
        /** A plain read: nothing else of its statement uses the connection while its rows stream. */
        MAY_STREAM,
        /** Read whole before the branch serves the statement again. */
        READ_WHOLE
    }

    @Override
    public Lease lease(int partition, Use use) throws SQLException {
        return lease(partition, use == Use.WRITE ? Access.WRITE : Access.READ, Rows.READ_WHOLE);
    }

    @Override
    public Lease consistentRead(int partition) throws SQLException {
        return lease(partition, Access.CONSISTENT_READ, Rows.READ_WHOLE);
    }

    /** @param rows whether a read's rows may stream (a write's never do) */
    public Lease lease(int partition, Access access, Rows rows) throws SQLException {
        boolean write = access == Access.WRITE;
        boolean locks = access.locks();
        boolean streaming = rows == Rows.MAY_STREAM;
        Branch branch;
        boolean fresh = false;
        List<String> marks = List.of();
        synchronized (this) {
            if (status != Status.ACTIVE) {
                throw new SQLException("this transaction has already ended (" + status.name().toLowerCase() + ")", "25000", 0);
            }
            // noted before the sub-query runs (a lock it waits for, or takes before failing, is the transaction's), and even
            // if it finds the transaction failed by another of its statement's: the count follows the statements, not their race
            if (write || locks || isolation == Connection.TRANSACTION_SERIALIZABLE) locking.add(partition);
            if (failure != null) throw failedAlready();
            branch = branches.get(partition);
            if (branch == null) {
                var placement = service.backends().placement(partition);
                if (coordinator == null) {
                    branch = coordinator = new Branch(placement, null, yields);
                } else {
                    // the id names the transaction across its branches for the deadlock detector, XA branches or not
                    if (id == null) id = service.ids().next(coordinator.placement.name());
                    branch = new Branch(placement, readOnly ? null : Xid.lutra(id, placement.database()), yields);
                }
                if (branches.isEmpty() && !yields) service.deadlocks().opened(this); // a move batch yields its locks instead
                branches.put(partition, branch);
                fresh = true;
                marks = savepoints.names();
            }
        }
        if (fresh) {
            try {
                branch.start(isolation);
            } catch (SQLException e) {
                fail(e);
                throw e;
            }
            try {
                for (String name : marks) branch.savepoint(name);
            } catch (SQLException e) {
                failWhole(e);
                throw e;
            }
        } else {
            branch.drain(); // an earlier statement's result still streaming here is read into the router first
        }
        Branch b = branch;
        // a sub-query that may wait for a row lock: the deadlock detector watches how long it runs
        boolean mayWait = !yields && (write || locks || isolation == Connection.TRANSACTION_SERIALIZABLE);
        if (mayWait) b.lockingStarts();
        return new BranchLease(b, streaming && !write, mayWait, this::fail);
    }

    private synchronized void fail(SQLException e) {
        if (failure == null) failure = e;
    }

    // ---- deadlocks across partitions (see DeadlockDetector) ---------------------------------------

    /** Since when (nanoTime) the oldest sub-query of this transaction that may wait for a row lock has run; 0 = none runs. */
    synchronized long lockingSince() {
        long oldest = 0;
        for (Branch b : branches.values()) {
            long since = b.lockingSince();
            if (since != 0 && (oldest == 0 || since - oldest < 0)) oldest = since;
        }
        return oldest;
    }

    /** The branches, as the deadlock detector reads them; null once the transaction is ending. */
    synchronized List<Branch> activeBranches() {
        return status == Status.ACTIVE ? new ArrayList<>(branches.values()) : null;
    }

    /** The transaction's XA id once it has two branches or more (before, it is on one partition only), else null. */
    synchronized GlobalId globalId() {
        return id;
    }

    synchronized boolean active() {
        return status == Status.ACTIVE;
    }

    /** Stops a backend statement: KILL QUERY of connection {@code threadId} on the server of {@code placement}. */
    interface QueryKiller {
        void kill(org.lutra.backend.Backends.Placement placement, long threadId) throws SQLException;
    }

    /**
     * Makes this transaction the victim of a deadlock across partitions: it fails with {@code victim} (40001, 1213) and every
     * sub-query of it that may be waiting for a lock is stopped (KILL QUERY), so that its statement fails now and the session
     * rolls the transaction back, releasing its locks on every shard. False, and nothing is done, if the transaction no longer
     * waits (the cycle is gone), has failed already or is ending.
     *
     * <p>The kills are sent while this transaction's monitor is held: it cannot end meanwhile, so its connections stay pinned to
     * it and a kill can never reach another session's statement on a connection given back to the pool. A kill that reaches a
     * connection between two statements is dropped by the server (the next statement runs).
     */
    synchronized boolean chosenAsVictim(DeadlockVictim victim, QueryKiller killer) {
        if (status != Status.ACTIVE || failure != null) return false;
        var waiting = branches.values().stream().filter(b -> b.lockingSince() != 0).toList();
        if (waiting.isEmpty()) return false;
        failure = victim;
        wholeOnly = true;
        for (Branch b : waiting) {
            try {
                killer.kill(b.placement, b.threadId());
            } catch (SQLException e) {
                log.warn("deadlock victim {}: could not stop its statement on {} (its lock wait ends at the lock wait timeout): {}",
                        this, b.placement.name(), e.getMessage());
            }
        }
        return true;
    }

    @Override
    public void broken(SQLException cause) {
        fail(cause);
    }

    private synchronized void failWhole(SQLException e) {
        failure = e;
        wholeOnly = true;
    }

    /**
     * Whether ROLLBACK TO a savepoint makes this failed transaction whole again: it holds a savepoint,
     * and its failure is one after which MySQL undoes only the statement (a duplicate key, a constraint,
     * a bad value, a statement the server would not run) — every branch's transaction is still open,
     * and the failed statement's effects on any branch all followed every savepoint. Deadlocks, lock
     * wait timeouts (maybe a deadlock across shards, broken only by releasing locks), lost connections
     * and interrupted statements end the whole transaction.
     */
    synchronized boolean recoverableBySavepoint() {
        if (failure == null || wholeOnly || savepoints.names().isEmpty()) return false;
        String state = failure.getSQLState();
        return state != null && (state.startsWith("22") || state.startsWith("23") || state.startsWith("42"));
    }

    /**
     * The statement that failed with one of {@code failures} was undone by its backend alone and changed nothing
     * (see {@link StatementFootprint}): the transaction goes on, as on one MariaDB. False, and the transaction stays
     * failed, if its failure is not that statement's (an earlier result's) or a savepoint command left it in doubt.
     * The branches' written status needs nothing: the failed sub-query never reported rows, and no other did.
     */
    synchronized boolean statementUndone(List<SQLException> failures) {
        if (failure == null || wholeOnly || status != Status.ACTIVE) return false;
        for (SQLException f : failures) {
            if (f == failure) {
                failure = null;
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a lock wait timeout on {@code partition} ended its server's whole transaction there
     * (innodb_rollback_on_timeout on; MariaDB's default is off): asked of the branch's own connection, on the
     * error's path only. Unknown counts as yes.
     */
    boolean rollsBackOnTimeout(int partition) {
        Branch b;
        synchronized (this) {
            b = branches.get(partition);
        }
        if (b == null || b.connection() == null) return true;
        try (var st = b.connection().createStatement(); var rs = st.executeQuery("SELECT @@innodb_rollback_on_timeout")) {
            return !rs.next() || rs.getInt(1) != 0;
        } catch (SQLException e) {
            b.markBroken();
            return true;
        }
    }

    /** The first error a sub-query of this transaction hit, or null. */
    SQLException failure() {
        return failure;
    }

    /** The transaction's isolation level (a java.sql.Connection constant; TRANSACTION_NONE: the backends' default). */
    @Override
    public int isolation() {
        return isolation == Connection.TRANSACTION_NONE ? Connection.TRANSACTION_REPEATABLE_READ : isolation; // Backends.borrow sets NONE as REPEATABLE READ
    }

    /** Whether a statement of this transaction already ran on {@code partition}. */
    @Override
    public synchronized boolean begun(int partition) {
        return branches.containsKey(partition);
    }

    @Override
    public java.util.OptionalLong snapshotBatches(int partition, String group) {
        var moves = snapshotBatches.get(partition + "/" + group);
        return moves == null && everySnapshotBatches.contains(partition) ? java.util.OptionalLong.empty() : moves;
    }

    @Override
    public void everySnapshotBatches(int partition) {
        everySnapshotBatches.add(partition);
    }

    /** Its only branch is {@code partition}, and it may hold no lock anywhere: it has run consistent reads there, nothing else. */
    @Override
    public synchronized boolean onlySnapshotOf(int partition) {
        return locking.isEmpty() && branches.size() == 1 && branches.containsKey(partition);
    }

    /** It may hold no lock anywhere: every statement it ran was a consistent read (on any number of partitions). */
    @Override
    public synchronized boolean consistentReadsOnly() {
        return locking.isEmpty();
    }

    @Override
    public void snapshotBatches(int partition, String group, java.util.OptionalLong moves) {
        snapshotBatches.put(partition + "/" + group, moves);
    }

    synchronized int partitions() {
        return branches.size();
    }

    /**
     * On how many partitions the transaction may hold locks ({@link #locking}), counting {@code more} (a failed statement's,
     * some perhaps not joined yet): over more than one, a lock wait timeout may be a deadlock across shards.
     */
    synchronized int lockingPartitionsWith(java.util.Set<Integer> more) {
        var all = new java.util.HashSet<>(locking);
        all.addAll(more);
        return all.size();
    }

    /** Whether a statement of this transaction wrote on some partition. */
    synchronized boolean wrote() {
        return branches.values().stream().anyMatch(Branch::written);
    }

    private SQLException failedAlready() {
        if (!recoverableBySavepoint()) {
            // another part of the same statement failed first (parallel branches): that error is the statement's,
            // with its SQLState and code (a 40001 stays retryable), and the transaction ends with it
            return new SQLException(failure.getMessage(), failure.getSQLState(), failure.getErrorCode(), failure);
        }
        return new SQLException("this transaction failed and must be rolled back" + (recoverableBySavepoint() ? " (ROLLBACK, or ROLLBACK TO"
                + " SAVEPOINT to undo the failed statement with what followed the savepoint)" : "") + ": " + failure.getMessage(), "25000", 0, failure);
    }

    // ---- savepoints ------------------------------------------------------------------------------

    /** SAVEPOINT {@code name} on every branch (a name set before moves to the end). */
    public void savepoint(String name) throws SQLException {
        List<Branch> all = usable(false);
        onEvery(all, b -> b.savepoint(name));
        synchronized (this) {
            savepoints.set(name, java.util.Set.copyOf(all.stream().filter(Branch::written).toList()));
        }
    }

    /** ROLLBACK TO SAVEPOINT {@code name} on every branch; MySQL's 1305 if the transaction has no such savepoint. */
    public void rollbackTo(String name) throws SQLException {
        Savepoints.Mark mark;
        synchronized (this) {
            mark = savepoints.find(name);
        }
        List<Branch> all = usable(recoverableBySavepoint());
        onEvery(all, b -> b.rollbackTo(mark.name()));
        synchronized (this) {
            savepoints.dropAfter(name);
            for (Branch b : all) b.written(mark.written().contains(b));
            failure = null; // a failed statement's effects followed the savepoint: undone with the rest
        }
    }

    /** RELEASE SAVEPOINT {@code name} on every branch; MySQL's 1305 if the transaction has no such savepoint. */
    public void release(String name) throws SQLException {
        synchronized (this) {
            savepoints.find(name);
        }
        List<Branch> all = usable(false);
        onEvery(all, b -> b.release(name));
        synchronized (this) {
            savepoints.release(name);
        }
    }

    /**
     * The branches, each free for a statement (a result still streaming on it read into the router); refused once
     * ended, or failed unless {@code evenFailed}.
     */
    private List<Branch> usable(boolean evenFailed) throws SQLException {
        List<Branch> all;
        synchronized (this) {
            if (status != Status.ACTIVE) {
                throw new SQLException("this transaction has already ended (" + status.name().toLowerCase() + ")", "25000", 0);
            }
            if (failure != null && !evenFailed) throw failedAlready();
            all = new ArrayList<>(branches.values());
        }
        for (Branch b : all) b.drain();
        return all;
    }

    /** Runs {@code action} on every branch in parallel; a failure fails the transaction whole (its branches' savepoints now differ). */
    private void onEvery(List<Branch> all, Transactions.BranchAction action) throws SQLException {
        var failures = service.parallel(all, action);
        if (!failures.isEmpty()) {
            SQLException e = failures.values().iterator().next();
            failWhole(e);
            throw e;
        }
    }

    // ---- ending ---------------------------------------------------------------------------------

    /** Reads results still streaming on the branches into the router (before COMMIT); past the bound, refused and nothing ends. */
    public void drainStreams() throws SQLException {
        List<Branch> open;
        synchronized (this) {
            open = new ArrayList<>(branches.values());
        }
        for (Branch b : open) b.drain();
    }

    public void commit() throws SQLException {
        List<Branch> all = end();
        var ending = new CommitProtocol(service, coordinator, id);
        try {
            if (failure != null) {
                ending.abort(all);
                // a deadlock victim stays retryable, as after MySQL's own deadlocks
                throw new SQLException("transaction rolled back: " + failure.getMessage(), failure instanceof DeadlockVictim ? "40001" : "40000",
                        failure.getErrorCode(), failure);
            }
            var writers = all.stream().filter(Branch::written).toList();
            if (writers.size() > 1 && readOnly) {
                ending.abort(all); // its writes are refused before they run: no plain branch but the coordinator may be prepared
                throw new SQLException("transaction rolled back: internal error: a READ ONLY transaction wrote on " + writers.size()
                        + " partitions", "HY000", 0);
            }
            if (writers.size() <= 1) {
                ending.commitAlone(all, writers);
            } else {
                ending.twoPhase(all, writers);
            }
            status = Status.COMMITTED;
            service.metrics().committed(all.size(), writers.size() > 1 ? RouterMetrics.Commit.TWO_PHASE : RouterMetrics.Commit.ONE_PHASE);
            service.stats().partitions.count(all.size());
        } finally {
            all.forEach(Branch::release);
            service.deadlocks().closed(this);
        }
    }

    public void rollback() {
        List<Branch> all = end();
        try {
            var failed = service.parallel(all, new CommitProtocol(service, coordinator, id)::rollbackWithin);
            failed.forEach((b, e) -> log.warn("rollback of {} failed (its server rolls it back when the connection closes): {}",
                    b, e.getMessage()));
            if (!failed.isEmpty() && id != null) service.recovery().finishSoon(id.toString());
            service.stats().rollbacks.increment();
        } finally {
            all.forEach(Branch::release);
            status = Status.ROLLED_BACK;
            service.deadlocks().closed(this);
        }
    }

    private List<Branch> end() {
        List<Branch> all;
        synchronized (this) {
            if (status != Status.ACTIVE) throw new IllegalStateException("transaction already " + status);
            status = Status.ENDING;
            all = new ArrayList<>(branches.values());
        }
        // results still streaming on a branch are read into the router: its connection must be free to end it
        for (Branch b : all) {
            try {
                b.drain();
            } catch (SQLException e) {
                fail(e);
            }
        }
        return all;
    }

    static boolean isConnectionLoss(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) return true;
        }
        return false;
    }

    @Override
    public synchronized String toString() {
        return (id == null ? "local transaction" : id.toString()) + " " + status + " " + branches.values();
    }
}
