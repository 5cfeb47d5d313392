package org.lutra.paper;

import java.sql.SQLException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The transactions a run's backends aborted and the clients ran again, by cause: what an
 * application does with MySQL's deadlock (1213), lock wait timeout (1205) and the serialization
 * failures of SQLState class 40 (a distributed deadlock's victim is aborted with 40001).
 */
final class Aborts {
    static final int MAX_ATTEMPTS = 10;

    enum Cause { DEADLOCK, LOCK_WAIT_TIMEOUT, SERIALIZATION, ROLLED_BACK }

    private final LongAdder deadlocks = new LongAdder();
    private final LongAdder lockWaitTimeouts = new LongAdder();
    private final LongAdder serialization = new LongAdder();
    private final LongAdder rolledBack = new LongAdder();
    private final LongAdder gaveUp = new LongAdder();

    /** The cause of an abort worth running the transaction again for, or null for any other failure. */
    static Cause classify(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (!(t instanceof SQLException s)) continue;
            if (s.getErrorCode() == 1213) return Cause.DEADLOCK;
            if (s.getErrorCode() == 1205) return Cause.LOCK_WAIT_TIMEOUT;
            if ("40001".equals(s.getSQLState())) return Cause.SERIALIZATION;
        }
        String state = e.getSQLState();
        return state != null && state.startsWith("40") ? Cause.ROLLED_BACK : null;
    }

    void count(Cause cause) {
        switch (cause) {
            case DEADLOCK -> deadlocks.increment();
            case LOCK_WAIT_TIMEOUT -> lockWaitTimeouts.increment();
            case SERIALIZATION -> serialization.increment();
            case ROLLED_BACK -> rolledBack.increment();
        }
    }

    void gaveUp() {
        gaveUp.increment();
    }

    Counts counts() {
        return new Counts(deadlocks.sum(), lockWaitTimeouts.sum(), serialization.sum(), rolledBack.sum(), gaveUp.sum());
    }

    /** Aborts by cause; each was retried, except {@code gaveUp} transactions (after {@value #MAX_ATTEMPTS} attempts). */
    record Counts(long deadlocks, long lockWaitTimeouts, long serialization, long rolledBack, long gaveUp) {
        long total() {
            return deadlocks + lockWaitTimeouts + serialization + rolledBack;
        }

        Counts minus(Counts o) {
            return new Counts(deadlocks - o.deadlocks, lockWaitTimeouts - o.lockWaitTimeouts, serialization - o.serialization,
                    rolledBack - o.rolledBack, gaveUp - o.gaveUp);
        }
    }
}
