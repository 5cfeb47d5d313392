package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.placement.PlacementRows;
import org.lutra.backend.ShardQuery;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Writes of a replicated key's rows (a key whose home row names several partitions): the same
 * statement on every partition of its set, in one transaction (two-phase), while the statement holds
 * the key's home row with a shared lock in that transaction — so no move can change the set before
 * it commits — and with the transaction marked on each of them ({@link PlacementRows#MARK}), which
 * the placement triggers require of any write of such a key. The copies therefore stay identical;
 * a router that writes one copy alone (a stale cache) is refused by the trigger and comes here.
 */
final class ReplicaWrites {
    private ReplicaWrites() {}

    /**
     * Runs each set (one statement on every partition holding the same keys' rows, the primary's first: {@link SameEffect})
     * in the statement's transaction; every copy must count and warn alike. Returns each set's count.
     */
    static long[] run(FanOut fanOut, Connections c, org.lutra.catalog.TableDef table, List<SameEffect.Copies> sets) throws SQLException {
        var partitions = new LinkedHashSet<Integer>();
        sets.forEach(s -> s.queries().forEach(q -> partitions.add(q.partition())));
        return marked(fanOut, c, partitions, () -> SameEffect.run(fanOut, c, table, sets));
    }

    /**
     * Runs {@code counted} (rows that are no copy kept for another primary) and {@code copies} (those copies) on each
     * partition in the statement's transaction; returns {@code counted}'s counts. The two hold different keys' rows, so
     * their effects cannot be compared copy by copy: the caller refuses what could differ between copies (IGNORE).
     */
    static long[] runSplit(FanOut fanOut, Connections c, List<ShardQuery> counted, List<ShardQuery> copies) throws SQLException {
        var partitions = new LinkedHashSet<Integer>();
        counted.forEach(q -> partitions.add(q.partition()));
        copies.forEach(q -> partitions.add(q.partition()));
        return marked(fanOut, c, partitions, () -> {
            long[] counts = fanOut.update(counted, c);
            if (!copies.isEmpty()) fanOut.update(copies, c);
            return counts;
        });
    }

    private interface Writes {
        long[] run() throws SQLException;
    }

    /** Runs {@code writes} with the transaction marked on {@code partitions} (the placement triggers let it write copies there). */
    private static long[] marked(FanOut fanOut, Connections c, java.util.Set<Integer> partitions, Writes writes) throws SQLException {
        c.atomic();
        fanOut.update(each(partitions, PlacementRows.MARK), c);
        long[] counts;
        try {
            counts = writes.run();
        } catch (SQLException | RuntimeException e) {
            try {
                fanOut.update(each(partitions, PlacementRows.UNMARK), c); // a transaction that goes on does so unmarked
            } catch (SQLException | RuntimeException again) {
                e.addSuppressed(again); // the transaction is failed: its rollback takes the marks back
            }
            throw e;
        }
        fanOut.update(each(partitions, PlacementRows.UNMARK), c);
        return counts;
    }

    private static List<ShardQuery> each(Iterable<Integer> partitions, String sql) {
        var out = new ArrayList<ShardQuery>();
        for (int p : partitions) out.add(new ShardQuery(p, sql, List.of()));
        return out;
    }

    static long sum(long[] counts) {
        return Arrays.stream(counts).sum();
    }
}
