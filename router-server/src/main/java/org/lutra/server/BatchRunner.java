package org.lutra.server;

import org.lutra.plan.InsertBatch;
import org.lutra.plan.Plan;
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

    /** Runs one planned statement as the session would, returning its update count. */
    interface Updates {
        long update(Plan plan, List<Value> params, String sql) throws SQLException;
    }

    private final Planner planner;
    private final Updates updates;

    BatchRunner(Planner planner, Updates updates) {
        this.planner = planner;
        this.updates = updates;
    }

    BatchResult run(ExecuteBatch request) {
        var result = BatchResult.newBuilder();
        try {
            if (request.getStatementsCount() > 0 && request.getEntriesCount() > 0) {
                throw new SQLException("a batch has statements or parameter entries, not both", "HY000", 0);
            }
            for (String sql : request.getStatementsList()) {
                var bound = planner.bind(sql, List.of());
                result.addUpdateCounts(updates.update(bound.plan(), bound.params(), sql));
            }
            runPrepared(request.getSql(), request.getEntriesList(), result);
        } catch (SQLException e) {
            result.setError(Error.newBuilder().setSqlState(e.getSQLState() == null ? "HY000" : e.getSQLState())
                    .setVendorCode(e.getErrorCode()).setMessage(e.getMessage() == null ? "" : e.getMessage()));
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
                result.addUpdateCounts(updates.update(first.plan(), first.params(), sql));
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
                count = updates.update(InsertBatch.combine(first.plan(), perEntry, rows), params, sql);
            } catch (SQLException e) {
                throw new SQLException("batch entries " + (i + 1) + " to " + (i + rows) + ", run as one multi-row INSERT: " + e.getMessage(),
                        e.getSQLState(), e.getErrorCode(), e);
            }
            // INSERT IGNORE may skip rows: then which entries counted is unknown
            for (int r = 0; r < rows; r++) result.addUpdateCounts(count == rows ? 1 : java.sql.Statement.SUCCESS_NO_INFO);
            i += rows;
        }
    }
}
