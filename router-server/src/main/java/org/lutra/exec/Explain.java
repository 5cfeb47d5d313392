package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.catalog.Catalog;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * EXPLAIN ROUTE: the operator tree that runs for the given parameters, one line per operator
 * (indented by depth), followed by one line per sub-query with its partition and SQL. Routes
 * resolve from the placement rules and the lookup caches alone: a stale lookup entry shows as
 * the partition the router would try first.
 */
public final class Explain {
    /** One line of the answer: the tree drawing, and for sub-queries the partition and its SQL. */
    public record Line(String operator, String partition, String sql) {}

    private Explain() {}

    /**
     * EXPLAIN ROUTE of a plan: a read's operator tree; a write's kind and table, with the statement each partition gets
     * where its keys name them (an INSERT's rows are split by their routing column when it runs).
     */
    public static List<Line> route(Plan statement, Context ctx, Catalog catalog) throws SQLException {
        return switch (statement) {
            case Plan.Query q -> of(q.root(), ctx, catalog);
            case Plan.Routed r -> write(catalog, "Write " + r.table().name(), Routes.primary(ctx.stats(), r, ctx.params()));
            case Plan.CopiesLockedFirst w when w.write() instanceof Plan.Routed r -> write(catalog, "Write " + r.table().name()
                    + " (after locking reads of its subqueries' REPLICATED tables)", Routes.primary(ctx.stats(), r, ctx.params()));
            case Plan.Insert i -> write(catalog, "Insert " + i.table().name() + " (" + i.rows().itemCount() + " rows, split by their routing column)", List.of());
            case Plan.RowsMoved m -> {
                // the rows read with their new values as a locking read; each then deleted by key and inserted where its value places it
                var move = new ArrayList<>(write(catalog, "Move rows of " + m.table().name() + " (UPDATE of its routing column): read locked,"
                        + " delete each by its old routing value and primary key, insert it where its new value places it", List.of()));
                for (var l : of(m.read().root(), ctx, catalog)) move.add(new Line("  " + l.operator(), l.partition(), l.sql()));
                yield move;
            }
            case Plan.WriteAfterSubqueries w -> {
                // the subqueries run first (as locking reads where InnoDB would lock); the write is planned once their values are in
                var rounds = new ArrayList<>(write(catalog, "Write " + w.table().name() + " after its subqueries, their values bound into it", List.of()));
                for (var sub : w.locking() != null ? w.locking() : w.plain()) {
                    for (var l : of(sub.plan(), ctx, catalog)) rounds.add(new Line("  " + l.operator(), l.partition(), l.sql()));
                }
                yield rounds;
            }
            default -> throw org.lutra.protocol.Refusal.of("EXPLAIN ROUTE of this statement is not supported");
        };
    }

    private static List<Line> write(Catalog catalog, String head, List<ShardQuery> queries) {
        var out = new ArrayList<Line>();
        out.add(new Line(head, "", ""));
        for (var q : queries) {
            String name = catalog.partition(q.partition()).name();
            out.add(new Line("  -> " + name, name, q.sql()));
        }
        return out;
    }

    public static List<Line> of(Operator root, Context ctx, Catalog catalog) throws SQLException {
        var out = new ArrayList<Line>();
        walk(root, ctx, catalog, 0, out);
        return out;
    }

    private static void walk(Operator op, Context ctx, Catalog catalog, int depth, List<Line> out) throws SQLException {
        String indent = "  ".repeat(depth);
        out.add(new Line(indent + op.describe(), "", ""));
        if (op instanceof Choice choice) {
            walk(choice.chosen(ctx), ctx, catalog, depth + 1, out);
            return;
        }
        for (ShardQuery q : op.shardQueries(ctx)) {
            out.add(new Line(indent + "  -> " + catalog.partition(q.partition()).name(), catalog.partition(q.partition()).name(), q.sql()));
        }
        for (Operator in : op.inputs()) walk(in, ctx, catalog, depth + 1, out);
    }
}
