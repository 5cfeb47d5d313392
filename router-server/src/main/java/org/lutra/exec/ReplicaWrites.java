package org.lutra.exec;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Writes of a replicated key's rows (a key whose home row names several partitions): the same
 * statement on every partition of its set, in one transaction (two-phase), while the statement holds
 * the key's home row with a shared lock in that transaction — so no move can change the set before
 * it commits — and with {@link PlacementRows#ALL_REPLICAS} set on each of those connections, which
 * the placement triggers require of any write of such a key. The copies therefore stay identical;
 * a router that writes one copy alone (a stale cache) is refused by the trigger and comes here.
 */
final class ReplicaWrites {
    private ReplicaWrites() {}

    /**
     * Runs {@code counted} (one partition per key: the rows the client's count is made of) and {@code copies}
     * (the same statement on the keys' other partitions) in the statement's transaction; returns {@code counted}'s counts.
     */
    static long[] run(FanOut fanOut, Connections c, List<ShardQuery> counted, List<ShardQuery> copies) throws SQLException {
        c.atomic();
        var partitions = new LinkedHashSet<Integer>();
        counted.forEach(q -> partitions.add(q.partition()));
        copies.forEach(q -> partitions.add(q.partition()));
        fanOut.update(flag(partitions, "1"), c);
        try {
            long[] counts = fanOut.update(counted, c);
            if (!copies.isEmpty()) fanOut.update(copies, c);
            return counts;
        } finally {
            fanOut.update(flag(partitions, "NULL"), c); // the connection goes back to the pool (or the next statement) without it
        }
    }

    private static List<ShardQuery> flag(Iterable<Integer> partitions, String value) {
        var out = new ArrayList<ShardQuery>();
        for (int p : partitions) out.add(new ShardQuery(p, "SET " + PlacementRows.ALL_REPLICAS + " = " + value, List.of()));
        return out;
    }

    static long sum(long[] counts) {
        return Arrays.stream(counts).sum();
    }
}
