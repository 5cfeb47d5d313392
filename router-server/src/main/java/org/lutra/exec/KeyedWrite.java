package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.placement.PlacementRows;
import org.lutra.placement.Shards;
import org.lutra.catalog.Partitioning;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * An UPDATE or DELETE that names its rows' routing keys ({@code WHERE id = ?}, {@code IN (...)}, a range): it runs on the
 * partitions that hold them. Keys placed by a lookup table follow the validation protocol (paper Fig. 2,
 * docs/architecture.md): one key runs where the cache points and, if no row matched there, again where the key's home row
 * says, under that row's lock; several keys run where their home rows say, under lock, from the start.
 *
 * <p>Reads validate the cache ({@link SelectPlan}) with the same home rows ({@link HomeRows}: lock, learn, locate), but the
 * protocol around them differs, so it is not one shared step:
 * <ul>
 *   <li>a write's first try cannot be taken back: with several keys a read runs at the cache's partitions and, if rows are
 *       missing, drops that answer and reads again under the home rows' locks; a write locks the home rows first;</li>
 *   <li>a write changes the latest committed rows, so no snapshot of the transaction can be older than the locked home rows;
 *       a read in a transaction checks that ({@link Shards#noMoveSinceSnapshot});</li>
 *   <li>a trigger's refusal of the first try (the key is replicated) counts as a miss, and a replicated key is written on
 *       every copy ({@link ReplicaWrite}), where a read reads one.</li>
 * </ul>
 */
final class KeyedWrite {
    private KeyedWrite() {}

    /** Runs {@code plan} for its routing keys {@code keys} (resolved from the parameters of {@code ctx}). */
    static Result.Count run(Plan.Routed plan, Object[] keys, Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        List<Value> params = ctx.params();
        Shards shards = ctx.shards();
        var partitioning = plan.table().partitioning();
        var byPartition = Routes.byPartition(stats, partitioning, keys);
        if (!partitioning.needsValidation()) {
            return Writes.run(stats, plan, Routes.cut(plan, byPartition, params), shards);
        }
        var lookup = (Partitioning.LookedUp) partitioning;
        long distinct = Arrays.stream(keys).distinct().count();
        if (plan.mergeNeed() != null) {
            if (distinct > 1) {
                throw Writes.mergeRefusal(plan, lookup.partitions().length);
            }
            return whereHomeRowsSay(plan, lookup, keys, byPartition, ctx);
        }
        if (distinct > 1) {
            // Counting cannot tell which of several keys a first try at the cache's partitions missed
            // (and a key changed there may have moved since): where they live first, under lock.
            shards.atomic();
            return whereHomeRowsSay(plan, lookup, keys, byPartition, ctx);
        }
        return validated(plan, lookup, keys, byPartition, lookup.unique() ? distinct : 1, ctx);
    }

    /** Runs the write for {@code keys} where their home rows say they live, while those rows are locked ({@link HomeRows}). */
    private static Result.Count whereHomeRowsSay(Plan.Routed plan, Partitioning.LookedUp lookup, Object[] keys, Map<Integer, List<Integer>> guessed,
                                                 Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        Shards shards = ctx.shards();
        try (var locks = new HomeRows.Locks(shards)) {
            HomeRows home = HomeRows.lock(locks, shards, plan.table(), lookup, keys);
            home.learn(keys, stats);
            var located = home.byPartition(keys);
            if (!located.equals(guessed)) stats.fallback(lookup, new int[0]); // not where the cache pointed
            if (home.anyReplicated(keys)) return ctx.services().replicas().onEveryReplica(plan, lookup, keys, ctx.params(), shards, ctx.connections());
            return Writes.run(stats, plan, Routes.cut(plan, located, ctx.params()), shards);
        }
    }

    /**
     * One key: runs where the lookup table points; if no row matched there (nothing changed), runs
     * again where the key's home row says it lives, under that row's lock ({@link HomeRows}).
     */
    private static Result.Count validated(Plan.Routed plan, Partitioning.LookedUp lookup, Object[] keys, Map<Integer, List<Integer>> primary,
                                          long expected, Context ctx) throws SQLException {
        Shards shards = ctx.shards();
        var first = Routes.cut(plan, primary, ctx.params());
        Writes.record(ctx.stats(), first);
        long count;
        try {
            count = Writes.sum(shards.update(first));
        } catch (SQLException e) {
            if (PlacementRows.misplaced(e) == null) throw e;
            count = -1; // the trigger refused: the key is replicated (its copies change together) — where its home row says
        }
        if (count >= expected) {
            return new Result.Count(count, first.size());
        }
        Result.Count second = whereHomeRowsSay(plan, lookup, keys, primary, ctx);
        return new Result.Count(second.count(), first.size() + second.partitions());
    }
}
