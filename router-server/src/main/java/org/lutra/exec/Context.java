package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.backend.ShardQuery;
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
    /** The statement's home-row locks, shared by the contexts its operators open for sub-plans. */
    private final HomeRows.Locks locks;
    private boolean explaining;

    public Context(List<Value> params, Shards shards, Stats stats) {
        this(params, shards, stats, new IdentityHashMap<>(), new java.util.BitSet(), shards == null ? null : new HomeRows.Locks(shards));
    }

    private Context(List<Value> params, Shards shards, Stats stats, Map<Target, Target.Resolution> resolved, java.util.BitSet touched,
                    HomeRows.Locks locks) {
        this.params = params;
        this.shards = shards;
        this.stats = stats;
        this.resolved = resolved;
        this.touched = touched;
        this.locks = locks;
    }

    /** A context for a sub-plan of the same statement, with its own parameters: the same shards, counters and locks. */
    public Context with(List<Value> params) {
        var child = new Context(params, shards, stats, new IdentityHashMap<>(), new java.util.BitSet(), locks);
        child.explaining = explaining;
        return child;
    }

    /** The same execution with the parameters the operators below see (resolutions, touched partitions and locks shared). */
    Context withParams(List<Value> replaced) {
        var ctx = new Context(replaced, shards, stats, resolved, touched, locks);
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

    /** Where the statement reports the routing keys it reads; EXPLAIN reports none. */
    org.lutra.trace.KeyTrace trace() {
        return shards == null ? org.lutra.trace.KeyTrace.NONE : shards.trace();
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

    /** Where the statement's home-row locks are taken ({@link HomeRows}): held until its rows are read or closed. */
    HomeRows.Locks locks() {
        return locks;
    }

    /**
     * {@code rows}, releasing the home rows' locks the statement took — before it returned them, or
     * later, by a fallback while they are read — when they are read to the end or closed.
     */
    public org.lutra.merge.RowSource releasing(org.lutra.merge.RowSource rows) {
        return new org.lutra.merge.RowSource() {
            @Override
            public List<org.lutra.protocol.Column> columns() {
                return rows.columns();
            }

            @Override
            public org.lutra.protocol.Row next() throws java.sql.SQLException {
                org.lutra.protocol.Row row;
                try {
                    row = rows.next();
                } catch (java.sql.SQLException | RuntimeException e) {
                    close();
                    throw e;
                }
                if (row == null) close();
                return row;
            }

            @Override
            public void close() {
                rows.close();
                release();
            }
        };
    }

    /** Releases every home-row lock the statement holds. */
    public void release() {
        if (locks != null) locks.close();
    }
}
