package org.lutra.placement;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.backend.Warnings;
import org.lutra.backend.BackendThreads;
import org.lutra.backend.Backends;
import org.lutra.backend.Deadline;
import org.lutra.backend.SessionState;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An auto-commit scan of a lookup group over several partitions, read in snapshots that no move
 * of the group straddles ({@link MoveFence}):
 * <ol>
 *   <li>the group's fence row locked shared, on one of the partitions read ({@link MoveFence#readerPartition});
 *   <li>on every partition at once, a connection of the statement (its session variables carried)
 *       and {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} on it, at REPEATABLE READ (for one
 *       read-only statement every level's consistent read is one snapshot; READ COMMITTED would
 *       take it at the first read instead of here);
 *   <li>the fence released;
 *   <li>on every partition at once, in its snapshot, whether it holds a replicated key of the group
 *       ({@link ReplicaScans}): asked in the snapshot the rows are read in, so that a replication
 *       committing meanwhile is either in both the answer and the rows or in neither;
 *   <li>the queries (without the copies, if any partition said yes), each on its partition's
 *       snapshot; each transaction is committed when its rows are read or closed.
 * </ol>
 * Costs: the fence's two statements on one of the partitions read and one START TRANSACTION per partition (in
 * parallel) before the queries, then the replicated-keys question per partition (in parallel; it
 * was asked before the fence until it had to be in the snapshot); the fence's COMMIT and each
 * partition's COMMIT run off the statement's path, on threads of their own.
 */
final class FencedScan {

    private FencedScan() {}

    /** @param held the fence, if the statement took it already (to find its partitions under it); else taken here */
    static List<RowSource> query(FanOut fanOut, Backends backends, Connections statement, String group, List<ShardQuery> queries,
                                 ReplicaScans.Copies copies, MoveFence.Held held) throws SQLException {
        List<Connections.Lease> opened;
        MoveFence.Held fence = held != null ? held : MoveFence.shared(backends.placement(MoveFence.readerPartition(queries)), group, statement.deadline(), statement.variables());
        try {
            opened = fanOut.each(queries, statement, p -> snapshot(backends.placement(p), statement), lease -> end(lease, null));
        } finally {
            BackendThreads.later(fence::close); // off the statement's path: holding it longer is safe
        }
        var unused = new HashMap<Integer, Connections.Lease>();
        for (int i = 0; i < queries.size(); i++) unused.put(queries.get(i).partition(), opened.get(i));
        try {
            boolean replicated = false;
            if (!copies.none()) {
                for (boolean yes : fanOut.each(queries, statement, p -> holdsReplicated(unused.get(p), copies.checkSql(p)), yes -> {})) replicated |= yes;
            }
            FailPoints.reach(FailPoints.SCAN_ASKED_ABOUT_COPIES);
            return fanOut.query(replicated ? copies.scansWithoutCopies(queries) : queries, on(unused, statement));
        } finally {
            unused.values().forEach(lease -> end(lease, null)); // a query that never asked for its lease (none, unless it failed first)
        }
    }

    /** The statement's connections, but each partition's snapshot lease once. */
    private static Connections on(Map<Integer, Connections.Lease> snapshots, Connections statement) {
        return new Connections() {
            @Override
            public Lease lease(int partition, Use use) throws SQLException {
                Lease lease;
                synchronized (snapshots) {
                    lease = snapshots.remove(partition);
                }
                if (lease == null) throw new IllegalStateException("a fenced scan asked twice for partition " + partition);
                return committing(lease);
            }

            @Override
            public SessionState variables() {
                return statement.variables();
            }

            @Override
            public Warnings warnings() {
                return statement.warnings();
            }

            @Override
            public Deadline deadline() {
                return statement.deadline();
            }
        };
    }

    private static Connections.Lease snapshot(Backends.Placement placement, Connections statement) throws SQLException {
        Connections.Lease lease = statement.lease(placement.partition(), Connections.Use.READ);
        Connection c = lease.connection();
        try (Statement st = c.createStatement()) {
            if (c.getTransactionIsolation() != Connection.TRANSACTION_REPEATABLE_READ) st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            st.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            return lease;
        } catch (SQLException e) {
            SQLException located = Backends.located(placement, e, c);
            lease.release(located);
            throw located;
        }
    }

    /** Whether the snapshot of {@code lease} holds a replicated key ({@code sql} answers a row). */
    private static boolean holdsReplicated(Connections.Lease lease, String sql) throws SQLException {
        try (Statement st = lease.connection().createStatement(); var rs = st.executeQuery(sql)) {
            return rs.next();
        }
    }

    /** The lease, whose release first ends its snapshot's transaction. */
    private static Connections.Lease committing(Connections.Lease lease) {
        return new Connections.ForwardingLease(lease) {
            @Override
            public void release(SQLException failure) {
                // the rows are read: the COMMIT of a read-only snapshot need not delay the client's answer
                BackendThreads.later(() -> end(lease, failure));
            }

            @Override
            public void abandon() {
                lease.abandon(); // the connection is closed: its server rolls the transaction back
            }
        };
    }

    /** Ends the snapshot's transaction and releases the lease; a connection that cannot end it is closed, never pooled with it open. */
    private static void end(Connections.Lease lease, SQLException failure) {
        try (Statement st = lease.connection().createStatement()) {
            st.execute(failure == null ? "COMMIT" : "ROLLBACK");
        } catch (SQLException e) {
            if (lease.streaming()) {
                lease.abandon();
                return;
            }
            lease.release(e);
            return;
        }
        lease.release(failure);
    }
}
