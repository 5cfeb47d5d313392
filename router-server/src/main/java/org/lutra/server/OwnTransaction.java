package org.lutra.server;

import org.lutra.backend.Connections;
import org.lutra.maintain.Mover;
import org.lutra.txn.TransactionState;
import org.lutra.txn.Transactions;

import java.sql.SQLException;
import java.util.function.Supplier;

/** A move batch's transaction: one of the router's own (REPEATABLE READ, two-phase when it spans partitions), no client session's. */
final class OwnTransaction implements Mover.Transaction {
    private final TransactionState t;

    private OwnTransaction(TransactionState t) {
        this.t = t;
    }

    static Supplier<Mover.Transaction> factory(Transactions transactions) {
        return () -> new OwnTransaction(transactions.session().own());
    }

    @Override
    public Connections.Lease lease(int partition, Connections.Use use) throws SQLException {
        return t.lease(partition, use);
    }

    @Override
    public void commit() throws SQLException {
        t.commit();
    }

    @Override
    public void rollback() {
        t.rollback();
    }
}
