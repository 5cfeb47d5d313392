package org.lutra.placement;

import org.lutra.backend.Misplaced;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.List;

/**
 * The one narrow way operators reach partitions. Operators hold no connections: they hand
 * sub-queries here, so every operator can be tested against a fake that answers with rows
 * written as text.
 */
public interface Shards {
    /** Runs every query on its partition (in parallel); one row stream per query, in order. */
    List<RowSource> query(List<ShardQuery> queries) throws SQLException;

    /** Where the statement reports the routing keys it reads ({@code backend.Connections#trace}). */
    default org.lutra.trace.KeyTrace trace() {
        return org.lutra.trace.KeyTrace.NONE;
    }

    /**
     * As {@link #query}, for a read of several partitions of lookup group {@code group} that does
     * not name its keys: every partition read in a snapshot no move of the group straddles
     * ({@link MoveFence}), each partition asked about replicated keys in the snapshot it is read in
     * ({@link ReplicaScans}).
     */
    default List<RowSource> scan(String group, List<ShardQuery> queries, ReplicaScans.Copies copies) throws SQLException {
        return scan(group, queries, copies, null);
    }

    /**
     * As {@link #scan(String, List, ReplicaScans.Copies)}, with the group's fence already held shared by the
     * statement ({@code held}, from {@link #holdFence}; released once the snapshots exist), on one partition too.
     */
    default List<RowSource> scan(String group, List<ShardQuery> queries, ReplicaScans.Copies copies, MoveFence.Held held) throws SQLException {
        return query(ReplicaScans.filter(this, copies, queries));
    }

    /**
     * Whether lookup group {@code owner} provably has no replicated keys (a table of the group has a secondary lookup:
     * {@link org.lutra.backend.Backends#noReplicatedKeys}), so that its scans need not ask each partition ({@link ReplicaScans}).
     */
    default boolean noReplicatedKeys(String owner) {
        return false;
    }

    /**
     * Lookup group {@code group}'s move fence held shared from now: for a read that finds its partitions
     * first (through a secondary lookup's entries) and must read them before any move of the group
     * commits; null where there are no partitions to fence. Taken on partition {@code at}, one the statement uses
     * anyway ({@link MoveFence#readerPartition}): any partition's row excludes every move batch of the group.
     */
    default MoveFence.Held holdFence(String group, int at) throws SQLException {
        return null;
    }

    /**
     * Lookup group {@code group}'s locking statements' fence ({@link MoveFence#LOCKING}) held shared from now ({@link LockingScan}),
     * on partition {@code at}, as {@link #holdFence}; null where there are no partitions to fence.
     */
    default MoveFence.Held holdLockingFence(String group, int at) throws SQLException {
        return null;
    }

    /**
     * Whether {@code sql}, run on a partition for this statement, is a locking read: {@code FOR UPDATE}, {@code FOR SHARE},
     * {@code LOCK IN SHARE MODE}, or any read inside a SERIALIZABLE transaction (the backend locks it). It reads the latest
     * committed rows, not a snapshot.
     */
    default boolean lockingRead(String sql) {
        return org.lutra.sql.Guards.lockingRead(sql) || everyReadLocks();
    }

    /** Whether the statement runs in a SERIALIZABLE transaction, where InnoDB reads every row with a shared lock. */
    default boolean everyReadLocks() {
        return false;
    }

    /**
     * As {@link #scan}, for locking reads of a lookup group, with the group's locking fence held by the statement
     * until its rows are read ({@link LockingScan}).
     */
    default List<RowSource> lockingScan(List<ShardQuery> queries, ReplicaScans.Copies copies) throws SQLException {
        return query(ReplicaScans.filter(this, copies, queries));
    }

    /** Whether the statement runs inside a client transaction (its reads in the transaction's snapshots). */
    default boolean transactional() {
        return false;
    }

    /** Whether every backend is a MariaDB server (one that reads each part of a UNION with its own locking clause). */
    default boolean mariaDb() throws SQLException {
        return false;
    }

    /** Whether the statement's transaction has a branch on {@code partition} from an earlier statement; false outside a transaction. */
    default boolean begun(int partition) {
        return false;
    }

    /** The isolation level of the statement's transaction ({@link java.sql.Connection}'s constants). */
    default int isolation() {
        return java.sql.Connection.TRANSACTION_REPEATABLE_READ;
    }

    /**
     * As {@link #query}, for small reads of the router's own tables (a secondary lookup's entries) that must see every
     * committed row and the statement's own transaction's writes: outside a transaction, the statement's reads; inside
     * one, each query on the latest committed rows (a connection outside the transaction, whose snapshot may be older)
     * and, where the transaction has begun on the partition (and so may have written there), in the transaction too;
     * the two answers concatenated.
     */
    default List<RowSource> committedAndOwn(List<ShardQuery> queries) throws SQLException {
        return query(queries);
    }

    /**
     * Before a read of lookup group {@code group}'s keys at {@code partitions}, where their home rows (locked) say they
     * live: inside a REPEATABLE READ transaction whose snapshot of one of those partitions predates a move batch of the
     * group there (which may have brought the keys), refused with 40001 and the transaction failed; else nothing. A
     * snapshot made by this statement is never older than the move (the home rows' lock waited for it).
     */
    default void noMoveSinceSnapshot(String group, java.util.Collection<Integer> partitions) throws SQLException {}

    /**
     * Before a read of a key of lookup group {@code group} at {@code partitions} that the rows it returns validate (it
     * takes no lock): inside a REPEATABLE READ transaction that began on one of them before this statement, its snapshot
     * there may be older than a move batch of the group there. The check returned reads the group's move-batch count in
     * each such snapshot now (once per transaction and partition: it never changes) and, asked once the read has been
     * sent, the latest committed counts, and says whether one differs. Null when no partition needs it (outside such a
     * transaction, or partitions this statement begins: their snapshots are new).
     */
    default MovesSince movesSinceSnapshot(String group, java.util.Collection<Integer> partitions) throws SQLException {
        return null;
    }

    /**
     * The group's move-batch count in the statement's transaction's snapshot of {@code partition} as read there before
     * (REPEATABLE READ: it never changes); null when not read yet or outside a transaction, empty when there is no count.
     */
    default java.util.OptionalLong snapshotBatches(int partition, String group) {
        return null;
    }

    /** Remembers {@link #snapshotBatches}, read in the transaction's snapshot, until the transaction ends. */
    default void snapshotBatches(int partition, String group, java.util.OptionalLong moves) {}

    /**
     * Whether a read validated by its rows on {@code partition}, which the statement's transaction began on before, can skip
     * comparing the move-batch counts ({@link #movesSinceSnapshot}): all the transaction has seen so far is its snapshot of that
     * partition (its only branch; consistent reads only, no write or locking read anywhere, the router's own included). Why
     * that is exact: docs/architecture.md, "The validation protocol".
     */
    default boolean onlySnapshotOf(int partition) {
        return false;
    }

    /**
     * Whether the statement's transaction has run nothing but consistent reads so far (no write, no locking read, on any
     * partition); true outside a transaction.
     */
    default boolean consistentReadsOnly() {
        return true;
    }

    /** {@link #movesSinceSnapshot}'s second half. */
    interface MovesSince {
        /** Whether a move batch of the group committed on one of the partitions since the transaction's snapshot there. */
        boolean any() throws SQLException;
    }

    /** Runs every write on its partition (in parallel); one update count per query, in order. */
    long[] update(List<ShardQuery> queries) throws SQLException;

    /** {@link #insert}'s count for a sub-insert the placement trigger refused: its rows' keys live elsewhere. */
    long MISPLACED = Misplaced.COUNT;

    /** As {@link #update}, for INSERTs: a sub-insert the placement trigger refused counts {@link #MISPLACED}. Without placement triggers: {@link #update}. */
    default long[] insert(List<ShardQuery> queries) throws SQLException {
        return update(queries);
    }

    /** For each query, whether it returned at least one row. */
    default boolean[] exists(List<ShardQuery> queries) throws SQLException {
        var found = new boolean[queries.size()];
        var answers = query(queries);
        for (int i = 0; i < found.length; i++) {
            try (RowSource rows = answers.get(i)) {
                found[i] = rows.next() != null;
            }
        }
        return found;
    }

    /** The statement is about to change rows on several partitions: make it all-or-nothing. */
    void atomic() throws SQLException;

    /**
     * One pooled connection to {@code partition} for the router's own statements in a row —
     * temporary tables live as long as it — outside any transaction of the session.
     */
    default Scratch scratch(int partition) throws SQLException {
        throw Refusal.of("no scratch connections here");
    }

    /**
     * A connection to {@code partition} whose row locks, gap locks included, last until it is closed: the
     * statement's transaction when it has one at REPEATABLE READ or SERIALIZABLE (the locks then last until
     * that transaction ends); in auto-commit, and below REPEATABLE READ (whose locking reads take no gap locks:
     * a read of a missing row would lock nothing), a short REPEATABLE READ transaction of a locking-pool
     * connection, committed on close.
     */
    default Scratch locking(int partition) throws SQLException {
        throw Refusal.of("no locking reads here");
    }

    /**
     * A connection to {@code partition} outside the statement's and the session's transactions, in auto-commit: each of
     * its statements commits itself as it runs (no COMMIT round trip), a failed one is undone alone; null where there is
     * none (then the caller does its work in the statement's transaction). Its statements wait for a lock one second at
     * most (MariaDB's per-statement {@code innodb_lock_wait_timeout}), so a wait no shard's deadlock view ties to the
     * statement ends soon.
     */
    default Aside aside(int partition) throws SQLException {
        return null;
    }

    /** {@link #aside}'s connection: every statement committed on its own. */
    interface Aside extends Scratch {
        /** Runs a write, committed as it returns; its update count. */
        long update(String sql, List<org.lutra.protocol.Value> params) throws SQLException;
    }

    /** A connection to {@code partition} whose row locks last until the statement's transaction ends (it has one), at its level. */
    default Scratch inTransaction(int partition) throws SQLException {
        return locking(partition);
    }

    /** The id of the partition named {@code name} (placement rows name partitions). */
    default int partitionNamed(String name) throws SQLException {
        throw Refusal.of("no partition names here");
    }

    /** The name of partition {@code id} (placement rows name partitions). */
    default String partitionName(int id) throws SQLException {
        throw new SQLException("no partition names here", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
    }

    /** A connection held for a few statements; closing it gives it back. */
    interface Scratch extends AutoCloseable {
        void execute(String sql, List<org.lutra.protocol.Value> params) throws SQLException;

        /** Rows of {@code sql}, read as asked; the connection stays busy until they are read or closed. */
        RowSource query(String sql, List<org.lutra.protocol.Value> params) throws SQLException;

        @Override
        void close();
    }
}
