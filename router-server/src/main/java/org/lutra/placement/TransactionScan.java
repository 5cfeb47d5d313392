package org.lutra.placement;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.backend.BackendThreads;
import org.lutra.backend.Backends;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * A scan of a lookup group over several partitions inside a transaction (the client's, or a statement's
 * own): exact while rows move, or refused when a move committed where the transaction's snapshot is older.
 * Plain (consistent) reads only: a locking read reads the latest rows, not the snapshots, and is {@link LockingScan}'s.
 * The transaction's connections are used as they are (its snapshots, its locks); what it does depends on
 * the transaction's isolation level:
 * <ul>
 *   <li><b>REPEATABLE READ</b>: each partition's snapshot is the transaction's, taken at its first read
 *       there, maybe before this statement. With the group's fence held shared ({@link MoveFence}), on
 *       every partition where the transaction ran a statement before, at once: the group's batch count read
 *       in the transaction and the latest committed count. A difference: a batch committed there after the
 *       snapshot, which then holds the moved rows as they were and another partition's snapshot maybe not;
 *       the statement is refused ({@code 40001}, the transaction rolled back: retry it). Then, still under
 *       the fence, the replicated-keys question on every partition, in the transaction: a consistent read,
 *       which starts the snapshot where there was none — under the fence, so with every batch committed
 *       and none halfway. So no batch is between any two of the snapshots, and each moved row is in exactly
 *       one. Then the fence is released and the queries run in those snapshots. Where the group provably has no
 *       replicated keys (it has a secondary lookup) the question is not asked: the queries start those snapshots
 *       themselves, and the fence is released once they have.
 *   <li><b>READ COMMITTED</b>: every statement reads in snapshots of its own, taken as it starts; the
 *       fence is held shared until every query has started (as long as the queries take to answer their
 *       first rows).
 *   <li><b>SERIALIZABLE</b>: every read locks (the latest rows, not a snapshot): {@link LockingScan}, not here.
 *   <li><b>READ UNCOMMITTED</b>: refused: the scan would see a move's rows on both partitions before it commits.
 * </ul>
 */
final class TransactionScan {
    private TransactionScan() {}

    /**
     * @param held the group's fence, if the statement took it already (a read through a secondary lookup, whose entries it read
     *             under it); else taken here. Released here, once the snapshots exist (READ COMMITTED: once the queries started)
     */
    static List<RowSource> query(FanOut fanOut, Backends backends, Connections statement, Shards shards, String group, List<ShardQuery> queries,
                                 ReplicaScans.Copies copies, MoveFence.Held held) throws SQLException {
        switch (statement.isolation()) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> throw Refusal.of("a read of " + copies.table().name()
                    + " over several partitions in a READ UNCOMMITTED transaction would see rows being moved on both partitions;"
                    + " use READ COMMITTED or REPEATABLE READ, or pin the routing column '" + copies.table().partitioning().column() + "'");
            case Connection.TRANSACTION_SERIALIZABLE -> throw new IllegalStateException("a SERIALIZABLE transaction's reads lock: LockingScan reads them");
            case Connection.TRANSACTION_READ_COMMITTED -> {
                MoveFence.Held fence = held != null ? held : MoveFence.shared(backends.placement(MoveFence.readerPartition(queries)), group, statement.deadline(), statement.variables());
                try {
                    return fanOut.query(ReplicaScans.filter(shards, copies, queries), statement); // each query's snapshot taken under the fence
                } finally {
                    BackendThreads.later(fence::close);
                }
            }
            default -> {
                MoveFence.Held fence = held != null ? held : MoveFence.shared(backends.placement(MoveFence.readerPartition(queries)), group, statement.deadline(), statement.variables());
                List<ShardQuery> filtered;
                try {
                    // the partitions read before: their snapshots checked. The others: their snapshots start with the
                    // replicated-keys question below, under the fence, so they have every batch committed and none halfway
                    var earlier = queries.stream().filter(q -> statement.begun(q.partition())).toList();
                    if (!earlier.isEmpty()) fanOut.each(earlier, statement, p -> sameBatches(backends.placement(p), statement, group), x -> {});
                    // no replicated keys to ask about: the queries themselves start those snapshots, still under the fence
                    if (copies.none()) return fanOut.query(queries, statement);
                    filtered = ReplicaScans.filter(shards, copies, queries);
                } finally {
                    BackendThreads.later(fence::close);
                }
                return fanOut.query(filtered, statement);
            }
        }
    }

    /**
     * The transaction's snapshot of the partition, made now if it had none, and checked to be no older than the
     * group's last move batch there (under the fence none commits meanwhile; without it, one that does only makes
     * the counts differ); refused and the transaction failed otherwise.
     */
    static Boolean sameBatches(Backends.Placement placement, Connections statement, String group) throws SQLException {
        boolean before = statement.begun(placement.partition()); // asked before the read below begins the branch
        // the latest count read at the same time as the snapshot's (either order: only a batch committing in between
        // makes them differ, and then the snapshot is older than it anyway)
        var latestRead = before ? latestBatches(placement, group) : null;
        OptionalLong seen = seenBatches(placement, statement, group);
        if (latestRead == null || seen.equals(await(latestRead, placement))) return true;
        // 40001 and MySQL's deadlock code: applications and pools retry it as they retry a deadlock victim
        var moved = new SQLException("rows of " + group + "'s lookup group were moved on " + placement.name() + " after this transaction"
                + " first read there, and its snapshot there does not have them as they are now (a read could see them twice or not at all); retry the transaction",
                "40001", 1213);
        statement.consistentRead(placement.partition()).release(moved); // the transaction fails: it is rolled back, as after a deadlock
        throw moved;
    }

    /**
     * The group's move-batch count in the transaction's snapshot of the partition: remembered from an earlier read in
     * the transaction ({@link Connections#snapshotBatches}: one snapshot per partition at REPEATABLE READ, so it never
     * changes), else read there now (a consistent read, which makes the snapshot if there was none), with every other
     * group's (one statement for all: a statement of another group on the partition then needs none), and remembered.
     */
    static OptionalLong seenBatches(Backends.Placement placement, Connections statement, String group) throws SQLException {
        String g = MoveFence.group(group);
        OptionalLong known = statement.snapshotBatches(placement.partition(), g);
        if (known != null) return known;
        Connections.Lease lease = statement.consistentRead(placement.partition()); // locks nothing
        var all = new java.util.HashMap<String, Long>();
        try (PreparedStatement ps = lease.connection().prepareStatement(MoveFence.EVERY_BATCHES); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) all.put(rs.getString(1), rs.getLong(2));
        } catch (SQLException e) {
            SQLException located = Backends.located(placement, e, lease.connection());
            lease.release(located);
            throw located;
        }
        lease.release(null);
        if (statement.transactional() && statement.isolation() == Connection.TRANSACTION_REPEATABLE_READ) {
            all.forEach((owner, moves) -> statement.snapshotBatches(placement.partition(), owner, OptionalLong.of(moves)));
            statement.everySnapshotBatches(placement.partition());
        }
        Long seen = all.get(g);
        return seen == null ? OptionalLong.empty() : OptionalLong.of(seen);
    }

    /** The group's count last committed on the partition, read outside the transaction on a thread of its own from now. */
    static FutureTask<OptionalLong> latestBatches(Backends.Placement placement, String group) {
        var task = new FutureTask<>(() -> {
            try (Connection c = placement.borrow()) {
                Long latest = batches(c, group);
                return latest == null ? OptionalLong.empty() : OptionalLong.of(latest);
            }
        });
        BackendThreads.later(task);
        return task;
    }

    static OptionalLong await(FutureTask<OptionalLong> task, Backends.Placement placement) throws SQLException {
        try {
            return task.get();
        } catch (ExecutionException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            throw Backends.located(placement, e.getCause() instanceof SQLException s ? s : new SQLException("reading the move count failed", "HY000", 0, e));
        }
    }

    private static Long batches(Connection c, String group) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(MoveFence.BATCHES)) {
            ps.setString(1, MoveFence.group(group));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }
}
