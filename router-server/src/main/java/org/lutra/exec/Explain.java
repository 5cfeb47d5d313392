package org.lutra.exec;

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
