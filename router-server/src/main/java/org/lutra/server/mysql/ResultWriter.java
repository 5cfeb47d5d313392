package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Fetch;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.SessionStatus;

/**
 * Sends the session core's answer to a statement the way a MySQL server does: an OK packet (affected
 * rows, insert id, status, warnings), an ERR packet, or a result set (column count, definitions,
 * rows in the text or binary protocol, then EOF). Rows are pulled from the core's cursor batch by
 * batch and written as they come; past {@link #FLUSH_BYTES} the packets built so far are written and
 * the next batch waits while the client is behind.
 */
final class ResultWriter {
    static final int FLUSH_BYTES = 64 << 10;
    /** Rows per batch pulled from the core while streaming a result. */
    static final int FETCH_ROWS = 1000;

    private final MysqlConnection connection;
    private final ClientCharset charset;
    private final boolean deprecateEof;
    private final ResultColumns.Recent recent = new ResultColumns.Recent();
    /**
     * The columns of the last text statement's result, offered to the core as known so that it can answer "the same"; ids
     * are the session core's own, so they hold only for the core that gave them (COM_RESET_CONNECTION makes a new one).
     */
    private ResultColumns lastText;
    private org.lutra.server.SessionCore lastTextCore;
    private long nextRequest = 1 << 20;

    ResultWriter(MysqlConnection connection, ClientCharset charset, boolean deprecateEof) {
        this.connection = connection;
        this.charset = charset;
        this.deprecateEof = deprecateEof;
    }

    /** The columns id to name as known in a text statement's Execute (0: none). */
    long knownTextColumns() {
        return lastText == null || lastTextCore != connection.core() ? 0 : lastText.columnsId();
    }

    boolean deprecateEof() {
        return deprecateEof;
    }

    static int status(SessionStatus s) {
        return (s.getAutocommit() ? MysqlWire.SERVER_STATUS_AUTOCOMMIT : 0) | (s.getInTransaction() ? MysqlWire.SERVER_STATUS_IN_TRANS : 0);
    }

    /**
     * Writes the answer to one statement; {@code more}: another result follows (multi-statement text).
     * {@code statement}: the prepared statement it ran as (binary rows, its column cache), null for text.
     * {@code cursor}: keep the rows for COM_STMT_FETCH. False when the answer was an error.
     */
    boolean write(ServerMessage.Builder reply, boolean more, PreparedStatements.Statement statement, boolean cursor) {
        PacketWriter out = connection.out();
        int moreFlag = more ? MysqlWire.SERVER_MORE_RESULTS_EXISTS : 0;
        switch (reply.getKindCase()) {
            case ERROR -> {
                var e = reply.getError();
                Packets.error(out, e.getVendorCode(), e.getSqlState(), e.getMessage());
                return false;
            }
            case UPDATE_RESULT -> {
                var u = reply.getUpdateResult();
                Packets.ok(out, u.getUpdateCount(), u.getInsertId(), status(reply.getStatus()) | moreFlag, u.getWarningsCount(), "");
                return true;
            }
            case RESULT_SET -> {
                rows(reply, moreFlag, statement, cursor);
                return true;
            }
            default -> {
                Packets.ok(out, 0, 0, status(reply.getStatus()) | moreFlag, 0, "");
                return true;
            }
        }
    }

    private void rows(ServerMessage.Builder reply, int moreFlag, PreparedStatements.Statement statement, boolean cursor) {
        var header = reply.getResultSet();
        ResultColumns columns;
        if (header.getSameColumns() && statement != null && statement.columns != null && statement.columns.columnsId() == header.getColumnsId()) {
            columns = statement.columns;
        } else if (header.getSameColumns() && statement == null && knownTextColumns() != 0 && lastText.columnsId() == header.getColumnsId()) {
            columns = lastText;
        } else if (statement != null) {
            columns = statement.columns = ResultColumns.of(header.getColumnsId(), header.getColumnsList(), connection.database(), charset);
        } else {
            columns = recent.get(header.getColumnsList(), connection.database(), charset);
            // kept only when no column waits to be typed by its values: "the same columns" come without the list that needs
            lastText = columns.untyped() ? null : new ResultColumns(header.getColumnsId(), columns.columns(), columns.payloads());
            lastTextCore = connection.core();
        }
        var batch = header.getFirstBatch();
        columns = typedByValues(columns, header.getColumnsList(), batch.getRowsList());
        if (statement != null) statement.columns = columns;
        PacketWriter out = connection.out();
        columns.write(out);
        if (cursor) {
            if (!deprecateEof) Packets.eof(out, status(reply.getStatus()) | MysqlWire.SERVER_STATUS_CURSOR_EXISTS, 0);
            else Packets.endOfRows(out, true, status(reply.getStatus()) | MysqlWire.SERVER_STATUS_CURSOR_EXISTS, 0);
            statement.cursor = new StatementCursor(columns, batch.getRowsList(), batch.getLast() ? 0 : batch.getCursorId());
            return;
        }
        if (!deprecateEof) Packets.eof(out, status(reply.getStatus()), 0);
        boolean binary = statement != null;
        int warnings = batch.getWarningsCount();
        SessionStatus status = reply.getStatus();
        while (true) {
            for (Row row : batch.getRowsList()) row(out, row, columns, binary);
            if (batch.getLast()) break;
            if (out.pending() > FLUSH_BYTES) connection.sendAndWait();
            if (!connection.open()) { // the client hung up: pull no more rows from the shards for it
                out.discard();
                closeCursor(batch.getCursorId());
                return;
            }
            var next = fetch(batch.getCursorId(), FETCH_ROWS);
            if (next.hasError()) {
                var e = next.getError();
                Packets.error(out, e.getVendorCode(), e.getSqlState(), e.getMessage());
                return;
            }
            batch = next.getRowBatch();
            status = next.getStatus();
            warnings += batch.getWarningsCount();
        }
        Packets.endOfRows(out, deprecateEof, status(status) | moreFlag, warnings);
    }

    /**
     * A column described as MySQL's NULL type whose first rows hold values is re-described by those values' kind: a
     * router operator can pass on a column's description from before the router typed it (the Lutra driver decodes a
     * value by its kind, a MySQL client by the column's type, and reads every value of a NULL column as NULL).
     */
    private ResultColumns typedByValues(ResultColumns columns, java.util.List<org.lutra.protocol.Column> list, java.util.List<Row> rows) {
        java.util.List<org.lutra.protocol.Column> typed = null;
        var cols = columns.columns();
        for (int i = 0; i < cols.length; i++) {
            if (cols[i].type() != MysqlWire.TYPE_NULL) continue;
            for (Row row : rows) {
                var v = row.getValues(i);
                if (v.hasIsNull() || v.getKindCase() == org.lutra.protocol.Value.KindCase.KIND_NOT_SET) continue;
                if (typed == null) typed = new java.util.ArrayList<>(list);
                typed.set(i, ofValue(list.get(i), v));
                break;
            }
        }
        return typed == null ? columns : ResultColumns.of(columns.columnsId(), typed, connection.database(), charset);
    }

    private static org.lutra.protocol.Column ofValue(org.lutra.protocol.Column c, org.lutra.protocol.Value v) {
        var b = c.toBuilder().clearMysql().setNullable(true).setScale(0);
        switch (v.getKindCase()) {
            case INT_VALUE, BOOL_VALUE -> b.setJdbcType(java.sql.Types.BIGINT).setTypeName("BIGINT").setPrecision(21);
            case DOUBLE_VALUE, FLOAT_VALUE -> b.setJdbcType(java.sql.Types.DOUBLE).setTypeName("DOUBLE").setPrecision(22);
            case DECIMAL_VALUE -> {
                var d = new java.math.BigDecimal(v.getDecimalValue());
                b.setJdbcType(java.sql.Types.DECIMAL).setTypeName("DECIMAL").setScale(Math.max(0, d.scale())).setPrecision(65);
            }
            case DATE_VALUE -> b.setJdbcType(java.sql.Types.DATE).setTypeName("DATE");
            case TIME_VALUE -> b.setJdbcType(java.sql.Types.TIME).setTypeName("TIME");
            case TIMESTAMP_VALUE -> b.setJdbcType(java.sql.Types.TIMESTAMP).setTypeName("DATETIME");
            case BYTES_VALUE -> b.setJdbcType(java.sql.Types.VARBINARY).setTypeName("VARBINARY").setPrecision(65535);
            default -> b.setJdbcType(java.sql.Types.VARCHAR).setTypeName("VARCHAR").setPrecision(65535);
        }
        return b.build();
    }

    /** COM_STMT_FETCH: up to {@code count} rows of the statement's cursor, then EOF (with LAST_ROW_SENT once it is drained). */
    void fetch(PreparedStatements.Statement statement, long count) {
        PacketWriter out = connection.out();
        var cursor = statement.cursor;
        if (cursor == null) {
            Packets.error(out, 1421, "HY000", "The statement (" + statement.id + ") has no open cursor.");
            return;
        }
        long sent = 0;
        SessionStatus status = connection.core().status();
        int warnings = 0;
        boolean drained = false;
        while (sent < count) {
            Row row = cursor.buffered().poll();
            if (row != null) {
                row(out, row, cursor.columns(), true);
                sent++;
                continue;
            }
            if (cursor.coreCursor() == 0) {
                drained = true;
                break;
            }
            if (out.pending() > FLUSH_BYTES) connection.sendAndWait();
            if (!connection.open()) {
                out.discard();
                closeCursor(statement);
                return;
            }
            var next = fetch(cursor.coreCursor(), (int) Math.min(FETCH_ROWS, count - sent));
            if (next.hasError()) {
                statement.cursor = null;
                out.discard();
                Packets.error(out, next.getError().getVendorCode(), next.getError().getSqlState(), next.getError().getMessage());
                return;
            }
            RowBatch batch = next.getRowBatch();
            status = next.getStatus();
            warnings += batch.getWarningsCount();
            cursor.buffered().addAll(batch.getRowsList());
            if (batch.getLast()) statement.cursor = cursor = new StatementCursor(cursor.columns(), cursor.buffered(), 0);
        }
        if (!drained && cursor.buffered().isEmpty() && cursor.coreCursor() == 0) drained = true;
        int flags = status(status) | (drained ? MysqlWire.SERVER_STATUS_LAST_ROW_SENT : MysqlWire.SERVER_STATUS_CURSOR_EXISTS);
        if (drained) statement.cursor = null;
        Packets.endOfRows(out, deprecateEof, flags, warnings);
    }

    /** Closes the statement's cursor in the core, if it holds one. */
    void closeCursor(PreparedStatements.Statement statement) {
        var cursor = statement.cursor;
        statement.cursor = null;
        if (cursor != null && cursor.coreCursor() != 0) closeCursor(cursor.coreCursor());
    }

    private void closeCursor(long cursorId) {
        ask(ClientMessage.newBuilder().setRequestId(nextRequest++)
                .setCloseCursor(org.lutra.protocol.CloseCursor.newBuilder().setCursorId(cursorId)).build());
    }

    private ServerMessage.Builder fetch(long cursorId, int rows) {
        return ask(ClientMessage.newBuilder().setRequestId(nextRequest++)
                .setFetch(Fetch.newBuilder().setCursorId(cursorId).setFetchSize(rows)).build());
    }

    private ServerMessage.Builder ask(ClientMessage request) {
        try {
            return connection.core().answer(request);
        } catch (org.lutra.protocol.Frames.FrameException e) {
            throw new IllegalStateException(e); // a fetch or close is always a request after login
        }
    }

    private void row(PacketWriter out, Row row, ResultColumns columns, boolean binary) {
        ByteBuf b = out.begin();
        var cols = columns.columns();
        if (binary) {
            b.writeByte(0);
            int bitmap = b.writerIndex();
            int size = (cols.length + 9) / 8;
            b.writeZero(size);
            for (int i = 0; i < cols.length; i++) {
                var v = row.getValues(i);
                if (v.hasIsNull() || v.getKindCase() == org.lutra.protocol.Value.KindCase.KIND_NOT_SET) {
                    int bit = i + 2;
                    b.setByte(bitmap + (bit >> 3), b.getByte(bitmap + (bit >> 3)) | (1 << (bit & 7)));
                } else {
                    BinaryValues.write(b, v, cols[i], charset);
                }
            }
        } else {
            for (int i = 0; i < cols.length; i++) TextValues.write(b, row.getValues(i), cols[i], charset);
        }
        out.end();
    }
}
