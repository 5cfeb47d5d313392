package org.lutra.exec;

import org.lutra.placement.MoveFence;
import org.lutra.placement.ReplicaScans;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;
import org.lutra.merge.UnionRows;
import org.lutra.sql.SqlTemplate;

import java.sql.SQLException;
import java.util.List;

/**
 * The leaf of every query plan: sends one SQL text (cut per partition when its routing column
 * is an IN list) to the partitions its {@link Target} resolves to, and concatenates their rows.
 * Operators that must see each partition's stream on its own (merge-sort) use {@link #openEach}.
 */
public final class Route implements Operator {
    private final Target target;
    private final String sql;
    private final SqlTemplate template;

    /**
     * @param template the statement cut around its IN list on the routing column, or null
     */
    public Route(Target target, String sql, SqlTemplate template) {
        this.target = target;
        this.sql = sql;
        this.template = template;
    }

    public Target target() {
        return target;
    }

    public String sql() {
        return sql;
    }

    public SqlTemplate template() {
        return template;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        return new UnionRows(openEach(ctx));
    }

    /** One row stream per partition, in the order the partitions resolved. */
    public List<RowSource> openEach(Context ctx) throws SQLException {
        target.replicaLocks().check(target.table(), ctx.shards());
        Target.Resolution r = resolution(ctx);
        String group = target.scannedGroup(r);
        String bySecondary = target.secondaryGroup(ctx.params());
        MoveFence.Held held = bySecondary != null && ctx.locks() != null ? ctx.locks().fence(bySecondary) : null;
        if (group == null && held != null && r.keys() == null) group = bySecondary; // one partition too: read before a move commits
        var queries = group != null ? target.cut(r, sql, template, ctx.params()) : shardQueries(ctx);
        ctx.stats().statement(ShardQuery.partitions(queries));
        ctx.touched(queries);
        if (group != null && (queries.size() > 1 || held != null) && ctx.locks() != null && ctx.shards().lockingRead(sql)) {
            ctx.locks().holdLockingFence(group, MoveFence.readerPartition(queries)); // until the statement's rows are read: see LockingScan
            return ctx.shards().lockingScan(queries, copies(ctx));
        }
        // a scan asks about replicated keys in the snapshots it reads in, not before them (ReplicaScans)
        return group != null ? ctx.shards().scan(group, queries, copies(ctx), held) : ctx.shards().query(queries);
    }

    @Override
    public List<ShardQuery> shardQueries(Context ctx) throws SQLException {
        Target.Resolution r = resolution(ctx);
        var queries = target.cut(r, sql, template, ctx.params());
        if (r.keys() == null && !ctx.explaining() && target.table().partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp) {
            return ReplicaScans.filter(ctx.shards(), copies(ctx), queries); // no key named: each replicated key's rows once
        }
        if (r.copies() && target.keys() instanceof org.lutra.sql.KeyMatch.Range) {
            // a range's statement, whole on each partition, would also read the copies kept there for keys whose primary is
            // elsewhere, counting a replicated key's rows once per copy; the keys' home rows are locked: no replication in between
            return copies(ctx).scansWithoutCopies(queries);
        }
        return queries;
    }

    private Target.Resolution resolution(Context ctx) throws SQLException {
        Target.Resolution r = ctx.resolved(target);
        if (r == null) {
            r = ctx.explaining() ? target.guess(ctx) : target.exact(ctx);
            ctx.remember(target, r);
        }
        return r;
    }

    private ReplicaScans.Copies copies(Context ctx) {
        return new ReplicaScans.Copies(target.table(), target.groupColumns(), ctx.shards());
    }

    @Override
    public String describe() {
        return "Route " + target;
    }

    @Override
    public List<Operator> inputs() {
        return List.of();
    }
}
