package org.lutra.workload;

import org.lutra.trace.TraceLine;

import java.sql.SQLException;

/**
 * One transaction of a workload, with its parameters drawn: it can run, run again after an
 * abort (same parameters), and be written to a trace and read back ({@link Workload#replay}).
 */
public interface Txn {
    /** Its trace line: type, parameters and the rows it touches. */
    TraceLine trace();

    /** Whether it runs inside a transaction (else each statement auto-commits). */
    default boolean transactional() {
        return true;
    }

    /**
     * Runs its statements on {@code session}'s connection; the caller commits (or rolls back and
     * runs it again after a deadlock or lock wait timeout).
     */
    void run(Session session) throws SQLException;

    /** Called once it committed: what the run must remember for the next transactions and the checks. */
    default void committed(RunState state) {}
}
