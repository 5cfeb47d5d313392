package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;

import java.util.List;

/**
 * A node of a query plan. Plans are immutable trees of operators built once per statement text
 * and shared by every session; {@link #open} runs one execution and returns its rows as a stream
 * the caller must close. One file per operator; each wraps its inputs as fields. Writes are the
 * other kind of {@link Node} ({@link Write}).
 */
public interface Operator extends Node {
    RowSource open(Context ctx) throws java.sql.SQLException;

    @Override
    List<Operator> inputs();
}
