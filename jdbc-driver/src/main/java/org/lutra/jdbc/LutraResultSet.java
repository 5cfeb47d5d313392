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
import java.util.List;

/**
 * A result from a router cursor: forward-only and streamed, or (for a statement of
 * TYPE_SCROLL_INSENSITIVE or CONCUR_UPDATABLE) read whole when it arrives and then held in memory
 * — the cursor is closed at once, so the rows are those of the moment the statement ran, changed
 * only by this result's own updateRow/deleteRow/insertRow ({@link UpdatableRows}).
 *
 * <p>It holds one RowBatch at a time. When the batch is used up and the router has not said
 * {@code last}, it sends Fetch(cursor_id) for the next one. A batch marked {@code last} means the
 * router has already closed the cursor; otherwise {@link #close} sends CloseCursor, so that a
 * result abandoned half-way does not pin rows or shard connections on the router.
 *
 * <p>Its length is java.sql.ResultSet's cursor half (39 overrides: movement, metadata, updates
 * handed to {@link UpdatableRows}); the getters are {@link ResultSetGetters}.
 */
public final class LutraResultSet extends ResultSetUpdaters {
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
    /** CONCUR_UPDATABLE: every row is in {@code rows} (a mutable list), as for scrolling; null for a read-only result. */
    private final UpdatableRows updatable;
    /** The current row's pending updateXxx values (null entries: unchanged), or null if none is pending. */
    private Value[] changes;
    /** The insert row's values (null entries: not set), or null when the cursor is not on the insert row. */
    private Value[] insertRow;
    private SQLWarning warnings;

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
        boolean concurUpdatable = statement.updatable();
        if (scrollable || concurUpdatable) readWhole();
        this.updatable = concurUpdatable ? UpdatableRows.inspect(statement.connection, columns.list) : null;
        if (updatable != null && !updatable.updatable()) {
            warnings = new SQLWarning(updatable.reason() + " The result set is CONCUR_READ_ONLY.", UpdatableRows.STATE);
        }
    }

    /** Whether every row is held in memory (scrollable or updatable), rather than streamed from a cursor. */
    private boolean inMemory() {
        return scrollable || updatable != null;
    }

    /** Reads every row (up to maxRows) into memory and lets the router's cursor go. */
    private void readWhole() throws SQLException {
        var all = new java.util.ArrayList<>(rows);
        while (cursorOpen && (maxRows == 0 || all.size() < maxRows)) {
            fetch();
            all.addAll(rows);
        }
        closeCursor();
        rows = maxRows > 0 && all.size() > maxRows ? new java.util.ArrayList<>(all.subList(0, (int) maxRows)) : all;
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

    /** A streamed result stops at maxRows (rows held in memory were cut to it when read, and insertRow may add more). */
    private boolean maxRowsReached() {
        return !inMemory() && maxRows > 0 && rowNumber >= maxRows;
    }

    @Override
    public boolean next() throws SQLException {
        checkOpen();
        if (inMemory()) {
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
        if (insertRow != null) {
            checkIndex(column);
            return insertRow[column - 1] == null ? Values.NULL : insertRow[column - 1];
        }
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
        insertRow = null; // leaving the insert row or the current row drops what was set there, as in Connector/J
        changes = null;
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

    // ---- updates (CONCUR_UPDATABLE), as Connector/J's UpdatableResultSet behaves -------------

    private UpdatableRows writable() throws SQLException {
        checkOpen();
        if (updatable == null) throw UpdatableRows.readOnly();
        updatable.check();
        return updatable;
    }

    /** On the insert row the value is what getXxx then reads; on a row it waits for updateRow (getXxx still reads the old one). */
    @Override
    void update(int column, Value value) throws SQLException {
        writable();
        checkIndex(column);
        if (insertRow != null) {
            insertRow[column - 1] = value;
            return;
        }
        currentRow("updateXxx");
        if (changes == null) changes = new Value[columns.size()];
        changes[column - 1] = value;
    }

    private Row currentRow(String what) throws SQLException {
        if (rows.isEmpty() || position < 0 || afterLast) {
            throw Errors.of("no current row for " + what + ": the result set is " + (afterLast ? "after its last row" : "before its first row"),
                    Errors.INVALID_CURSOR_STATE);
        }
        return rows.get(position);
    }

    /** Writes the pending updates with one UPDATE by the row's key, then reads the row back (by its new key). */
    @Override
    public void updateRow() throws SQLException {
        var table = writable();
        if (insertRow != null) throw Errors.of("Can not call updateRow() when on insert row.", UpdatableRows.STATE);
        if (changes == null) return;
        Row row = currentRow("updateRow");
        table.update(row, changes);
        rows.set(position, reread(table, table.keyValues(row.getValuesList(), changes)));
        changes = null;
    }

    @Override
    public void cancelRowUpdates() throws SQLException {
        if (updatable == null) writable();
        changes = null;
    }

    /** Deletes the row by its key and drops it from the result; the cursor moves to the row before, as in Connector/J. */
    @Override
    public void deleteRow() throws SQLException {
        var table = writable();
        if (insertRow != null) throw Errors.of("Can not call deleteRow() when on insert row.", UpdatableRows.STATE);
        if (rows.isEmpty()) throw Errors.of("Can not call deleteRow() on empty result set.", UpdatableRows.STATE);
        if (position < 0) throw Errors.of("Before start of result set. Can not call deleteRow().", UpdatableRows.STATE);
        if (afterLast) throw Errors.of("After end of result set. Can not call deleteRow().", UpdatableRows.STATE);
        table.delete(rows.get(position));
        rows.remove(position);
        moveTo(position - 1L);
    }

    /** Reads the current row again by its key (pending updates stay pending, as in Connector/J). */
    @Override
    public void refreshRow() throws SQLException {
        checkOpen();
        if (!scrollable) throw Errors.of("Operation not allowed for a result set of type ResultSet.TYPE_FORWARD_ONLY.", UpdatableRows.STATE);
        var table = writable();
        if (insertRow != null) throw Errors.of("Can not call refreshRow() when on insert row.", UpdatableRows.STATE);
        if (rows.isEmpty()) throw Errors.of("Can not call refreshRow() on empty result set.", UpdatableRows.STATE);
        if (position < 0) throw Errors.of("Before start of result set. Can not call refreshRow().", UpdatableRows.STATE);
        if (afterLast) throw Errors.of("After end of result set. Can not call refreshRow().", UpdatableRows.STATE);
        rows.set(position, reread(table, table.keyValues(rows.get(position).getValuesList(), null)));
    }

    private static Row reread(UpdatableRows table, List<Value> key) throws SQLException {
        Row row = table.read(key);
        if (row == null) throw Errors.of("refreshRow() called on row that has been deleted or had primary key changed.", UpdatableRows.STATE);
        return row;
    }

    @Override
    public void moveToInsertRow() throws SQLException {
        writable();
        insertRow = new Value[columns.size()];
        changes = null;
    }

    @Override
    public void moveToCurrentRow() throws SQLException {
        writable();
        insertRow = null;
    }

    /** INSERTs the columns set on the insert row, reads the new row back and adds it after the last; the cursor stays on the insert row. */
    @Override
    public void insertRow() throws SQLException {
        checkOpen();
        if (updatable == null) writable(); // a CONCUR_READ_ONLY statement's result: not updatable, as Connector/J says first
        if (insertRow == null) throw Errors.of("Not on insert row.", UpdatableRows.STATE);
        var table = writable();
        rows.add(reread(table, table.insert(insertRow)));
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

    /** CONCUR_UPDATABLE only if the result turned out updatable (a warning says why not), as Connector/J answers. */
    @Override
    public int getConcurrency() throws SQLException {
        checkOpen();
        return updatable != null && updatable.updatable() ? CONCUR_UPDATABLE : CONCUR_READ_ONLY;
    }

    @Override
    public int getHoldability() throws SQLException {
        checkOpen();
        return ResultSet.CLOSE_CURSORS_AT_COMMIT;
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        return warnings;
    }

    @Override
    public void clearWarnings() throws SQLException {
        checkOpen();
        warnings = null;
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
