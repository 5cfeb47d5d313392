package org.lutra.placement;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.backend.Backends;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A locking read of a lookup group over several partitions ({@code FOR UPDATE}, {@code FOR SHARE}, {@code LOCK IN SHARE
 * MODE}, or any read of a SERIALIZABLE transaction), in auto-commit or in a transaction at any level. A locking read
 * reads the latest committed rows, not a snapshot, so neither {@link FencedScan}'s snapshots nor
 * {@link TransactionScan}'s batch counts make it exact. The rule:
 * <ul>
 *   <li>the group's locking fence ({@link MoveFence#LOCKING}) is held shared from before the first query until the
 *       statement's rows are read (the caller holds it in the statement's {@link HomeRows.Locks}): no move batch of
 *       the group commits in between, so every partition is read with the same batches committed, and each row is
 *       read once;
 *   <li>a query may wait for a batch's row locks meanwhile; the batch takes the locking fence with NOWAIT, so it
 *       rolls back at once (its locks released: the query goes on) and is retried. Its other lock waits end after
 *       {@link Backends.Placement#YIELDING_LOCK_WAIT_SECONDS}, so a batch never holds a locking statement until the
 *       lock wait timeout (at REPEATABLE READ and SERIALIZABLE, a query's gap locks are what a batch's inserts wait
 *       for while the query waits for the batch's rows: the batch yields there after that second);
 *   <li>whether a partition holds a replicated key of the group is asked as the locking reads see it: in the
 *       latest committed rows (a plain read of a pooled connection, outside the statement's transaction, whose
 *       snapshot may be older), under the fence, so that no replication commits between the answer and the reads.
 * </ul>
 * Writes that name no keys (UPDATE, DELETE over every partition) follow the same rule ({@code Executor}).
 */
final class LockingScan {
    private LockingScan() {}

    static List<RowSource> query(FanOut fanOut, Backends backends, Connections statement, List<ShardQuery> queries,
                                 ReplicaScans.Copies copies) throws SQLException {
        boolean replicated = false;
        if (!copies.none()) {
            for (boolean yes : fanOut.each(queries, statement, p -> holdsReplicated(backends.placement(p), copies.checkSql(p)), yes -> {})) replicated |= yes;
        }
        return fanOut.query(replicated ? copies.scansWithoutCopies(queries) : queries, statement);
    }

    private static boolean holdsReplicated(Backends.Placement placement, String sql) throws SQLException {
        try (Connection c = placement.borrow(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next();
        } catch (SQLException e) {
            throw Backends.located(placement, e);
        }
    }
}
