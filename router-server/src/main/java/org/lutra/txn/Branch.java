package org.lutra.txn;

import org.lutra.backend.Backends;
import org.lutra.backend.TransactionConnection;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One partition's part of a transaction, on one pinned connection for the transaction's life.
 *
 * <p>The first partition a transaction touches runs a plain transaction: if it stays the only
 * writer it commits with one {@code COMMIT}, no XA and no log. It sends no {@code BEGIN}: its
 * connection is kept at {@code autocommit=0} ({@link TransactionConnection}), so its first
 * statement starts the transaction, as on one MariaDB driven by Connector/J with auto-commit off.
 * A transaction's snapshot starts where it did after {@code BEGIN}, at its first consistent read:
 * neither opens a read view. Every later partition runs an XA branch, whose states are MySQL's:
 * <pre>
 *   XA START ──▶ ACTIVE ──XA END──▶ IDLE ──XA PREPARE──▶ PREPARED ──XA COMMIT──▶ DONE
 *                                     └──XA COMMIT .. ONE PHASE──────────────────▶ DONE
 * </pre>
 * XA END is always sent in one round trip with the statement after it (XA PREPARE, XA COMMIT .. ONE
 * PHASE): the pair is pipelined, so the IDLE state is never observed between them.
 * <pre>
 *   ACTIVE / IDLE / PREPARED ──(XA END,) XA ROLLBACK──▶ DONE
 * </pre>
 * With two or more writers, the plain branch becomes the coordinator: the commit decision is a
 * row inserted in its transaction, so the decision is durable exactly when that branch commits
 * (see {@link DecisionLog}).
 *
 * <p>Every way a branch ends leaves its connection out of any transaction before it goes back to
 * its pool ({@code COMMIT}, {@code ROLLBACK}, {@code XA COMMIT}, {@code XA ROLLBACK}); any other
 * end evicts it, and its server rolls back what it had open as the connection closes.
 *
 * <p>Phase deadlines: {@link #phaseEndsAt} bounds every later statement of the branch with a
 * socket timeout (Connection.setNetworkTimeout) of the time left, so a backend that stops
 * answering without closing its socket costs at most that; the connection is then closed by the
 * driver (a prepared branch outlives it on the server, for recovery). The pool resets the timeout
 * when the connection is returned.
 */
final class Branch {
    /** The branch's state as the router last saw it (XA END is pipelined with the statement after it: IDLE is never seen). */
    enum State { ACTIVE, PREPARED, DONE }

    private static final int START_ATTEMPTS = 3;
    /** Connector/J applies a network timeout on the calling thread when given this executor. */
    private static final Executor SAME_THREAD = Runnable::run;

    final Backends.Placement placement;
    /** null for the plain (coordinator) branch. */
    final Xid xid;
    private TransactionConnection pinned;
    /** {@code pinned}'s connection, or null. */
    private Connection connection;
    private volatile boolean written;
    /** A streamed result still open on this branch's connection, or null. */
    private org.lutra.backend.Connections.Drain open;
    private volatile State state = State.ACTIVE;
    /** The connection's state is unknown (a command failed): it must not go back to the pool. */
    private volatile boolean broken;
    /** System.nanoTime by which the current phase must be over; 0 = none. */
    private volatile long phaseEndsAt;

    /** A move batch's branch: its lock waits are short, set back when it goes back to its pool ({@link Backends.Placement#yieldLocks}, {@link Backends.Placement#restoreLockWaits}). */
    private final boolean yields;

    /** The server's id of the pinned connection (CONNECTION_ID()): how the shard's lock-wait views name this branch. */
    private volatile long threadId;
    /** Sub-queries that may wait for row locks running on the branch now, and since when the first of them runs (nanoTime). */
    private int locking;
    private volatile long lockingSince;

    Branch(Backends.Placement placement, Xid xid, boolean yields) {
        this.placement = placement;
        this.xid = xid;
        this.yields = yields;
    }

    /**
     * Pins a connection for the branch: an XA branch opens with {@code XA START}, a plain one sends
     * nothing (its first statement starts it). A pooled connection found dead while starting (its
     * backend restarted) is replaced and the start retried; a plain branch's dead connection is
     * found by its first statement instead, which fails the transaction (HikariCP checks a pooled
     * connection idle for over half a second before handing it out).
     */
    void start(int isolation) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                pinned = placement.begin(isolation);
                connection = pinned.connection();
                if (yields) placement.yieldLocks(connection);
                threadId = org.lutra.backend.BackendDriver.threadId(connection);
                if (xid != null) run("XA START " + xid.sql());
                return;
            } catch (SQLException e) {
                // a connection the backend watch closed: its server does not answer, a new one would wait as long
                boolean unanswered = connection != null && placement.waiting().cutOff(connection);
                if (pinned != null) pinned.evict();
                pinned = null;
                connection = null;
                if (attempt == START_ATTEMPTS || unanswered || !TransactionState.isConnectionLoss(e)) {
                    throw e.getMessage().startsWith("[") ? e : Backends.located(placement, e);
                }
            }
        }
    }

    /** Makes the pinned connection carry a session's variables; if the SET fails the connection is closed, and the branch with it. */
    void carry(org.lutra.backend.SessionState state) throws SQLException {
        try {
            pinned.carry(state);
        } catch (SQLException e) {
            broken = true;
            throw e;
        }
    }

    boolean started() {
        return connection != null;
    }

    Connection connection() {
        return connection;
    }

    boolean plain() {
        return xid == null;
    }

    long threadId() {
        return threadId;
    }

    /** A sub-query that may wait for row locks (a write, a locking read) starts on this branch. */
    synchronized void lockingStarts() {
        if (locking++ == 0) lockingSince = System.nanoTime();
    }

    synchronized void lockingEnds() {
        if (--locking == 0) lockingSince = 0;
    }

    /** Since when (nanoTime) a sub-query that may wait for row locks has run on this branch; 0 = none runs. */
    long lockingSince() {
        return lockingSince;
    }

    synchronized void streaming(org.lutra.backend.Connections.Drain drain) {
        open = drain;
    }

    synchronized void streamDone() {
        open = null;
    }

    /** Before the connection is used again: the open stream's rest is read into the router (it releases the stream). */
    void drain() throws java.sql.SQLException {
        org.lutra.backend.Connections.Drain d;
        synchronized (this) {
            d = open;
            open = null;
        }
        if (d != null) d.drain();
    }

    void markWritten() {
        written = true;
    }

    boolean written() {
        return written;
    }

    /** After ROLLBACK TO a savepoint: whether the branch had written when it was set. */
    void written(boolean written) {
        this.written = written;
    }

    // ---- savepoints (plain and XA branches alike: MariaDB keeps them inside an XA branch) ----------

    void savepoint(String name) throws SQLException {
        run("SAVEPOINT " + Savepoints.quoted(name));
    }

    void rollbackTo(String name) throws SQLException {
        run("ROLLBACK TO SAVEPOINT " + Savepoints.quoted(name));
    }

    void release(String name) throws SQLException {
        run("RELEASE SAVEPOINT " + Savepoints.quoted(name));
    }

    State state() {
        return state;
    }

    void markBroken() {
        broken = true;
    }

    /** Bounds every statement this branch runs from now on by the time left until {@code nanoTime}. */
    void phaseEndsAt(long nanoTime) {
        phaseEndsAt = nanoTime;
    }

    /** The commit decision, inside this (plain) branch's open transaction; durable when it commits. */
    void recordCommit(String gtrid) throws SQLException {
        try {
            limitToPhase();
            DecisionLog.recordCommit(connection, gtrid);
        } catch (SQLException e) {
            broken = true;
            throw e instanceof DecisionLog.Fenced ? e : Backends.located(placement, e);
        }
    }

    // ---- plain branch ---------------------------------------------------------------------------

    void commitPlain() throws SQLException {
        run("COMMIT");
        state = State.DONE;
    }

    // ---- XA branch ------------------------------------------------------------------------------

    /** Phase one of a writing XA branch: XA END and XA PREPARE in one round trip. */
    void endAndPrepare() throws SQLException {
        runPipelined("XA END " + xid.sql(), "XA PREPARE " + xid.sql());
        state = State.PREPARED;
    }

    /** XA END and XA COMMIT .. ONE PHASE in one round trip. */
    private void endAndCommitOnePhase() throws SQLException {
        runPipelined("XA END " + xid.sql(), "XA COMMIT " + xid.sql() + " ONE PHASE");
        state = State.DONE;
    }

    void commitPrepared() throws SQLException {
        run("XA COMMIT " + xid.sql());
        state = State.DONE;
    }

    /**
     * XA COMMIT on a connection of its own: once the branch's own connection is lost, the prepared
     * branch is detached on its server and any connection may end it (MariaDB 10.5+, MySQL 8). A new
     * connection, not a pooled one: whatever cut the branch's connection (a KILL of all of them, a
     * restart) may have cut the pooled ones too, and one of those would lose the commit to recovery.
     */
    void commitPreparedDetached(int timeoutMillis) throws SQLException {
        try (Connection c = placement.connectFresh(); Statement st = c.createStatement()) {
            c.setNetworkTimeout(SAME_THREAD, timeoutMillis);
            st.execute("XA COMMIT " + xid.sql());
            state = State.DONE;
        } catch (SQLException e) {
            throw Backends.located(placement, e);
        }
    }

    /** Commits this branch alone (one phase): it is the only writer, or it only read. */
    void commitAlone() throws SQLException {
        if (plain()) {
            commitPlain();
        } else {
            endAndCommitOnePhase();
        }
    }

    /**
     * Rolls back whatever state the branch is in. A prepared branch whose connection is lost
     * stays prepared on its server; recovery rolls it back (no decision was logged).
     */
    void rollback() throws SQLException {
        if (connection == null || state == State.DONE) return;
        if (plain()) {
            run("ROLLBACK");
        } else {
            if (state == State.ACTIVE) {
                try {
                    run("XA END " + xid.sql());
                } catch (SQLException e) {
                    // e.g. after a deadlock the server already ended the branch; XA ROLLBACK still applies
                }
            }
            run("XA ROLLBACK " + xid.sql());
        }
        broken = false; // the connection is out of any transaction again
        state = State.DONE;
    }

    /** Whether the connection waits for locks as long as the pool's others again (false: it must not go back to the pool). */
    private boolean lockWaitSetBack() {
        if (!yields) return true;
        try {
            placement.restoreLockWaits(connection);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Gives the connection back: to the pool if its transaction ended cleanly, else closed for good. */
    void release() {
        if (connection == null) return;
        if (broken || state != State.DONE || !lockWaitSetBack()) {
            pinned.evict();
        } else {
            pinned.giveBack();
        }
        pinned = null;
        connection = null;
    }

    private void run(String sql) throws SQLException {
        try {
            limitToPhase();
            try (Statement st = connection.createStatement()) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            broken = true;
            throw Backends.located(placement, e, connection);
        }
    }

    /**
     * Sends {@code first} and {@code second} without waiting for the first's answer (the driver pipelines a
     * statement batch), then reads both answers: one round trip instead of two. The server runs the second
     * whatever became of the first; the XA statements paired here fail if the one before failed (XAER_RMFAIL),
     * so a failure of either is the pair's. On failure the branch's state is left as it was: a rollback ends
     * an ACTIVE branch with XA END first, and tolerates that one failing.
     */
    private void runPipelined(String first, String second) throws SQLException {
        try {
            limitToPhase();
            try (Statement st = connection.createStatement()) {
                st.addBatch(first);
                st.addBatch(second);
                st.executeBatch();
            }
        } catch (SQLException e) {
            broken = true;
            // the statement's own error, as a single statement reports it (its cause chain tells a timeout or a lost connection)
            SQLException own = e instanceof java.sql.BatchUpdateException && e.getCause() instanceof SQLException c ? c : e;
            throw Backends.located(placement, own, connection);
        }
    }

    private void limitToPhase() throws SQLException {
        if (phaseEndsAt == 0) return;
        long leftNanos = phaseEndsAt - System.nanoTime();
        if (leftNanos <= 0) throw new SQLException("phase deadline passed before the statement was sent", "HYT00", 0, new SocketTimeoutException());
        // rounded up: the socket is closed no earlier than the deadline, which ranOutOfTime relies on
        long left = (leftNanos + 999_999) / 1_000_000;
        connection.setNetworkTimeout(SAME_THREAD, (int) Math.min(Integer.MAX_VALUE, left));
    }

    /**
     * Whether this branch's statement failed because its phase deadline ran out. A socket timeout
     * among the causes says so, but not always: Connector/J swallows a server-side prepare that
     * timed out and sends the statement again, client-prepared, on the closed connection, which
     * then fails as a plain lost connection (the decision INSERT on a coordinator frozen before
     * it was prepared). A failure seen once the deadline has passed is the deadline's. Ask
     * before anything else runs on the branch (a rollback sets a deadline of its own).
     */
    boolean ranOutOfTime(SQLException e) {
        return timedOut(e) || (phaseEndsAt != 0 && System.nanoTime() - phaseEndsAt >= 0);
    }

    /** Whether {@code e} came from a phase deadline (a socket timeout), rather than a lost or failed connection. */
    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return placement.name() + (xid == null ? " (plain)" : " " + xid) + " " + state + (written ? " written" : " read-only");
    }
}
