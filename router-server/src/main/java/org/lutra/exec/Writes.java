package org.lutra.exec;

import org.lutra.placement.PlacementRows;
import org.lutra.placement.Shards;
import org.lutra.backend.ShardQuery;
import org.lutra.catalog.Partitioning;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.List;

/**
 * What the write operators ({@link KeyedWrite}, {@link UnkeyedWrite}, {@link ReplicaWrite}) share: running an UPDATE's or
 * DELETE's statements on their partitions, and the refusals they raise alike.
 */
final class Writes {
    private Writes() {}

    /** {@code IGNORE} in an UPDATE or DELETE: a row the write would fail on is skipped. */
    static final java.util.regex.Pattern IGNORING = java.util.regex.Pattern.compile(
            "(?is)\\s*(?:UPDATE|DELETE)\\s+(?:LOW_PRIORITY\\s+)?(?:QUICK\\s+)?IGNORE\\b");

    /** Runs {@code queries}, the write {@code plan} cut per partition; all-or-nothing over several partitions. */
    static Result.Count run(Stats stats, Plan.Routed plan, List<ShardQuery> queries, Shards shards) throws SQLException {
        if (queries.size() > 1 && plan.mergeNeed() != null) {
            throw mergeRefusal(plan, queries.size());
        }
        if (queries.size() > 1 && plan.setsInsertId()) {
            // MySQL's LAST_INSERT_ID() is the value of the last row it updated: which partition's is last is unknown
            throw Refusal.of("Lutra does not support LAST_INSERT_ID(expr) in an UPDATE over " + queries.size() + " partitions of table "
                    + plan.table().name() + "; pin the routing column '" + plan.table().partitioning().column() + "' to one value");
        }
        record(stats, queries);
        if (queries.size() > 1) shards.atomic();
        try {
            return new Result.Count(sum(shards.update(queries)), queries.size());
        } catch (SQLException e) {
            throw copiesRefusal(plan, e);
        }
    }

    static SQLException mergeRefusal(Plan.Routed plan, int partitions) {
        return Refusal.of("Lutra does not support " + plan.mergeNeed() + " over " + partitions + " partitions of table "
                + plan.table().name() + " yet (router-side merging); pin the routing column '" + plan.table().partitioning().column()
                + "' to one value");
    }

    /**
     * {@code e}, or, where the placement triggers refused a write of one copy of a replicated key's rows (a replication
     * committed after the statement's snapshot told it where copies are), the refusal that says so.
     */
    static SQLException copiesRefusal(Plan.Routed plan, SQLException e) {
        if (PlacementRows.misplaced(e) == null || !(plan.table().partitioning() instanceof Partitioning.LookedUp)) return e;
        return new SQLException("Lutra does not support this UPDATE or DELETE of " + plan.table().name() + " rows of a replicated key"
                + " (SET PARTITION = (p1, p2)) replicated after this transaction's snapshot: run it again in a new transaction ("
                + e.getMessage() + ")", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE, e);
    }

    /** Counts the statement's partitions ({@link Stats#statement}). */
    static void record(Stats stats, List<ShardQuery> queries) {
        if (!queries.isEmpty()) stats.statement(ShardQuery.partitions(queries));
    }

    static long sum(long[] counts) {
        long sum = 0;
        for (long c : counts) sum += c;
        return sum;
    }
}
