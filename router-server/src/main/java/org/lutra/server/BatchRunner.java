package org.lutra.server;

import org.lutra.plan.InsertBatch;
import org.lutra.exec.Planned;
import org.lutra.plan.Planner;
import org.lutra.protocol.BatchResult;
import org.lutra.protocol.Error;
import org.lutra.protocol.ExecuteBatch;
import org.lutra.protocol.Params;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a JDBC batch (ExecuteBatch) that arrived in one request. Entries run in order, each as the
 * session would run it alone, except that consecutive entries of a PreparedStatement batch of
 * single-row INSERTs become one multi-row INSERT ({@link InsertBatch}): the executor splits it per
 * partition, so a partition gets one statement for all its rows, and a group that writes on
 * several partitions is atomic (in auto-commit mode a transaction of its own, as any multi-row
 * INSERT). Each entry of such a group counts its one row.
 *
 * <p>The first failure stops the batch. The reply then has the counts of the entries before the
 * failing entry or group (those entries are done; in auto-commit mode committed) and the error.
 */
final class BatchRunner {
    /** Rows per combined INSERT: enough to amortize a round trip many times over, little enough to stay well under packet limits. */
    static final int MAX_ROWS = 1000;
    /** Parameters per combined INSERT (a server-side prepared statement takes at most 65,535). */
    static final int MAX_PARAMS = 30_000;

    /** Runs one planned statement as the session would, returning its update count (and the ids of the rows an INSERT made). */
    interface Updates {
        org.lutra.exec.Result.Count update(Planned plan, List<Value> params, String sql) throws SQLException;
    }

    private final Planner planner;
    private final Updates updates;
    /** The id LAST_INSERT_ID() gives after the entries that ran: the first one the last entry that generated ids generated, or the value an entry's LAST_INSERT_ID(expr) set; empty if none did. */
    private java.util.OptionalLong lastInsertId = java.util.OptionalLong.empty();
    private boolean returnKeys;

    BatchRunner(Planner planner, Updates updates) {
        this.planner = planner;
        this.updates = updates;
    }

    java.util.OptionalLong lastInsertId() {
        return lastInsertId;
    }

    BatchResult run(ExecuteBatch request) {
        var result = BatchResult.newBuilder();
        returnKeys = request.getReturnGeneratedKeys();
        try {
            if (request.getStatementsCount() > 0 && request.getEntriesCount() > 0) {
                throw new SQLException("a batch has statements or parameter entries, not both", "HY000", 0);
            }
            for (String sql : request.getStatementsList()) {
                var bound = planner.bind(sql, List.of());
                result.addUpdateCounts(ran(updates.update(bound.plan(), bound.params(), sql), false, result));
            }
            runPrepared(request.getSql(), request.getEntriesList(), result);
        } catch (SQLException e) {
            var shown = org.lutra.backend.BackendDriver.forClient(e);
            result.setError(Error.newBuilder().setSqlState(shown.sqlState()).setVendorCode(e.getErrorCode()).setMessage(shown.message()));
        }
        return result.build();
    }

    private void runPrepared(String sql, List<Params> entries, BatchResult.Builder result) throws SQLException {
        int i = 0;
        while (i < entries.size()) {
            var first = planner.bind(sql, entries.get(i).getValuesList());
            int perEntry = first.params().size();
            int limit = Math.min(entries.size() - i, Math.min(MAX_ROWS, Math.max(1, MAX_PARAMS / Math.max(1, perEntry))));
            if (limit < 2 || InsertBatch.combine(first.plan(), perEntry, 2) == null) {
                result.addUpdateCounts(ran(updates.update(first.plan(), first.params(), sql), false, result));
                i++;
                continue;
            }
            var params = new ArrayList<Value>(perEntry * limit);
            params.addAll(first.params());
            int rows = 1;
            while (rows < limit) {
                var next = planner.bind(sql, entries.get(i + rows).getValuesList());
                if (next.plan() != first.plan() || next.params().size() != perEntry) break; // the plan left the cache: a new group
                params.addAll(next.params());
                rows++;
            }
            long count;
            try {
                // the group's entries are statements of their own: the last that generated an id sets LAST_INSERT_ID()
                count = ran(updates.update(InsertBatch.combine(first.plan(), perEntry, rows), params, sql), true, result);
            } catch (SQLException e) {
                throw new SQLException("batch entries " + (i + 1) + " to " + (i + rows) + ", run as one multi-row INSERT: " + e.getMessage(),
                        e.getSQLState(), e.getErrorCode(), e);
            }
            // INSERT IGNORE may skip rows: then which entries counted is unknown
            for (int r = 0; r < rows; r++) result.addUpdateCounts(count == rows ? 1 : java.sql.Statement.SUCCESS_NO_INFO);
            i += rows;
        }
    }

    /** Notes what an entry (or group) generated; its count. */
    private long ran(org.lutra.exec.Result.Count done, boolean group, BatchResult.Builder result) {
        long[] generated = done.generated();
        if (generated.length > 0) lastInsertId = java.util.OptionalLong.of(group ? generated[generated.length - 1] : generated[0]);
        if (done.insertIdSet().isPresent()) lastInsertId = done.insertIdSet(); // UPDATE ... SET c = LAST_INSERT_ID(expr)
        if (returnKeys) for (long key : done.keys()) result.addGeneratedKeys(key);
        if (returnKeys && done.insertIdSet().orElse(0) != 0) result.addGeneratedKeys(done.insertIdSet().getAsLong());
        return done.count();
    }
}
