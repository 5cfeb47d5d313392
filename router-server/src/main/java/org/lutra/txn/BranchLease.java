package org.lutra.txn;

import org.lutra.backend.Connections;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * One sub-query's use of a transaction's branch ({@link TransactionState#lease}): the branch's pinned connection, whose
 * rows may stream while the statement goes on, and what the sub-query did there when it is released.
 */
final class BranchLease implements Connections.Lease {
    private final Branch b;
    private final boolean streaming;
    /** The sub-query may wait for a row lock: the deadlock detector watches it until it is released. */
    private final boolean mayWait;
    /** Marks the transaction failed. */
    private final Consumer<SQLException> fail;
    private boolean released;

    BranchLease(Branch b, boolean streaming, boolean mayWait, Consumer<SQLException> fail) {
        this.b = b;
        this.streaming = streaming;
        this.mayWait = mayWait;
        this.fail = fail;
    }

    @Override
    public Connection connection() {
        return b.connection();
    }

    /** Makes the branch's connection carry a session's variables ({@link Branch#carry}). */
    void carry(org.lutra.backend.SessionState state) throws SQLException {
        b.carry(state);
    }

    @Override
    public boolean streaming() {
        return streaming;
    }

    @Override
    public boolean pinned() {
        return true;
    }

    @Override
    public void streams(Connections.Drain drain) {
        b.streaming(drain);
    }

    @Override
    public void changed(long rows) {
        if (rows > 0) b.markWritten();
    }

    @Override
    public void release(SQLException e) {
        b.streamDone();
        if (mayWait && !released) b.lockingEnds();
        released = true;
        if (e != null) fail.accept(e);
    }
}
