package org.lutra.exec;

import org.lutra.placement.HomeRows;
import org.lutra.placement.LookupValidation;
import org.lutra.placement.PlacementRows;
import org.lutra.placement.Shards;
import org.lutra.catalog.Partitioning;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * An UPDATE or DELETE that names its rows' routing keys ({@code WHERE id = ?}, {@code IN (...)}, a range): it runs on the
 * partitions that hold them. Keys placed by a lookup table go through the validation protocol ({@link LookupValidation},
 * which reads run through too: {@link SelectPlan}); what is a write's own:
 * <ul>
 *   <li>one key runs where the cache points first; if no row matched there, or the placement trigger refused it (the key
 *       is replicated: its copies change together), it runs again where the key's home row says;</li>
 *   <li>several keys (or one with {@code ORDER BY}/{@code LIMIT}) start at their home rows: a write's first try cannot be
 *       taken back, and counting cannot tell which key it missed (nor whether a key it changed has moved since), where a
 *       read drops its first answer and reads again;</li>
 *   <li>a write changes the latest committed rows, so no check of the transaction's snapshots
 *       ({@link LookupValidation.Kind#WRITE});</li>
 *   <li>a replicated key is written on every copy ({@link ReplicaWrite}), where a read reads one;</li>
 *   <li>the home rows' locks are the write's own, released once it has written.</li>
 * </ul>
 */
final class KeyedWrite implements LookupValidation.Statement<Result.Count> {
    private final Plan.Routed plan;
    private final Object[] keys;
    private final long expected;
    private final Context ctx;

    private KeyedWrite(Plan.Routed plan, Object[] keys, long expected, Context ctx) {
        this.plan = plan;
        this.keys = keys;
        this.expected = expected;
        this.ctx = ctx;
    }

    /** Runs {@code plan} for its routing keys {@code keys} (resolved from the parameters of {@code ctx}). */
    static Result.Count run(Plan.Routed plan, Object[] keys, Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        Shards shards = ctx.shards();
        var partitioning = plan.table().partitioning();
        var byPartition = Routes.byPartition(stats, partitioning, keys);
        if (!partitioning.needsValidation()) {
            return Writes.run(stats, plan, Routes.cut(plan, byPartition, ctx.params()), shards);
        }
        var lookup = (Partitioning.LookedUp) partitioning;
        long distinct = Arrays.stream(keys).distinct().count();
        if (plan.mergeNeed() != null && distinct > 1) {
            throw Writes.mergeRefusal(plan, lookup.partitions().length);
        }
        var write = new KeyedWrite(plan, keys, lookup.unique() ? distinct : 1, ctx);
        var validation = new LookupValidation(shards, stats, plan.table(), keys, byPartition, LookupValidation.Kind.WRITE);
        try (var locks = new HomeRows.Locks(shards)) {
            if (plan.mergeNeed() == null && distinct == 1) return validation.run(locks, write);
            if (plan.mergeNeed() == null) shards.atomic(); // several keys: on several partitions, all or nothing
            return validation.whereHomeRowsSay(locks, write);
        }
    }

    /** The write where the cache points; a trigger's refusal is a miss (count -1), as is a count below the keys'. */
    @Override
    public Result.Count tryWhereCachePoints(Map<Integer, List<Integer>> guess) throws SQLException {
        var first = Routes.cut(plan, guess, ctx.params());
        Writes.record(ctx.stats(), first);
        long count;
        try {
            count = Writes.sum(ctx.shards().update(first));
        } catch (SQLException e) {
            if (PlacementRows.misplaced(e) == null) throw e;
            count = -1; // the trigger refused: the key is replicated (its copies change together) — where its home row says
        }
        return new Result.Count(count, first.size());
    }

    /** Complete when it changed a row per key (nothing can be taken back); else the second try's count, both tries' partitions. */
    @Override
    public Result.Count settle(Result.Count first, LookupValidation.Retry<Result.Count> retry) throws SQLException {
        if (first.count() >= expected) return first;
        Result.Count second = retry.run();
        return new Result.Count(second.count(), first.partitions() + second.partitions());
    }

    /** A write's try is never dropped ({@link LookupValidation.Kind#WRITE} asks for no snapshot check). */
    @Override
    public void drop(Result.Count first) {
        throw new IllegalStateException("a write's first try cannot be dropped");
    }

    @Override
    public Result.Count runWhereHomeRowsSay(Map<Integer, List<Integer>> located, HomeRows home) throws SQLException {
        if (home.anyReplicated(keys)) {
            var lookup = (Partitioning.LookedUp) plan.table().partitioning();
            return ctx.services().replicas().onEveryReplica(plan, lookup, keys, ctx.params(), ctx.shards(), ctx.connections());
        }
        return Writes.run(ctx.stats(), plan, Routes.cut(plan, located, ctx.params()), ctx.shards());
    }
}
