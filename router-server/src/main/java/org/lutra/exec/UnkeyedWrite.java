package org.lutra.exec;

import org.lutra.placement.MoveFence;
import org.lutra.placement.Shards;
import org.lutra.catalog.Partitioning;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

/**
 * An UPDATE or DELETE that names no routing keys: it runs where a secondary lookup's entries say rows with its values are,
 * else on every partition of the table. On a lookup group's table it writes the latest rows of every partition it runs on,
 * as a locking scan reads them, with the group's locking fence held until they are written ({@link LockingScan}); where keys
 * of the group are replicated it splits into the rows counted and the copies ({@link ReplicaWrite}).
 */
final class UnkeyedWrite {
    private final Stats stats;
    private final ReplicaWrite replicas;

    UnkeyedWrite(Stats stats, ReplicaWrite replicas) {
        this.stats = stats;
        this.replicas = replicas;
    }

    /** Runs {@code plan}, which names no keys; {@code c}: the connections {@code shards} use. */
    Result.Count run(Plan.Routed plan, List<Value> params, Shards shards, Connections c) throws SQLException {
        if (plan.table().partitioning() instanceof Partitioning.LookedUp lookup) {
            // A secondary lookup's entries are the latest committed ones and the transaction's own (SecondaryEntries.partitions),
            // read under the locking fence: no move batch commits between them and the write, so they name every partition
            // whose latest rows (or the transaction's) have the values
            try (MoveFence.Held fence = shards.holdLockingFence(lookup.owner(), Target.fencePartition(new Context(params, shards, stats), plan.table(), plan.secondary()))) {
                // no move batch commits while the fence is held: a replication either is in the answer below or comes after the write
                var holding = replicas.holdingCopies(lookup, shards);
                if (!holding.isEmpty()) return replicas.onEveryCopyUnkeyed(plan, lookup, holding, params, c);
                return bySecondaryOrEverywhere(plan, params, shards);
            }
        }
        return bySecondaryOrEverywhere(plan, params, shards);
    }

    /** Where a secondary lookup's entries say, else on every partition. */
    private Result.Count bySecondaryOrEverywhere(Plan.Routed plan, List<Value> params, Shards shards) throws SQLException {
        if (plan.secondary() != null) {
            var partitions = Target.viaSecondary(new Context(params, shards, stats), plan.table(), plan.secondary());
            if (partitions != null) return Writes.run(stats, plan, Routes.wholeOn(plan, partitions.partitions(), params), shards);
        }
        stats.broadcast(plan.table().partitioning());
        return Writes.run(stats, plan, Routes.wholeOn(plan, plan.table().partitioning().partitions(), params), shards);
    }
}
