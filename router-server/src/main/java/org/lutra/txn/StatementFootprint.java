package org.lutra.txn;

import org.lutra.backend.Connections;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What one statement of an open transaction did on the backends: the partitions its sub-queries ran on,
 * those it wrote on, whether any of them changed rows, the results it left streaming and the errors its
 * sub-queries hit. From that, {@link #undoneByItsBackend} tells whether a failed statement left the
 * transaction exactly as one MariaDB would after the same error: MariaDB undoes only the failed statement
 * after a duplicate key, a constraint, a bad value (SQLState classes 22, 23, 42) or a lock wait timeout
 * (with innodb_rollback_on_timeout off), and the transaction goes on.
 *
 * <p>The router can promise that only when the backend's own statement rollback undid everything the
 * statement did: its writes all went to one partition and none of its sub-queries changed rows (the one
 * that failed was undone by its server; an earlier one that changed rows — a secondary-lookup entry, a
 * home row — would stay). Reads on other partitions change nothing; the locks they took stay, as MariaDB
 * keeps the locks of a failed statement. Sub-queries run in parallel on several partitions are all over
 * when the statement fails ({@code FanOut} waits for every one).
 */
final class StatementFootprint {
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    private static final int DEADLOCK = 1213;

    private final Set<Integer> partitions = ConcurrentHashMap.newKeySet();
    private final Set<Integer> writePartitions = ConcurrentHashMap.newKeySet();
    private final Set<Connections.Lease> streaming = ConcurrentHashMap.newKeySet();
    private final List<SQLException> failures = new CopyOnWriteArrayList<>();
    private volatile boolean changedRows;

    /**
     * A sub-query of this statement asks for a connection to {@code partition}: noted before it gets one, so that
     * the footprint is the statement's plan, not the race of its parallel sub-queries (one that finds the
     * transaction already failed by another gets no connection, but its partition counts all the same).
     */
    void asks(int partition, boolean write) {
        partitions.add(partition);
        if (write) writePartitions.add(partition);
    }

    /** The partitions this statement's sub-queries asked for. */
    Set<Integer> partitions() {
        return partitions;
    }

    /** {@code lease}, one sub-query's connection, noted as this statement's. */
    Connections.Lease track(Connections.Lease lease) {
        return new Connections.ForwardingLease(lease) {
            @Override
            public void streams(Connections.Drain drain) {
                streaming.add(this);
                inner.streams(drain);
            }

            @Override
            public void changed(long rows) {
                if (rows > 0) changedRows = true;
                inner.changed(rows);
            }

            @Override
            public void release(SQLException failure) {
                streaming.remove(this);
                if (failure != null) failures.add(failure);
                inner.release(failure);
            }
        };
    }

    List<SQLException> failures() {
        return failures;
    }

    /**
     * Whether the statement that failed with {@code reported} changed nothing on any backend once its server
     * undid the failed sub-query, and every sub-query's error is one after which MariaDB keeps the transaction:
     * then the transaction goes on, as on one MariaDB. {@code transactionPartitions}: the partitions where the
     * transaction may hold locks (not those it only read with consistent reads), this statement's included (a lock wait timeout
     * while it holds locks on several may be a deadlock across shards, which only a whole rollback breaks — unless {@code neverWaits}: a NOWAIT or SKIP LOCKED locking read
     * never waited, so its timeout is no deadlock's); {@code rollsBackOnTimeout} asks a partition's server whether
     * a lock wait timeout ended its whole transaction there.
     */
    boolean undoneByItsBackend(Exception reported, int transactionPartitions, boolean neverWaits, RollsBackOnTimeout rollsBackOnTimeout) {
        if (failures.isEmpty() || !causedByOneOf(reported)) return false; // the router's own error after the backends ran
        if (changedRows || writePartitions.size() > 1 || !streaming.isEmpty()) return false;
        if (partitions.size() > 1 && !writePartitions.isEmpty()) return false; // a write that also read or locked elsewhere
        for (SQLException f : failures) {
            if (!statementLevel(f, neverWaits ? 1 : transactionPartitions)) return false;
        }
        for (SQLException f : failures) {
            // a read that never waits may have failed on any of its partitions: each must keep its transaction
            if (f.getErrorCode() == LOCK_WAIT_TIMEOUT && partitions.stream().anyMatch(rollsBackOnTimeout::on)) return false;
        }
        return true;
    }

    interface RollsBackOnTimeout {
        boolean on(int partition);
    }

    /** Whether MariaDB undoes only the statement after {@code e}, and it was not a lost connection, a timeout or a kill. */
    static boolean statementLevel(SQLException e, int transactionPartitions) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) return false;
            if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) return false;
        }
        int code = e.getErrorCode();
        if (code == DEADLOCK) return false; // MariaDB rolled the whole branch back
        if (code == LOCK_WAIT_TIMEOUT) return transactionPartitions == 1; // else reported as a suspected deadlock across shards
        String state = e.getSQLState();
        return state != null && (state.startsWith("22") || state.startsWith("23") || state.startsWith("42"));
    }

    private boolean causedByOneOf(Exception reported) {
        for (Throwable t = reported; t != null; t = t.getCause()) {
            for (SQLException f : failures) if (f == t) return true;
        }
        return false;
    }
}
