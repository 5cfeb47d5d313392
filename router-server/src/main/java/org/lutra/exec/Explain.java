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
     * EXPLAIN ROUTE of a plan: its tree, a read's or a write's (with the statement each partition gets where a write's keys
     * name them; an INSERT's rows are split by their routing column when it runs).
     */
    public static List<Line> route(Plan statement, Context ctx, Catalog catalog) throws SQLException {
        return switch (statement) {
            case Plan.Query q -> of(q.root(), ctx, catalog);
            case Plan.Writing w -> of(w, ctx, catalog);
            default -> throw org.lutra.protocol.Refusal.of("EXPLAIN ROUTE of this statement is not supported");
        };
    }

    public static List<Line> of(Node root, Context ctx, Catalog catalog) throws SQLException {
        var out = new ArrayList<Line>();
        walk(root, ctx, catalog, 0, out);
        return out;
    }

    private static void walk(Node op, Context ctx, Catalog catalog, int depth, List<Line> out) throws SQLException {
        String indent = "  ".repeat(depth);
        out.add(new Line(indent + op.describe(), "", ""));
        if (op instanceof Choice choice) {
            walk(choice.chosen(ctx), ctx, catalog, depth + 1, out);
            return;
        }
        for (ShardQuery q : op.shardQueries(ctx)) {
            out.add(new Line(indent + "  -> " + catalog.partition(q.partition()).name(), catalog.partition(q.partition()).name(), q.sql()));
        }
        for (Node in : op.inputs()) walk(in, ctx, catalog, depth + 1, out);
    }
}
