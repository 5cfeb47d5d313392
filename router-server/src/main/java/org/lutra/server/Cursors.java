package org.lutra.server;

import org.lutra.exec.Result;
import org.lutra.backend.Warnings;
import org.lutra.merge.LimitRows;
import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Execute;
import org.lutra.protocol.ResultSet;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.UpdateResult;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One session's open result sets: a statement's reply (an update count, or its rows' first batch), and
 * cursors the client pulls the rest of with Fetch; each holds its backend connections until it is drained
 * or closed.
 */
final class Cursors implements AutoCloseable {
    static final int DEFAULT_FETCH_SIZE = 1000;
    static final int MAX_OPEN_CURSORS = 64;
    /** A batch stops growing at this size, well under the frame limit, whatever fetch size asks. */
    private static final int BATCH_BYTES = 4 << 20;

    /** Rows a session may have the router hold for an open result set once it holds its share of backend connections. */
    static final int BUFFERED_RESULT_BYTES = 16 << 20;

    /**
     * @param holdsConnections whether its rows may still stream from shards on pooled connections (auto-commit)
     * @param warnings         its statement's warnings: a partition's are known once its rows are read, sent with the batch that read them
     */
    private record Cursor(RowSource rows, int fetchSize, boolean holdsConnections, Warnings warnings) {}

    private final Map<Long, Cursor> cursors = new HashMap<>();
    /** Column lists sent to this session, so that a statement run again is told "same columns" (Execute.known_columns). */
    private final ColumnsSent columnsSent = new ColumnsSent();
    private long nextCursorId = 1;
    /** Open result sets of this session that may hold pooled backend connections, at most ({@link #withinConnectionShare}). */
    private final int maxStreamingCursors;
    /** Whether the session is in a transaction (its result sets stream from pinned connections, not pooled ones). */
    private final BooleanSupplier inTransaction;

    Cursors(int maxStreamingCursors, BooleanSupplier inTransaction) {
        this.maxStreamingCursors = maxStreamingCursors;
        this.inTransaction = inTransaction;
    }

    /** Refuses a statement while the session has the most open result sets it may. */
    void requireRoom() throws SQLException {
        if (cursors.size() >= MAX_OPEN_CURSORS) {
            throw new SQLException("too many open result sets on this connection (" + MAX_OPEN_CURSORS + "); close some", "HY000", 0);
        }
    }

    ServerMessage.Builder reply(Result result, Execute request, Warnings warnings) throws SQLException {
        return switch (result) {
            case Result.Count c -> {
                var update = UpdateResult.newBuilder().setUpdateCount(c.count()).setPartitions(c.partitions()).addAllWarnings(warnings.unsent());
                if (request.getReturnGeneratedKeys()) for (long key : c.keys()) update.addGeneratedKeys(key);
                // as Connector/J reads an UPDATE's OK packet: its insert id, when not 0, is the generated key
                if (request.getReturnGeneratedKeys() && c.insertIdSet().orElse(0) != 0) update.addGeneratedKeys(c.insertIdSet().getAsLong());
                update.setInsertId(okInsertId(c));
                yield ServerMessage.newBuilder().setUpdateResult(update);
            }
            case Result.Rows r -> {
                RowSource rows = request.getMaxRows() > 0 ? new LimitRows(r.rows(), request.getMaxRows()) : r.rows();
                int fetchSize = request.getFetchSize() > 0 ? request.getFetchSize() : DEFAULT_FETCH_SIZE;
                var cursor = new Cursor(rows, fetchSize, !inTransaction.getAsBoolean(), warnings);
                try {
                    var first = batch(cursor, fetchSize);
                    if (!first.getLast()) withinConnectionShare(first.getCursorId(), cursor);
                    var header = ResultSet.newBuilder().setFirstBatch(first).setPartitions(r.partitions());
                    columnsSent.describe(header, request.getKnownColumns(), rows.columns());
                    yield ServerMessage.newBuilder().setResultSet(header);
                } catch (SQLException | RuntimeException e) {
                    rows.close();
                    cursors.values().remove(cursor);
                    throw e;
                }
            }
        };
    }

    /**
     * What MySQL's OK packet says the statement's insert id was (MariaDB's {@code mysql_insert}): the first id
     * generated, else the argument of LAST_INSERT_ID(expr), else the AUTO_INCREMENT column of the last row
     * written with an explicit value; 0 if none.
     */
    static long okInsertId(Result.Count c) {
        if (c.generated().length > 0) return c.generated()[0];
        if (c.insertIdSet().isPresent()) return c.insertIdSet().getAsLong();
        return c.keys().length > 0 ? c.keys()[c.keys().length - 1] : 0;
    }

    /**
     * Keeps one session from taking a partition's pool: an open result set streaming from the
     * shards holds a pooled connection on each. Past {@link #maxStreamingCursors} of them, the
     * rest of a new one is read into the router (up to {@link #BUFFERED_RESULT_BYTES}) and its
     * connections go back to the pools; a larger one is refused, and the session goes on.
     */
    private void withinConnectionShare(long id, Cursor cursor) throws SQLException {
        if (!cursor.holdsConnections() || cursors.values().stream().filter(Cursor::holdsConnections).count() <= maxStreamingCursors) return;
        var rest = new ArrayList<Row>();
        long bytes = 0;
        for (Row row; (row = cursor.rows().next()) != null; ) {
            bytes += row.getSerializedSize();
            if (bytes > BUFFERED_RESULT_BYTES) {
                throw new SQLException("this session already streams " + maxStreamingCursors + " open result sets from the shards (the most one"
                        + " session may, a quarter of a partition's pool), and the rest of this one is over the " + (BUFFERED_RESULT_BYTES >> 20)
                        + " MB the router holds instead: close or read to the end another result set first", "HY000", 0);
            }
            rest.add(row);
        }
        cursor.rows().close();
        cursors.put(id, new Cursor(new ListRows(cursor.rows().columns(), rest), cursor.fetchSize(), false, cursor.warnings()));
    }

    ServerMessage.Builder fetch(long cursorId, int fetchSize) throws SQLException {
        Cursor cursor = cursors.get(cursorId);
        if (cursor == null) {
            throw new SQLException("no open result set with cursor id " + cursorId + " (closed or never opened)", "24000", 0);
        }
        try {
            return ServerMessage.newBuilder().setRowBatch(batch(cursor, fetchSize > 0 ? fetchSize : cursor.fetchSize()));
        } catch (SQLException | RuntimeException e) {
            closeCursor(cursorId);
            throw e;
        }
    }

    void closeCursor(long cursorId) {
        Cursor cursor = cursors.remove(cursorId);
        if (cursor != null) cursor.rows().close();
    }

    /** Up to {@code size} rows; registers the cursor if rows remain, forgets it when done. */
    private RowBatch batch(Cursor cursor, int size) throws SQLException {
        var batch = RowBatch.newBuilder();
        int bytes = 0;
        while (batch.getRowsCount() < size && bytes < BATCH_BYTES) {
            var row = cursor.rows().next();
            if (row == null) {
                cursor.rows().close();
                cursors.values().remove(cursor);
                return batch.setLast(true).addAllWarnings(cursor.warnings().unsent()).build();
            }
            batch.addRows(row);
            bytes += row.getSerializedSize();
        }
        long id = cursors.entrySet().stream().filter(e -> e.getValue() == cursor).map(Map.Entry::getKey).findFirst().orElse(0L);
        if (id == 0) {
            id = nextCursorId++;
            cursors.put(id, cursor);
        }
        return batch.setCursorId(id).addAllWarnings(cursor.warnings().unsent()).build();
    }

    /** The client is gone: close its result sets. */
    @Override
    public void close() {
        cursors.values().forEach(c -> c.rows().close());
        cursors.clear();
    }
}
