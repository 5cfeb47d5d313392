package org.lutra.jdbc;

import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.CloseCursor;
import org.lutra.protocol.Column;
import org.lutra.protocol.Fetch;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A read-only result from a router cursor: forward-only and streamed, or (for a statement of
 * TYPE_SCROLL_INSENSITIVE) read whole when it arrives and then scrolled in memory — the cursor
 * is closed at once, so the rows are those of the moment the statement ran.
 *
 * <p>It holds one RowBatch at a time. When the batch is used up and the router has not said
 * {@code last}, it sends Fetch(cursor_id) for the next one. A batch marked {@code last} means the
 * router has already closed the cursor; otherwise {@link #close} sends CloseCursor, so that a
 * result abandoned half-way does not pin rows or shard connections on the router.
 */
public final class LutraResultSet extends ResultSetGetters {
    private final LutraStatement statement;
    private final List<Column> columns;
    private final ResultColumns columnIndex;
    private final long maxRows;
    private final int partitions;
    private List<Row> rows;
    private int position = -1; // index of the current row in rows
    private long cursorId;
    private boolean cursorOpen;
    private long rowNumber; // 1-based number of the current row; rows delivered so far
    private boolean afterLast;
    private boolean closed;
    private int fetchSize;
    private SQLException fetchFailure; // a failed Fetch leaves a gap in the rows: no more next()
    /** TYPE_SCROLL_INSENSITIVE: every row is in {@code rows}, no cursor; position == rowNumber - 1 except after the last. */
    private final boolean scrollable;

    LutraResultSet(LutraStatement statement, org.lutra.protocol.ResultSet header) throws SQLException {
        this(statement, header, new ResultColumns(0, header.getColumnsList()));
    }

    /** @param columns the header's columns, or the statement's previous ones when the header says {@code same_columns} */
    LutraResultSet(LutraStatement statement, org.lutra.protocol.ResultSet header, ResultColumns columns) throws SQLException {
        this.statement = statement;
        this.columns = columns.list;
        this.columnIndex = columns;
        this.maxRows = statement.maxRows();
        this.fetchSize = statement.fetchSize();
        this.partitions = header.getPartitions();
        take(header.getFirstBatch());
        this.scrollable = statement.scrollable();
        if (scrollable) readWhole();
    }

    /** Reads every row (up to maxRows) into memory and lets the router's cursor go. */
    private void readWhole() throws SQLException {
        var all = new java.util.ArrayList<>(rows);
        while (cursorOpen && (maxRows == 0 || all.size() < maxRows)) {
            fetch();
            all.addAll(rows);
        }
        closeCursor();
        rows = maxRows > 0 && all.size() > maxRows ? List.copyOf(all.subList(0, (int) maxRows)) : all;
        position = -1;
    }

    static String label(Column c) {
        return ResultColumns.label(c);
    }

    private void take(RowBatch batch) {
        statement.warned(batch.getWarningsList());
        rows = batch.getRowsList();
        position = -1;
        if (batch.getCursorId() != 0) {
            cursorId = batch.getCursorId();
        }
        cursorOpen = cursorId != 0 && !batch.getLast();
    }

    /** True if a row is buffered after the current one, fetching batches as needed. */
    private boolean buffered() throws SQLException {
        while (position + 1 >= rows.size()) {
            if (!cursorOpen) {
                return false;
            }
            fetch();
        }
        return true;
    }

    private void fetch() throws SQLException {
        var session = statement.connection.session();
        var fetch = Fetch.newBuilder().setCursorId(cursorId).setFetchSize(fetchSize);
        ServerMessage answer;
        try {
            answer = session.call(ClientMessage.newBuilder().setFetch(fetch), statement.queryTimeoutMs());
        } catch (java.sql.SQLTimeoutException e) {
            // The abandoned batch will be discarded, so reading on would skip rows silently.
            // The cursor is still open on the router: close() still sends CloseCursor.
            fetchFailure = e;
            throw e;
        } catch (SQLException e) {
            cursorOpen = false; // after an Error the router has dropped the cursor
            fetchFailure = e;
            throw e;
        }
        if (!answer.hasRowBatch()) {
            throw session.unexpected(answer, "Fetch");
        }
        take(answer.getRowBatch());
    }

    private boolean maxRowsReached() {
        return maxRows > 0 && rowNumber >= maxRows;
    }

    @Override
    public boolean next() throws SQLException {
        checkOpen();
        if (scrollable) {
            return moveTo((long) index() + 1);
        }
        if (afterLast) {
            return false;
        }
        if (fetchFailure != null) {
            throw Errors.of("result set cannot continue after a failed fetch: " + fetchFailure.getMessage(),
                    fetchFailure.getSQLState(), fetchFailure.getErrorCode(), fetchFailure);
        }
        if (maxRowsReached() || !buffered()) {
            afterLast = true;
            rows = List.of();
            position = -1;
            closeCursor(); // setMaxRows cut the result short: free the router's cursor now
            return false;
        }
        position++;
        rowNumber++;
        return true;
    }

    @Override
    Value current(int column) throws SQLException {
        checkOpen();
        if (position < 0 || afterLast) {
            throw Errors.of(afterLast ? "no current row: the result set is after its last row"
                    : "no current row: call next() first", Errors.INVALID_CURSOR_STATE);
        }
        checkIndex(column);
        Row row = rows.get(position);
        if (column > row.getValuesCount()) {
            throw Errors.of("row has " + row.getValuesCount() + " values for " + columns.size()
                    + " columns (router protocol error)", Errors.PROTOCOL_VIOLATION);
        }
        return row.getValues(column - 1);
    }

    @Override
    Column column(int column) throws SQLException {
        checkIndex(column);
        return columns.get(column - 1);
    }

    private void checkIndex(int column) throws SQLException {
        if (column < 1 || column > columns.size()) {
            throw Errors.of("column index " + column + " is out of range 1.." + columns.size(), Errors.INVALID_PARAMETER_INDEX);
        }
    }

    @Override
    public int findColumn(String label) throws SQLException {
        checkOpen();
        Integer index = label == null ? null : columnIndex.indexOf(label);
        if (index == null) {
            throw Errors.of("no column labelled '" + label + "' in this result", Errors.INVALID_COLUMN);
        }
        return index;
    }

    // ---- position --------------------------------------------------------------------------

    @Override
    public boolean isBeforeFirst() throws SQLException {
        checkOpen();
        return rowNumber == 0 && !afterLast && !maxRowsReached() && buffered();
    }

    @Override
    public boolean isAfterLast() throws SQLException {
        checkOpen();
        return afterLast && rowNumber > 0;
    }

    @Override
    public boolean isFirst() throws SQLException {
        checkOpen();
        return !afterLast && rowNumber == 1;
    }

    @Override
    public boolean isLast() throws SQLException {
        checkOpen();
        return !afterLast && rowNumber > 0 && (maxRowsReached() || !buffered());
    }

    @Override
    public int getRow() throws SQLException {
        checkOpen();
        return afterLast ? 0 : LutraStatement.saturatedInt(rowNumber);
    }

    // ---- scrolling (TYPE_SCROLL_INSENSITIVE) -----------------------------------------------

    @Override
    public boolean previous() throws SQLException {
        requireScrollable("previous");
        return moveTo((long) index() - 1);
    }

    @Override
    public boolean first() throws SQLException {
        requireScrollable("first");
        return moveTo(0);
    }

    @Override
    public boolean last() throws SQLException {
        requireScrollable("last");
        return moveTo(rows.size() - 1L);
    }

    @Override
    public void beforeFirst() throws SQLException {
        requireScrollable("beforeFirst");
        moveTo(-1);
    }

    @Override
    public void afterLast() throws SQLException {
        requireScrollable("afterLast");
        moveTo(rows.size());
    }

    /** Row {@code row} from the start (1 = first), from the end if negative (-1 = last); 0 = before the first. */
    @Override
    public boolean absolute(int row) throws SQLException {
        requireScrollable("absolute");
        return moveTo(row > 0 ? row - 1L : row < 0 ? (long) rows.size() + row : -1);
    }

    @Override
    public boolean relative(int rows) throws SQLException {
        requireScrollable("relative");
        return moveTo((long) index() + rows);
    }

    /** The current position as an index into the rows: -1 before the first, rows.size() after the last. */
    private int index() {
        return afterLast ? rows.size() : position;
    }

    /** Moves to {@code index} (clamped to before the first / after the last); whether a row is there. */
    private boolean moveTo(long index) {
        int size = rows.size();
        if (index < 0) {
            position = -1;
            rowNumber = 0;
            afterLast = false;
            return false;
        }
        if (index >= size) {
            position = size;
            rowNumber = size; // isAfterLast() is false for an empty result, as JDBC says
            afterLast = true;
            return false;
        }
        position = (int) index;
        rowNumber = index + 1;
        afterLast = false;
        return true;
    }

    private void requireScrollable(String what) throws SQLException {
        checkOpen();
        if (!scrollable) {
            throw Errors.of(what + "() on a TYPE_FORWARD_ONLY result set: create the statement with"
                    + " ResultSet.TYPE_SCROLL_INSENSITIVE to scroll", Errors.GENERAL);
        }
    }

    /** How many partitions the router ran the statement on (0 if it did not say). */
    public int getPartitions() {
        return partitions;
    }

    // ---- settings and metadata -------------------------------------------------------------

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        checkOpen();
        return new LutraResultSetMetaData(columns);
    }

    @Override
    public Statement getStatement() throws SQLException {
        checkOpen();
        return statement;
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        checkOpen();
        if (rows < 0) {
            throw Errors.of("fetch size must not be negative: " + rows, "HY024");
        }
        fetchSize = rows; // used by the next Fetch
    }

    @Override
    public int getFetchSize() throws SQLException {
        checkOpen();
        return fetchSize;
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        checkOpen();
        if (scrollable && (direction == FETCH_REVERSE || direction == FETCH_UNKNOWN)) {
            return; // a hint; the rows are all in memory
        }
        if (direction != FETCH_FORWARD) {
            throw Errors.unsupported("fetch direction " + direction + " (results are forward-only)");
        }
    }

    @Override
    public int getFetchDirection() throws SQLException {
        checkOpen();
        return FETCH_FORWARD;
    }

    @Override
    public int getType() throws SQLException {
        checkOpen();
        return scrollable ? TYPE_SCROLL_INSENSITIVE : TYPE_FORWARD_ONLY;
    }

    @Override
    public int getConcurrency() throws SQLException {
        checkOpen();
        return CONCUR_READ_ONLY;
    }

    @Override
    public int getHoldability() throws SQLException {
        checkOpen();
        return ResultSet.CLOSE_CURSORS_AT_COMMIT;
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        return null;
    }

    @Override
    public void clearWarnings() throws SQLException {
        checkOpen();
    }

    // ---- life cycle ------------------------------------------------------------------------

    private void checkOpen() throws SQLException {
        if (closed) {
            throw Errors.of("result set is closed", Errors.GENERAL);
        }
    }

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        try {
            closeFromStatement();
        } finally {
            statement.resultSetClosed(this);
        }
    }

    /** Closes without telling the statement (the statement is the one closing it). */
    void closeFromStatement() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        rows = List.of();
        closeCursor();
    }

    private void closeCursor() throws SQLException {
        if (!cursorOpen) {
            return;
        }
        cursorOpen = false;
        var session = statement.connection.session();
        if (session.isClosed()) {
            return; // the cursor died with the session
        }
        ServerMessage answer = session.call(ClientMessage.newBuilder()
                .setCloseCursor(CloseCursor.newBuilder().setCursorId(cursorId)), 0);
        if (!answer.hasOk()) {
            throw session.unexpected(answer, "CloseCursor");
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return Wrappers.isWrapperFor(this, iface);
    }
}
