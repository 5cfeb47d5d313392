package org.lutra.txn;

import org.lutra.exec.Backends;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One partition's part of a transaction, on one pinned connection for the transaction's life.
 *
 * <p>The first partition a transaction touches runs a plain transaction ({@code BEGIN}): if it
 * stays the only writer it commits with one {@code COMMIT}, no XA and no log. Every later
 * partition runs an XA branch, whose states are MySQL's:
 * <pre>
 *   XA START ──▶ ACTIVE ──XA END──▶ IDLE ──XA PREPARE──▶ PREPARED ──XA COMMIT──▶ DONE
 *                                     └──XA COMMIT .. ONE PHASE──────────────────▶ DONE
 *   ACTIVE / IDLE / PREPARED ──(XA END,) XA ROLLBACK──▶ DONE
 * </pre>
 * With two or more writers, the plain branch becomes the coordinator: the commit decision is a
 * row inserted in its transaction, so the decision is durable exactly when that branch commits
 * (see {@link DecisionLog}).
 */
final class Branch {
    enum State { ACTIVE, IDLE, PREPARED, DONE }

    private static final int START_ATTEMPTS = 3;

    final Backends.Placement placement;
    /** null for the plain (coordinator) branch. */
    final Xid xid;
    private Connection connection;
    private volatile boolean written;
    private volatile State state = State.ACTIVE;
    /** The connection's state is unknown (a command failed): it must not go back to the pool. */
    private volatile boolean broken;

    Branch(Backends.Placement placement, Xid xid) {
        this.placement = placement;
        this.xid = xid;
    }

    /**
     * Pins a connection and opens the transaction on it. Nothing has run on this partition yet, so
     * a pooled connection found dead (its backend restarted) is replaced and the start retried.
     */
    void start(int isolation) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                connection = placement.borrow(isolation);
                run(xid == null ? "BEGIN" : "XA START " + xid.sql());
                return;
            } catch (SQLException e) {
                if (connection != null) placement.pool().evictConnection(connection);
                connection = null;
                if (attempt == START_ATTEMPTS || !TransactionState.isConnectionLoss(e)) {
                    throw e.getMessage().startsWith("[") ? e : Backends.located(placement, e);
                }
            }
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

    void markWritten() {
        written = true;
    }

    boolean written() {
        return written;
    }

    State state() {
        return state;
    }

    void markBroken() {
        broken = true;
    }

    // ---- plain branch ---------------------------------------------------------------------------

    void commitPlain() throws SQLException {
        run("COMMIT");
        state = State.DONE;
    }

    // ---- XA branch ------------------------------------------------------------------------------

    void end() throws SQLException {
        run("XA END " + xid.sql());
        state = State.IDLE;
    }

    void prepare() throws SQLException {
        run("XA PREPARE " + xid.sql());
        state = State.PREPARED;
    }

    void commitOnePhase() throws SQLException {
        run("XA COMMIT " + xid.sql() + " ONE PHASE");
        state = State.DONE;
    }

    void commitPrepared() throws SQLException {
        run("XA COMMIT " + xid.sql());
        state = State.DONE;
    }

    /** Commits this branch alone (one phase): it is the only writer, or it only read. */
    void commitAlone() throws SQLException {
        if (plain()) {
            commitPlain();
        } else {
            end();
            commitOnePhase();
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

    /** Gives the connection back: to the pool if its transaction ended cleanly, else closed for good. */
    void release() {
        if (connection == null) return;
        if (broken || state != State.DONE) {
            placement.pool().evictConnection(connection);
        } else {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // the pool copes
            }
        }
        connection = null;
    }

    private void run(String sql) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            broken = true;
            throw Backends.located(placement, e);
        }
    }

    @Override
    public String toString() {
        return placement.name() + (xid == null ? " (plain)" : " " + xid) + " " + state + (written ? " written" : " read-only");
    }
}
