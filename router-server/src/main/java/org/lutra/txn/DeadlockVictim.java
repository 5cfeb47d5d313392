package org.lutra.txn;

import java.sql.SQLException;

/**
 * Why a transaction was rolled back by the router's deadlock detector: it was the victim chosen in a cycle of lock
 * waits across partitions. Reported as MySQL reports its own deadlocks (SQLState 40001, error 1213), so that
 * applications, pools and frameworks retry it.
 */
public final class DeadlockVictim extends SQLException {
    static final int DEADLOCK = 1213;

    DeadlockVictim(String cycle) {
        super("Deadlock found when trying to get lock; try restarting transaction (a deadlock across shards, which no single shard"
                + " sees: " + cycle + "; the router chose this transaction as the victim and rolled it back whole)", "40001", DEADLOCK);
    }

    /** What the client gets for {@code failed}, the statement the victim was running (stopped on its backend). */
    SQLException reported(SQLException failed) {
        var e = new SQLException(getMessage(), getSQLState(), getErrorCode(), this);
        if (failed != this && failed.getCause() != this) e.addSuppressed(failed);
        return e;
    }
}
