package org.lutra.jdbc;

import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Execute;
import org.lutra.protocol.ExecuteBatch;
import org.lutra.protocol.Params;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;

import java.sql.BatchUpdateException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Sends SQL text to the router and holds the one result the statement has at a time: an update
 * count or a streaming {@link LutraResultSet}. Executing again, or closing, closes that result.
 *
 * <p>Its length is java.sql.Statement's (51 overrides: execute variants, batches, generated keys,
 * limits and timeouts), each a few lines over {@link Session}.
 */
public class LutraStatement extends UnsupportedStatement {
    final LutraConnection connection;
    private final int resultSetType;
    private final int resultSetConcurrency;
    private final int resultSetHoldability;
    private final List<String> batch = new ArrayList<>();
    private LutraResultSet resultSet;
    /** Of the latest result set: for PreparedStatement.getMetaData, and named to the router with the next execution (Execute.known_columns). */
    ResultColumns lastColumns;
    private long updateCount = -1;
    /** The AUTO_INCREMENT values of the rows the last execution inserted; null if it did not ask for them. */
    private long[] generatedKeys;
    /** The last statement's warnings from the backends (chained), or null; cleared by the next execute. */
    private SQLWarning warnings;
    private boolean closed;
    private boolean closeOnCompletion;
    private boolean poolable;
    private int fetchSize;
    private long maxRows;
    private int maxFieldSize;
    private int queryTimeoutSeconds;

    LutraStatement(LutraConnection connection, int resultSetType, int resultSetConcurrency, int resultSetHoldability) {
        this.connection = connection;
        this.resultSetType = resultSetType;
        this.resultSetConcurrency = resultSetConcurrency;
        this.resultSetHoldability = resultSetHoldability;
    }

    // ---- execution -------------------------------------------------------------------------

    /** Runs one statement; true if it produced a result set (then {@link #resultSet} is set). */
    boolean run(String sql, List<Value> params) throws SQLException {
        return run(sql, params, returnsGeneratedKeys());
    }

    /** Whether executions ask for generated keys by default: a PreparedStatement's choice at prepare time; a Statement's per call. */
    boolean returnsGeneratedKeys() {
        return false;
    }

    /** Runs one statement; {@code keys}: ask the router for the AUTO_INCREMENT values of the rows it inserts. */
    boolean run(String sql, List<Value> params, boolean keys) throws SQLException {
        checkOpen();
        closeResult();
        generatedKeys = null;
        warnings = null;
        if (sql == null) {
            throw Errors.of("SQL text is null", Errors.GENERAL);
        }
        var execute = Execute.newBuilder().setSql(sql).addAllParams(params).setFetchSize(fetchSize).setMaxRows(maxRows)
                .setTimeoutMs(queryTimeoutMs()).setReturnGeneratedKeys(keys);
        if (lastColumns != null) execute.setKnownColumns(lastColumns.id);
        var session = connection.session();
        ServerMessage answer = session.call(ClientMessage.newBuilder().setExecute(execute), routerAnswerWaitMs());
        switch (answer.getKindCase()) {
            case UPDATE_RESULT -> {
                updateCount = answer.getUpdateResult().getUpdateCount();
                if (keys) generatedKeys = answer.getUpdateResult().getGeneratedKeysList().stream().mapToLong(Long::longValue).toArray();
                warned(answer.getUpdateResult().getWarningsList());
                return false;
            }
            case RESULT_SET -> {
                var header = answer.getResultSet();
                if (header.getSameColumns() && (lastColumns == null || lastColumns.id != header.getColumnsId())) {
                    throw Errors.of("the router answered 'the same columns as list " + header.getColumnsId() + "' but this statement holds "
                            + (lastColumns == null ? "none" : "list " + lastColumns.id) + " (router protocol error)", Errors.PROTOCOL_VIOLATION);
                }
                lastColumns = header.getSameColumns() ? lastColumns : new ResultColumns(header.getColumnsId(), header.getColumnsList());
                resultSet = new LutraResultSet(this, header, lastColumns);
                return true;
            }
            default -> throw session.unexpected(answer, "Execute");
        }
    }

    LutraResultSet runQuery(String sql, List<Value> params) throws SQLException {
        var kind = SqlText.returnType(sql);
        if (kind != SqlText.ReturnType.PRODUCES_RESULT_SET && kind != SqlText.ReturnType.MAY_PRODUCE_RESULT_SET) {
            checkOpen();
            // Connector/J's check and words, before anything is sent: the statement is not run
            throw Errors.of("Statement.executeQuery() cannot issue statements that do not produce result sets.", Errors.ILLEGAL_ARGUMENT);
        }
        if (!run(sql, params)) {
            throw Errors.of("executeQuery: the statement returned an update count (" + updateCount
                    + "), not a result set; it has been executed; use executeUpdate or execute", Errors.GENERAL);
        }
        return resultSet;
    }

    long runUpdate(String sql, List<Value> params) throws SQLException {
        return runUpdate(sql, params, returnsGeneratedKeys());
    }

    long runUpdate(String sql, List<Value> params, boolean keys) throws SQLException {
        if (run(sql, params, keys)) {
            closeResult(); // the router would otherwise keep the cursor open
            throw Errors.of("executeUpdate: the statement returned a result set; use executeQuery or execute", Errors.GENERAL);
        }
        return updateCount;
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        return runQuery(sql, List.of());
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        return saturatedInt(executeLargeUpdate(sql));
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        return runUpdate(sql, List.of());
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        return run(sql, List.of());
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        return run(sql, List.of(), wantsKeys(autoGeneratedKeys));
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return saturatedInt(executeLargeUpdate(sql, autoGeneratedKeys));
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return runUpdate(sql, List.of(), wantsKeys(autoGeneratedKeys));
    }

    // Column indexes or names: as Connector/J, the key is the AUTO_INCREMENT column's, whichever columns are named.

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        return run(sql, List.of(), true);
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
        return run(sql, List.of(), true);
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return saturatedInt(runUpdate(sql, List.of(), true));
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return saturatedInt(runUpdate(sql, List.of(), true));
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return runUpdate(sql, List.of(), true);
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return runUpdate(sql, List.of(), true);
    }

    static boolean wantsKeys(int autoGeneratedKeys) throws SQLException {
        if (autoGeneratedKeys != RETURN_GENERATED_KEYS && autoGeneratedKeys != NO_GENERATED_KEYS) {
            throw Errors.of("autoGeneratedKeys must be Statement.RETURN_GENERATED_KEYS or NO_GENERATED_KEYS, not " + autoGeneratedKeys, "HY024");
        }
        return autoGeneratedKeys == RETURN_GENERATED_KEYS;
    }

    /**
     * The AUTO_INCREMENT value of each row the last execution inserted, in order, in one column
     * {@code GENERATED_KEY} (BIGINT UNSIGNED), as Connector/J answers; empty for a statement that
     * inserted none. As Connector/J, only after an execution that asked for them (a Statement's
     * batch always does).
     */
    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        checkOpen();
        if (generatedKeys == null) {
            throw Errors.of("Generated keys not requested. You need to specify Statement.RETURN_GENERATED_KEYS to Statement.executeUpdate(), "
                    + "Statement.executeLargeUpdate() or Connection.prepareStatement().", "S1009");
        }
        var column = org.lutra.protocol.Column.newBuilder().setName("GENERATED_KEY").setLabel("GENERATED_KEY").setJdbcType(java.sql.Types.BIGINT)
                .setTypeName("BIGINT UNSIGNED").setPrecision(20).setDisplaySize(20).setNullable(false).setSigned(false);
        var rows = org.lutra.protocol.RowBatch.newBuilder().setLast(true);
        for (long key : generatedKeys) rows.addRows(org.lutra.protocol.Row.newBuilder().addValues(Value.newBuilder().setIntValue(key)));
        return new LutraResultSet(this, org.lutra.protocol.ResultSet.newBuilder().addColumns(column).setFirstBatch(rows).build());
    }

    static int saturatedInt(long n) {
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    // ---- results ---------------------------------------------------------------------------

    @Override
    public ResultSet getResultSet() throws SQLException {
        checkOpen();
        return resultSet;
    }

    @Override
    public int getUpdateCount() throws SQLException {
        return saturatedInt(getLargeUpdateCount());
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        checkOpen();
        return resultSet == null ? updateCount : -1;
    }

    /** Every statement yields one result, so there is never a next one. */
    @Override
    public boolean getMoreResults() throws SQLException {
        return getMoreResults(CLOSE_CURRENT_RESULT);
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
        checkOpen();
        if (current == KEEP_CURRENT_RESULT) {
            resultSet = null; // the caller keeps it open; it is no longer this statement's result
        } else {
            closeResult();
        }
        updateCount = -1;
        return false;
    }

    private void closeResult() throws SQLException {
        updateCount = -1;
        var rs = resultSet;
        resultSet = null;
        if (rs != null) {
            rs.closeFromStatement();
        }
    }

    /** The connection commits or rolls back: a CLOSE_CURSORS_AT_COMMIT result closes (its cursor too). */
    void closeResultAtCommit() throws SQLException {
        if (!closed && resultSetHoldability == ResultSet.CLOSE_CURSORS_AT_COMMIT && resultSet != null) {
            closeResult();
        }
    }

    /** Called by a result set closed by its user: closeOnCompletion may close the statement. */
    void resultSetClosed(LutraResultSet rs) throws SQLException {
        if (rs == resultSet && closeOnCompletion) {
            resultSet = null;
            close();
        }
    }

    // ---- batches ---------------------------------------------------------------------------

    @Override
    public void addBatch(String sql) throws SQLException {
        checkOpen();
        batch.add(sql);
    }

    @Override
    public void clearBatch() throws SQLException {
        checkOpen();
        batch.clear();
    }

    @Override
    public int[] executeBatch() throws SQLException {
        return Arrays.stream(executeLargeBatch()).mapToInt(LutraStatement::saturatedInt).toArray();
    }

    /** The whole batch in one ExecuteBatch request (more if it would not fit in one frame); see {@link #runBatch}. */
    @Override
    public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        var sqls = List.copyOf(batch);
        batch.clear();
        return runBatch(sqls, null, List.of(), true); // as Connector/J: a Statement's batch always keeps its generated keys
    }

    /**
     * Sends a batch — {@code statements} (Statement.addBatch), or {@code sql} with one parameter
     * list per entry (PreparedStatement.addBatch) — as ExecuteBatch requests of at most half the
     * router's frame limit each, and returns one update count per entry. The router stops at the
     * first failing entry (or group of entries run as one multi-row INSERT): that becomes a
     * BatchUpdateException with the counts of the entries before it.
     */
    long[] runBatch(List<String> statements, String sql, List<List<Value>> entries, boolean keys) throws SQLException {
        closeResult();
        generatedKeys = null;
        var gathered = keys ? new java.util.ArrayList<Long>() : null;
        int total = statements.size() + entries.size();
        long[] counts = new long[total];
        int done = 0;
        int limit = Math.max(1024, connection.session().routerMaxFrameBytes() / 2);
        while (done < total) {
            var request = ExecuteBatch.newBuilder();
            int size = 0, end = done;
            if (!statements.isEmpty()) {
                while (end < total && (end == done || size + statements.get(end).length() * 3 + 8 < limit)) {
                    request.addStatements(statements.get(end));
                    size += statements.get(end).length() * 3 + 8;
                    end++;
                }
            } else {
                request.setSql(sql);
                size = sql.length() * 3 + 8;
                while (end < total && (end == done || size + Params.newBuilder().addAllValues(entries.get(end)).build().getSerializedSize() + 8 < limit)) {
                    var params = Params.newBuilder().addAllValues(entries.get(end)).build();
                    request.addEntries(params);
                    size += params.getSerializedSize() + 8;
                    end++;
                }
            }
            var session = connection.session();
            ServerMessage answer;
            try {
                answer = session.call(ClientMessage.newBuilder().setExecuteBatch(request.setTimeoutMs(queryTimeoutMs())
                        .setReturnGeneratedKeys(keys)), routerAnswerWaitMs());
            } catch (SQLException e) {
                throw batchFailure(done, counts, e);
            }
            if (!answer.hasBatchResult()) throw session.unexpected(answer, "ExecuteBatch");
            var result = answer.getBatchResult();
            for (long c : result.getUpdateCountsList()) counts[done++] = c;
            if (keys) {
                gathered.addAll(result.getGeneratedKeysList());
                generatedKeys = gathered.stream().mapToLong(Long::longValue).toArray(); // also those of the entries before a failure
            }
            if (result.hasError()) throw batchFailure(done, counts, Errors.fromServer(result.getError()));
            if (done != end) {
                throw Errors.of("the router answered " + result.getUpdateCountsCount() + " update counts for a batch of " + (end - done
                        + result.getUpdateCountsCount()) + " entries", "08P01");
            }
        }
        return counts;
    }

    static BatchUpdateException batchFailure(int index, long[] counts, SQLException e) {
        String message = e.getMessage() != null && e.getMessage().startsWith("batch entr") ? e.getMessage()
                : "batch entry " + (index + 1) + " failed: " + e.getMessage();
        return new BatchUpdateException(message, e.getSQLState(), e.getErrorCode(), Arrays.copyOf(counts, index), e);
    }

    // ---- settings --------------------------------------------------------------------------

    @Override
    public void setFetchSize(int rows) throws SQLException {
        checkOpen();
        if (rows < 0) {
            throw Errors.of("fetch size must not be negative: " + rows, "HY024");
        }
        fetchSize = rows;
    }

    @Override
    public int getFetchSize() throws SQLException {
        checkOpen();
        return fetchSize;
    }

    int fetchSize() {
        return fetchSize;
    }

    @Override
    public void setMaxRows(int max) throws SQLException {
        setLargeMaxRows(max);
    }

    @Override
    public void setLargeMaxRows(long max) throws SQLException {
        checkOpen();
        if (max < 0) {
            throw Errors.of("max rows must not be negative: " + max, "HY024");
        }
        maxRows = max;
    }

    @Override
    public int getMaxRows() throws SQLException {
        return saturatedInt(getLargeMaxRows());
    }

    @Override
    public long getLargeMaxRows() throws SQLException {
        checkOpen();
        return maxRows;
    }

    long maxRows() {
        return maxRows;
    }

    /**
     * Sent with each statement: the router stops it on the backends when it passes and answers
     * 70100/1969 (nothing the statement changed is kept). If no answer comes even
     * {@link #ROUTER_GRACE_MS} later, the driver gives up waiting (HYT00; the outcome is unknown).
     * A Fetch of more rows has the timeout as its read timeout.
     */
    @Override
    public void setQueryTimeout(int seconds) throws SQLException {
        checkOpen();
        if (seconds < 0) {
            throw Errors.of("query timeout must not be negative: " + seconds, "HY024");
        }
        queryTimeoutSeconds = seconds;
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        checkOpen();
        return queryTimeoutSeconds;
    }

    int queryTimeoutMs() {
        return queryTimeoutSeconds * 1000;
    }

    /** How long after the query timeout the router's own answer to it may take to arrive. */
    static final int ROUTER_GRACE_MS = 5_000;

    private int routerAnswerWaitMs() {
        return queryTimeoutSeconds == 0 ? 0 : queryTimeoutMs() + ROUTER_GRACE_MS;
    }

    @Override
    public void setMaxFieldSize(int max) throws SQLException {
        checkOpen();
        if (max < 0) {
            throw Errors.of("max field size must not be negative: " + max, "HY024");
        }
        maxFieldSize = max; // kept for getMaxFieldSize; values are not truncated
    }

    @Override
    public int getMaxFieldSize() throws SQLException {
        checkOpen();
        return maxFieldSize;
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
        checkOpen(); // the router parses MySQL SQL, escapes included; nothing to do here
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        checkOpen();
        if (direction != ResultSet.FETCH_FORWARD) {
            throw Errors.unsupported("fetch direction " + direction + " (results are forward-only)");
        }
    }

    @Override
    public int getFetchDirection() throws SQLException {
        checkOpen();
        return ResultSet.FETCH_FORWARD;
    }

    /** Whether results are read whole and can be scrolled (TYPE_SCROLL_INSENSITIVE). */
    boolean scrollable() {
        return resultSetType == ResultSet.TYPE_SCROLL_INSENSITIVE;
    }

    /** Whether results are CONCUR_UPDATABLE (read whole, written back through {@link UpdatableRows}). */
    boolean updatable() {
        return resultSetConcurrency == ResultSet.CONCUR_UPDATABLE;
    }

    @Override
    public int getResultSetType() throws SQLException {
        checkOpen();
        return resultSetType;
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        checkOpen();
        return resultSetConcurrency;
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        checkOpen();
        return resultSetHoldability;
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

    /** Warnings the router sent with a reply to this statement's execute or to a fetch of its rows. */
    void warned(List<org.lutra.protocol.Warning> received) {
        for (var w : received) {
            var warning = new SQLWarning(w.getMessage(), w.getSqlState().isEmpty() ? null : w.getSqlState(), w.getCode());
            if (warnings == null) warnings = warning;
            else warnings.setNextWarning(warning);
        }
    }

    @Override
    public void setPoolable(boolean poolable) throws SQLException {
        checkOpen();
        this.poolable = poolable;
    }

    @Override
    public boolean isPoolable() throws SQLException {
        checkOpen();
        return poolable;
    }

    @Override
    public void closeOnCompletion() throws SQLException {
        checkOpen();
        closeOnCompletion = true;
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        checkOpen();
        return closeOnCompletion;
    }

    /** Stops this statement if it is running (the router kills its backend statements): it ends with 70100/1317. */
    @Override
    public void cancel() throws SQLException {
        checkOpen();
        connection.session().cancel();
    }

    // ---- life cycle ------------------------------------------------------------------------

    @Override
    public java.sql.Connection getConnection() throws SQLException {
        checkOpen();
        return connection;
    }

    void checkOpen() throws SQLException {
        if (closed) {
            throw Errors.of("statement is closed", Errors.GENERAL);
        }
        connection.checkOpen();
    }

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        connection.forget(this);
        closeResult(); // on a dead session this only marks the result closed
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
