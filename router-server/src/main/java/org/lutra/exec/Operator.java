package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;

import java.sql.SQLException;
import java.util.List;

/**
 * A node of a query plan. Plans are immutable trees of operators built once per statement text
 * and shared by every session; {@link #open} runs one execution and returns its rows as a stream
 * the caller must close. One file per operator; each wraps its inputs as fields.
 */
public interface Operator {
    RowSource open(Context ctx) throws java.sql.SQLException;

    /** One line for EXPLAIN ROUTE: what the operator does (not its inputs). */
    String describe();

    List<Operator> inputs();

    /** The shard SQL this operator sends, per partition, for EXPLAIN ROUTE; empty if it sends none itself. */
    default List<ShardQuery> shardQueries(Context ctx) throws SQLException {
        return List.of();
    }
}
