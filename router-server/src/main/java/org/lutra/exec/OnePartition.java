package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A statement over tables that are not co-located, each pinned to its keys by the WHERE clause
 * that reads it (or replicated, or on one partition): where this execution's keys put every
 * table's rows on one partition — TPC-C's StockLevel, whose warehouse constants bind both tables
 * to the same partition — the statement runs there whole, unchanged, and MySQL answers it as
 * written; else {@code otherwise}, the plan over several partitions, runs (or its refusal).
 *
 * <p>Keys of lookup tables are found as any read of them finds them ({@link Target#exact}: their
 * home rows, locked until the statement's rows are read), so no move takes their rows away.
 */
public final class OnePartition implements Choice {
    private final List<Target> targets;
    private final String sql;
    private final Operator otherwise;
    private final SQLException refusal;

    /**
     * @param targets   each table's routing (replicated tables: their replicas)
     * @param sql       the whole statement, as each partition would get it
     * @param otherwise the plan over several partitions, or null with {@code refusal} saying why there is none
     */
    public OnePartition(List<Target> targets, String sql, Operator otherwise, SQLException refusal) {
        this.targets = List.copyOf(targets);
        this.sql = sql;
        this.otherwise = otherwise;
        this.refusal = refusal;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        return chosen(ctx).open(ctx);
    }

    @Override
    public Operator chosen(Context ctx) throws SQLException {
        int partition = partition(ctx);
        if (partition >= 0) {
            var whole = new TableDef("(statement)", List.of(), new Partitioning.Replicated(new int[] {partition}), "");
            return new Route(new Target(whole, null), sql, null);
        }
        if (otherwise == null) throw refusal;
        return otherwise;
    }

    /** The one partition every pinned table's keys resolve to, where each replicated table has a replica; else -1. */
    private int partition(Context ctx) throws SQLException {
        int pinned = -1;
        var replicas = new ArrayList<int[]>();
        for (Target t : targets) {
            if (t.table().partitioning() instanceof Partitioning.Replicated || t.keys() == null) {
                replicas.add(t.table().partitioning().partitions());
                continue;
            }
            Target.Resolution r = ctx.resolved(t);
            if (r == null) {
                r = ctx.explaining() ? t.guess(ctx) : t.exact(ctx);
                ctx.remember(t, r);
            }
            if (r.size() != 1) return -1;
            int p = r.partitions()[0];
            if (pinned >= 0 && p != pinned) return -1;
            pinned = p;
        }
        if (pinned < 0) return -1; // nothing pinned: the planner sends such statements whole where the tables all are
        for (int[] on : replicas) {
            boolean there = false;
            for (int p : on) there |= p == pinned;
            if (!there) return -1;
        }
        return pinned;
    }

    @Override
    public String describe() {
        return "OnePartition: where " + String.join(", ", targets.stream().map(t -> t.table().name()).distinct().toList())
                + " meet on one partition, the statement there whole; else:";
    }

    @Override
    public List<Operator> inputs() {
        return otherwise == null ? List.of() : List.of(otherwise);
    }
}
