package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.merge.FallbackRows;
import org.lutra.merge.LimitRows;
import org.lutra.merge.RowSource;
import org.lutra.merge.UnionRows;
import org.lutra.plan.PlanException;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The root of a SELECT's plan. Where the statement's rows all live on one partition it runs
 * there unchanged ({@code pushdown}): MySQL itself answers it, whatever it contains. Otherwise
 * the {@code scatter} tree runs: the shard SQL rewritten for merging plus the router-side
 * operators that merge, or, when the planner could not build one, the refusal naming why.
 *
 * <p>Plain row reads routed by a lookup table follow the paper's read validation (Fig. 2)
 * without an extra round trip: run where the lookup table points and count the rows; if fewer
 * answered than keys were asked, ask the other partitions about the keys not yet asked there
 * and learn where the rows were. Reads whose shard results cannot be counted that way
 * (aggregates, ORDER BY, ...) first check where the keys' owner rows are ({@link Target#exact}).
 */
public final class SelectPlan implements Operator {
    private final Target target;
    private final Route pushdown;
    private final boolean plainRows;
    private final long plainLimit;
    private final Operator scatter;
    private final PlanException refusal;

    /**
     * @param plainRows  the statement returns rows that simply concatenate across partitions (no ORDER BY, aggregate, DISTINCT, OFFSET)
     * @param plainLimit for plain rows, a LIMIT to apply again over several partitions, or -1
     * @param scatter    the plan for several partitions, or null with {@code refusal} saying why there is none
     */
    public SelectPlan(Target target, Route pushdown, boolean plainRows, long plainLimit, Operator scatter, PlanException refusal) {
        this.target = target;
        this.pushdown = pushdown;
        this.plainRows = plainRows;
        this.plainLimit = plainLimit;
        this.scatter = scatter;
        this.refusal = refusal;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        if (plainRows && target.guesses()) {
            RowSource validated = validatedRows(ctx);
            if (validated != null) return validated;
        }
        Target.Resolution r = target.exact(ctx);
        ctx.remember(target, r);
        if (r.size() == 1) return pushdown.open(ctx);
        if (scatter == null) throw refusal;
        return scatter.open(ctx);
    }

    /** Rows of a lookup-routed read, validated by counting; null when counting cannot tell (several non-unique keys). */
    private RowSource validatedRows(Context ctx) throws SQLException {
        if (target.keys() instanceof org.lutra.plan.KeyMatch.Range) return null; // keys of a range need not exist: counting cannot validate
        Object[] keys = target.keyValues(ctx.params());
        if (keys == null || keys.length == 0) return null;
        var lookup = (Partitioning.LookedUp) target.table().partitioning();
        long distinct = Arrays.stream(keys).distinct().count();
        if (!lookup.unique() && distinct > 1) return null;
        long expected = lookup.unique() ? distinct : 1;
        Target.Resolution guess = target.guess(ctx);
        var first = target.cut(guess, pushdown.sql(), pushdown.template(), ctx.params());
        Object learnable = distinct == 1 ? keys[0] : null;
        ctx.stats().statement(partitions(first));
        ctx.touched(first);
        RowSource primary = new UnionRows(ctx.shards().query(first));
        if (first.size() > 1 && plainLimit >= 0) primary = new LimitRows(primary, plainLimit);
        RowSource rows = new FallbackRows(primary, expected, () -> {
            // Fewer rows than keys: a key whose owner row is where the lookup table pointed has no
            // rows elsewhere; the other keys are asked on the other partitions.
            var settled = Target.ownersWhereAsked(ctx.shards(), target.table(), guess.byPartition(), keys);
            var second = target.cut(new Target.Resolution(complement(lookup, guess, keys, settled), keys), pushdown.sql(), pushdown.template(),
                    ctx.params());
            if (second.isEmpty()) return null;
            ctx.stats().fallback(lookup, partitions(second));
            var sources = ctx.shards().query(second);
            if (learnable != null) {
                for (int i = 0; i < sources.size(); i++) {
                    sources.set(i, new LearningRows(sources.get(i), lookup, learnable, second.get(i).partition(), ctx.stats()));
                }
            }
            // one key: its rows are on one partition (on two only while a move of it commits: take one)
            return learnable != null ? new org.lutra.merge.FirstAnsweringRows(sources) : new UnionRows(sources);
        });
        return plainLimit >= 0 ? new LimitRows(rows, plainLimit) : rows;
    }

    /** For each partition, the keys not yet asked there, leaving out the {@code settled} ones. */
    static Map<Integer, List<Integer>> complement(Partitioning.LookedUp lookup, Target.Resolution asked, Object[] keys, java.util.Set<Object> settled) {
        var complement = new LinkedHashMap<Integer, List<Integer>>();
        for (int p : lookup.partitions()) {
            var there = asked.byPartition().getOrDefault(p, List.of());
            var rest = new ArrayList<Integer>();
            for (int i = 0; i < keys.length; i++) {
                if (!there.contains(i) && !settled.contains(keys[i])) rest.add(i);
            }
            if (!rest.isEmpty()) complement.put(p, rest);
        }
        return complement;
    }

    private static int[] partitions(List<ShardQuery> queries) {
        return queries.stream().mapToInt(ShardQuery::partition).toArray();
    }

    @Override
    public String describe() {
        return "Select " + target;
    }

    /**
     * Whether, once routed, its rows come from routes alone with nothing of the router querying
     * again while they stream: not a lookup read validated by counting (its fallback asks more
     * partitions after reading), and a scatter tree {@code plain} accepts.
     */
    public boolean streamsPlainly(java.util.function.Predicate<Operator> plain) {
        return !(plainRows && target.guesses()) && (scatter == null || plain.test(scatter));
    }

    /** The tree that runs for the given parameters: the pushdown route when they resolve to one partition. */
    public Operator chosen(Context ctx) throws SQLException {
        Target.Resolution r = ctx.explaining() ? target.guess(ctx) : target.exact(ctx);
        ctx.remember(target, r);
        if (r.size() == 1) return pushdown;
        if (scatter == null) throw refusal;
        return scatter;
    }

    @Override
    public List<Operator> inputs() {
        return scatter == null ? List.of(pushdown) : List.of(pushdown, scatter);
    }
}
