package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import java.sql.SQLException;
import java.util.List;

/**
 * A node of a plan's tree, read or write: what EXPLAIN ROUTE draws. A read's nodes are {@link Operator}s (opened, they
 * stream rows), a write's are {@link Write}s (run, they count rows); a write's inputs may be reads (the rows it reads first).
 */
public interface Node {
    /** One line for EXPLAIN ROUTE: what the node does (not its inputs). */
    String describe();

    List<? extends Node> inputs();

    /** The shard SQL this node sends, per partition, for EXPLAIN ROUTE; empty if it sends none itself. */
    default List<ShardQuery> shardQueries(Context ctx) throws SQLException {
        return List.of();
    }
}
