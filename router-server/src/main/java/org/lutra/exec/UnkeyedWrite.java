package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.placement.MoveFence;
import org.lutra.placement.Shards;
import org.lutra.catalog.Partitioning;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

/**
 * An UPDATE or DELETE that names no routing keys: by one value of a {@code UNIQUE} secondary lookup, where the router
 * guesses its row is first ({@link UniqueValueGuess#write}, kept when it matched a row); else where a secondary lookup's
 * entries say rows with its values are, else on every partition of the table. On a lookup group's table it writes the
 * latest rows of every partition it runs on, as a locking scan reads them, with the group's locking fence held until they
 * are written ({@code placement.LockingScan}); where keys of the group are replicated it splits into the rows counted and
 * the copies ({@link ReplicaWrite}).
 */
final class UnkeyedWrite {
    private UnkeyedWrite() {}

    /** Runs {@code plan}, which names no keys. */
    static Result.Count run(Plan.Routed plan, Context ctx) throws SQLException {
        Shards shards = ctx.shards();
        Result.Count guessed = UniqueValueGuess.write(plan, ctx); // where the router guesses a UNIQUE value's row: kept if it matched
        if (guessed != null) return guessed;
        if (plan.table().partitioning() instanceof Partitioning.LookedUp lookup) {
            // A secondary lookup's entries are the latest committed ones and the transaction's own (SecondaryEntries.partitions),
            // read under the locking fence: no move batch commits between them and the write, so they name every partition
            // whose latest rows (or the transaction's) have the values
            try (MoveFence.Held fence = shards.holdLockingFence(lookup.owner(), Target.fencePartition(ctx.read(ctx.params()), plan.table(), plan.secondary()))) {
                // no move batch commits while the fence is held: a replication either is in the answer below or comes after the write
                var replicas = ctx.services().replicas();
                var holding = replicas.holdingCopies(lookup, shards);
                if (!holding.isEmpty()) return replicas.onEveryCopyUnkeyed(plan, lookup, holding, ctx.params(), ctx.connections());
                return bySecondaryOrEverywhere(plan, ctx);
            }
        }
        return bySecondaryOrEverywhere(plan, ctx);
    }

    /** Where a secondary lookup's entries say, else on every partition. */
    private static Result.Count bySecondaryOrEverywhere(Plan.Routed plan, Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        Shards shards = ctx.shards();
        List<Value> params = ctx.params();
        if (plan.secondary() != null) {
            var partitions = Target.viaSecondary(ctx.read(params), plan.table(), plan.secondary());
            if (partitions != null) return Writes.run(stats, plan, Routes.wholeOn(plan, partitions.partitions(), params), shards);
        }
        stats.broadcast(plan.table().partitioning());
        return Writes.run(stats, plan, Routes.wholeOn(plan, plan.table().partitioning().partitions(), params), shards);
    }
}
