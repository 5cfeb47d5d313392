package org.lutra.backend;

import org.lutra.backend.BackendDriver;
import org.lutra.backend.Backends;
import org.lutra.backend.Deadline;
import org.lutra.backend.SessionState;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where one statement's sub-queries get their backend connections: from the partition's pool
 * (auto-commit) or from the session's open transaction, which pins one connection per partition
 * for its whole life.
 */
public interface Connections {
    /** What a sub-query does with the connection it leases ({@link #lease}); a consistent read leases by {@link #consistentRead}. */
    enum Use {
        /** It may change rows (see {@link Lease#changed}). */
        WRITE,
        /** It reads, and may lock what it reads (a locking read, any read at SERIALIZABLE). */
        READ
    }

    /** A connection to {@code partition} for one sub-query that does what {@code use} says. */
    Lease lease(int partition, Use use) throws SQLException;

    /**
     * A connection to {@code partition} for a sub-query that only reads, and locks nothing: a consistent read (no
     * {@code FOR UPDATE}, {@code FOR SHARE}, {@code LOCK IN SHARE MODE}). A transaction that only read so on a
     * partition holds no locks there (unless it is SERIALIZABLE, where InnoDB locks every read), so that partition
     * cannot be part of a deadlock across shards; {@link #lease} for {@link Use#READ} is any other read, which may lock.
     */
    default Lease consistentRead(int partition) throws SQLException {
        return lease(partition, Use.READ);
    }

    /**
     * The statement is about to change rows on more than one partition: make it all-or-nothing.
     * Called before the first writing lease; inside a transaction it changes nothing.
     */
    default void atomic() throws SQLException {}

    /**
     * The statement changed rows on the backends and then failed in the router ({@code cause}: the copies of a replicated
     * write came out different): its transaction must not commit those changes. Inside the session's transaction that
     * transaction is failed, as after a failed sub-query (ROLLBACK, or ROLLBACK TO a savepoint that precedes the statement);
     * the statement's own transaction ({@link #atomic}) is rolled back with its failure.
     */
    default void broken(SQLException cause) {}

    /**
     * Whether the statement's writes run with the shards' foreign key checks off ({@code SET STATEMENT foreign_key_checks = 0
     * FOR ...}): the router checks the keys they write ({@code exec.ForeignKeyChecks}).
     */
    default boolean foreignKeyChecksOff() {
        return false;
    }

    /** How deep in a foreign key's cascades the statement runs (0: the client's own statement). */
    default int cascades() {
        return 0;
    }

    /** Whether the statement's sub-queries run in a transaction (the session's, or the statement's own after {@link #atomic}). */
    default boolean transactional() {
        return false;
    }

    /** The isolation level of the statement's transaction (a java.sql.Connection constant); meaningful when {@link #transactional}. */
    default int isolation() {
        return Connection.TRANSACTION_REPEATABLE_READ;
    }

    /**
     * Whether the statement's transaction already has a branch on {@code partition} from an earlier statement (its
     * snapshot there may be older than this statement); false outside a transaction.
     */
    default boolean begun(int partition) {
        return false;
    }

    /**
     * The lookup group's move-batch count ({@code lutra_move_version}) in the transaction's snapshot of {@code partition},
     * as a statement of the transaction read it there before: at REPEATABLE READ the snapshot is one for the whole
     * transaction, so the count in it never changes. Null when not read yet (or outside a transaction); empty when the
     * snapshot has no count for the group.
     */
    default java.util.OptionalLong snapshotBatches(int partition, String group) {
        return null;
    }

    /** Remembers {@link #snapshotBatches} until the transaction ends; nothing outside a transaction. */
    default void snapshotBatches(int partition, String group, java.util.OptionalLong moves) {}

    /**
     * Whether all the transaction has seen so far is its snapshot of {@code partition}: that is its only branch, and every
     * sub-query of it was a consistent read (no write, no locking read, the router's own included: {@code TransactionState}'s
     * locking partitions are none). False outside a transaction.
     */
    default boolean onlySnapshotOf(int partition) {
        return false;
    }

    /**
     * Whether every sub-query of the transaction so far was a consistent read, on any number of partitions (no write, no
     * locking read, the router's own included: {@code TransactionState}'s locking partitions are none); true outside one.
     */
    default boolean consistentReadsOnly() {
        return true;
    }

    /** Every group's count in the snapshot of {@code partition} was remembered: a group without one has none there (empty). */
    default void everySnapshotBatches(int partition) {}

    /** The session variables every backend connection of the statement carries (scratch connections too). */
    default SessionState variables() {
        return SessionState.EMPTY;
    }

    /** Where the statement's backend warnings go (SHOW WARNINGS, Statement.getWarnings), or null: not collected. */
    default Warnings warnings() {
        return null;
    }

    /**
     * Where a write that matched rows reports the last insert id of its backend's OK packet, or null: not
     * wanted (see {@link InsertIdReading}).
     */
    default java.util.function.LongConsumer insertIds() {
        return null;
    }

    /** The statement's deadline: its backend statements register with it while they run. */
    default Deadline deadline() {
        return Deadline.NONE;
    }

    /** Where the statement reports the routing keys it touches: its transaction's trace, or a do-nothing one (docs/traces.md). */
    default org.lutra.trace.KeyTrace trace() {
        return org.lutra.trace.KeyTrace.NONE;
    }

    /** Connections that pass everything on to others: a wrapper overrides only what it changes. */
    abstract class Forwarding implements Connections {
        protected final Connections inner;

        protected Forwarding(Connections inner) {
            this.inner = inner;
        }

        @Override
        public Lease lease(int partition, Use use) throws SQLException {
            return inner.lease(partition, use);
        }

        @Override
        public Lease consistentRead(int partition) throws SQLException {
            return inner.consistentRead(partition);
        }

        @Override
        public void atomic() throws SQLException {
            inner.atomic();
        }

        @Override
        public void broken(SQLException cause) {
            inner.broken(cause);
        }

        @Override
        public boolean foreignKeyChecksOff() {
            return inner.foreignKeyChecksOff();
        }

        @Override
        public int cascades() {
            return inner.cascades();
        }

        @Override
        public boolean transactional() {
            return inner.transactional();
        }

        @Override
        public int isolation() {
            return inner.isolation();
        }

        @Override
        public boolean begun(int partition) {
            return inner.begun(partition);
        }

        @Override
        public java.util.OptionalLong snapshotBatches(int partition, String group) {
            return inner.snapshotBatches(partition, group);
        }

        @Override
        public void snapshotBatches(int partition, String group, java.util.OptionalLong moves) {
            inner.snapshotBatches(partition, group, moves);
        }

        @Override
        public void everySnapshotBatches(int partition) {
            inner.everySnapshotBatches(partition);
        }

        @Override
        public boolean onlySnapshotOf(int partition) {
            return inner.onlySnapshotOf(partition);
        }

        @Override
        public boolean consistentReadsOnly() {
            return inner.consistentReadsOnly();
        }

        @Override
        public SessionState variables() {
            return inner.variables();
        }

        @Override
        public Warnings warnings() {
            return inner.warnings();
        }

        @Override
        public java.util.function.LongConsumer insertIds() {
            return inner.insertIds();
        }

        @Override
        public Deadline deadline() {
            return inner.deadline();
        }

        @Override
        public org.lutra.trace.KeyTrace trace() {
            return inner.trace();
        }
    }

    /** Reads the rest of an open stream into the router, so that its connection is free again. */
    interface Drain {
        void drain() throws SQLException;
    }

    interface Lease {
        Connection connection();

        /**
         * Whether rows may be streamed. On a transaction's pinned connection only a plain read
         * streams (see {@link #pinned}); its rows are read at once otherwise.
         */
        boolean streaming();

        /**
         * Whether the connection stays the transaction's after this sub-query: a stream on it must
         * then be read to its end, not abandoned, and is drained into the router ({@link #streams})
         * before anything else uses the connection.
         */
        default boolean pinned() {
            return false;
        }

        /** A streamed result is open on this pinned connection: {@code drain} reads the rest into the router. */
        default void streams(Drain drain) {}

        /**
         * A writing sub-query changed (or matched) {@code rows} rows. Called before release; a
         * transaction counts a partition as written only when this is above zero, so a branch
         * whose writes matched nothing commits as read-only.
         */
        default void changed(long rows) {}

        /** The sub-query is done; {@code failure} is its error, or null. */
        void release(SQLException failure);

        /**
         * The rest of a streamed result is not wanted: close the connection for good instead of
         * reading it (only asked of streaming leases).
         */
        default void abandon() {
            throw new IllegalStateException("only a streaming lease can abandon its rows");
        }
    }

    /** A lease that passes everything on to another: a wrapper overrides only what it changes. */
    abstract class ForwardingLease implements Lease {
        protected final Lease inner;

        protected ForwardingLease(Lease inner) {
            this.inner = inner;
        }

        @Override
        public Connection connection() {
            return inner.connection();
        }

        @Override
        public boolean streaming() {
            return inner.streaming();
        }

        @Override
        public boolean pinned() {
            return inner.pinned();
        }

        @Override
        public void streams(Drain drain) {
            inner.streams(drain);
        }

        @Override
        public void changed(long rows) {
            inner.changed(rows);
        }

        @Override
        public void release(SQLException failure) {
            inner.release(failure);
        }

        @Override
        public void abandon() {
            inner.abandon();
        }
    }

    /** Auto-commit: every sub-query borrows a pooled connection and returns it when done. */
    static Connections pooled(Backends backends, int isolation) {
        return (partition, use) -> {
            var placement = backends.placement(partition);
            Connection c;
            try {
                c = placement.borrow(isolation);
            } catch (SQLException e) {
                throw Backends.located(placement, e);
            }
            return new Lease() {
                @Override
                public Connection connection() {
                    return c;
                }

                @Override
                public boolean streaming() {
                    return true;
                }

                @Override
                public void release(SQLException failure) {
                    boolean closedByWatch = placement.waiting().cutOff(c);
                    placement.waiting().remove(c);
                    if (closedByWatch) { // the pool would hand it out again within its validation bypass window
                        placement.pool().evictConnection(c);
                        return;
                    }
                    try {
                        c.close(); // back to the pool; HikariCP evicts it if the failure was fatal
                    } catch (SQLException ignored) {
                        // the pool copes with a connection that fails to close
                    }
                }

                @Override
                public void abandon() {
                    placement.waiting().remove(c);
                    // Connector/J's close would read the rest of the rows first; abort closes the
                    // socket at once, and the server stops the query when its next write fails
                    try {
                        BackendDriver.abort(c);
                    } catch (SQLException | RuntimeException ignored) {
                        // closing anyway
                    }
                    placement.pool().evictConnection(c);
                }
            };
        };
    }
}
