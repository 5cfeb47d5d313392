package org.lutra.server.mysql;

import org.lutra.protocol.Row;

import java.util.ArrayDeque;
import java.util.List;

/**
 * A prepared statement's open cursor (COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY): the rows of
 * the core's first batch not sent yet, then the core's cursor, read by COM_STMT_FETCH as the client
 * asks, so a large result streams from the shards at the client's pace.
 *
 * @param coreCursor the session core's cursor id for the rest of the rows, 0 when the first batch was all
 */
record StatementCursor(ResultColumns columns, ArrayDeque<Row> buffered, long coreCursor) {
    StatementCursor(ResultColumns columns, List<Row> firstBatch, long coreCursor) {
        this(columns, new ArrayDeque<>(firstBatch), coreCursor);
    }
}
