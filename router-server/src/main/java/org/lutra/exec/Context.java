package org.lutra.exec;

import org.lutra.placement.HomeRows;
import org.lutra.backend.Connections;
import org.lutra.placement.Shards;
import org.lutra.backend.ShardQuery;
import org.lutra.protocol.Value;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One execution of a plan: the client's parameters, the way to the shards, the router's
 * counters, and the partitions each route resolved to (a route resolves once per execution:
 * the pushdown decision and the operator tree see the same partitions). Under the executor it
 * also holds the statement's connections and the router's {@link Services}, which writes use.
 * One statement's thread uses it; what it collects is made when first needed.
 */
public final class Context {
    private final List<Value> params;
    private final Shards shards;
    private final Stats stats;
    /** The router's services and the statement's connections; null outside the executor (a fake's shards, EXPLAIN). */
    private final Services services;
    private final Connections connections;
    private Map<Target, Target.Resolution> resolved;
    private java.util.BitSet touched;
    /** The statement's home-row locks, shared by the contexts its operators open for sub-plans. */
    private HomeRows.Locks locks;
    private boolean explaining;

    public Context(List<Value> params, Shards shards, Stats stats) {
        this(params, shards, stats, null, null);
    }

    /** The context of a statement the executor runs over {@code connections}. */
    Context(List<Value> params, Services services, Connections connections) {
        this(params, services.shards(connections), services.stats(), services, connections);
    }

    /** A context over a fake's {@code shards} with {@code services} (operators' unit tests). */
    Context(List<Value> params, Shards shards, Services services) {
        this(params, shards, services.stats(), services, null);
    }

    private Context(List<Value> params, Shards shards, Stats stats, Services services, Connections connections) {
        this.params = params;
        this.shards = shards;
        this.stats = stats;
        this.services = services;
        this.connections = connections;
    }

    /** A context for a sub-plan of the same statement, with its own parameters: the same shards, counters and locks. */
    public Context with(List<Value> params) {
        var child = new Context(params, shards, stats, services, connections);
        child.locks = locks();
        child.explaining = explaining;
        return child;
    }

    /** The same execution with the parameters the operators below see (resolutions, touched partitions and locks shared). */
    Context withParams(List<Value> replaced) {
        var ctx = new Context(replaced, shards, stats, services, connections);
        ctx.resolved = resolutions();
        ctx.touched = touchedSet();
        ctx.locks = locks();
        ctx.explaining = explaining;
        return ctx;
    }

    /**
     * A context of its own (its own resolutions and home-row locks, released by its user) for a read a write runs first,
     * with {@code params}, over the same connections.
     */
    Context read(List<Value> params) {
        return new Context(params, shards, stats, services, connections);
    }

    /** This statement's context over other connections ({@code connections} wrapped: another count, checks off, ...). */
    Context over(Connections connections) {
        return new Context(params, services, connections);
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

    /** The router's services (null outside the executor). */
    Services services() {
        return services;
    }

    /** The statement's connections: the pool's, or its transaction's (null outside the executor). */
    Connections connections() {
        return connections;
    }

    /** Where the statement reports the routing keys it reads; EXPLAIN reports none. */
    org.lutra.trace.KeyTrace trace() {
        return shards == null ? org.lutra.trace.KeyTrace.NONE : shards.trace();
    }

    /** Counts the partitions the statement sent sub-queries to (reported to the client with the result). */
    void touched(List<ShardQuery> queries) {
        var set = touchedSet();
        for (var q : queries) set.set(q.partition());
    }

    void touched(int partition) {
        touchedSet().set(partition);
    }

    public int partitionsTouched() {
        return touched == null ? 0 : touched.cardinality();
    }

    private java.util.BitSet touchedSet() {
        if (touched == null) touched = new java.util.BitSet();
        return touched;
    }

    Target.Resolution resolved(Target target) {
        return resolved == null ? null : resolved.get(target);
    }

    void remember(Target target, Target.Resolution resolution) {
        resolutions().put(target, resolution);
    }

    private Map<Target, Target.Resolution> resolutions() {
        if (resolved == null) resolved = new IdentityHashMap<>();
        return resolved;
    }

    /**
     * Where the statement's home-row locks are taken ({@link HomeRows}): held until its rows are read or closed; null
     * where no shard is asked (EXPLAIN).
     */
    HomeRows.Locks locks() {
        if (locks == null && shards != null) locks = new HomeRows.Locks(shards);
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
