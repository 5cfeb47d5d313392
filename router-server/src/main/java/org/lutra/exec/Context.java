package org.lutra.exec;

import org.lutra.protocol.Value;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One execution of a plan: the client's parameters, the way to the shards, the router's
 * counters, and the partitions each route resolved to (a route resolves once per execution:
 * the pushdown decision and the operator tree see the same partitions).
 */
public final class Context {
    private final List<Value> params;
    private final Shards shards;
    private final Stats stats;
    private final Map<Target, Target.Resolution> resolved;
    private final java.util.BitSet touched;
    private boolean explaining;

    public Context(List<Value> params, Shards shards, Stats stats) {
        this(params, shards, stats, new IdentityHashMap<>(), new java.util.BitSet());
    }

    private Context(List<Value> params, Shards shards, Stats stats, Map<Target, Target.Resolution> resolved, java.util.BitSet touched) {
        this.params = params;
        this.shards = shards;
        this.stats = stats;
        this.resolved = resolved;
        this.touched = touched;
    }

    /** The same execution with the parameters the operators below see (resolutions and touched partitions shared). */
    Context withParams(List<Value> replaced) {
        var ctx = new Context(replaced, shards, stats, resolved, touched);
        ctx.explaining = explaining;
        return ctx;
    }

    /** A context for EXPLAIN ROUTE: routes resolve from the placement rules and lookup caches alone, asking no shard. */
    public static Context explain(List<Value> params, Stats stats) {
        var ctx = new Context(params, null, stats);
        ctx.explaining = true;
        return ctx;
    }

    boolean explaining() {
        return explaining;
    }

    public List<Value> params() {
        return params;
    }

    public Shards shards() {
        return shards;
    }

    public Stats stats() {
        return stats;
    }

    /** Counts the partitions the statement sent sub-queries to (reported to the client with the result). */
    void touched(List<ShardQuery> queries) {
        for (var q : queries) touched.set(q.partition());
    }

    void touched(int partition) {
        touched.set(partition);
    }

    public int partitionsTouched() {
        return touched.cardinality();
    }

    Target.Resolution resolved(Target target) {
        return resolved.get(target);
    }

    void remember(Target target, Target.Resolution resolution) {
        resolved.put(target, resolution);
    }
}
