package org.lutra.server.mysql;

import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.CloseCursor;
import org.lutra.protocol.Column;
import org.lutra.protocol.Execute;
import org.lutra.protocol.Frames;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;
import org.lutra.server.SessionCore;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The columns a prepared SELECT will return, for the COM_STMT_PREPARE answer: the statement is run
 * once with every parameter NULL (then 0, where NULL is no valid value, as in LIMIT ?) at most one
 * row, in an auto-commit session of the connection's own, outside the client's transaction (a
 * plain read takes no locks and starts no snapshot of the client's). Its columns are those the
 * executions will have, described by the same path. Statements that are not plain SELECTs
 * ({@link PrepareColumns} cannot name their columns), or whose run could change something, lock or wait
 * (locking reads, INTO, assignments to variables, and every call that is not a built-in function that only
 * computes a value, {@link DescribableCalls}: stored functions, sequences, named locks, SLEEP), announce no
 * columns, as MySQL does for statements whose columns it cannot tell before execution; their executions carry
 * their columns. The session runs at the router's default isolation in auto-commit, where a plain read is a
 * consistent read at every level: it takes no row locks (only the table's metadata lock while it runs, as any
 * read's, and a lookup group's scan the move fence's shared row briefly, as any scan's).
 */
final class PrepareDescriber implements AutoCloseable {
    private static final Pattern NOT_SIDE_EFFECT_FREE = Pattern.compile(
            "(?i)\\bFOR\\s+UPDATE\\b|\\bFOR\\s+SHARE\\b|\\bLOCK\\s+IN\\s+SHARE\\s+MODE\\b|\\bNEXTVAL\\b|\\bNEXT\\s+VALUE\\b|\\bSETVAL\\b|\\bLASTVAL\\b"
                    + "|\\bPREVIOUS\\s+VALUE\\b|\\bGET_LOCK\\b|\\bRELEASE_\\w*LOCK\\w*\\b|\\bSLEEP\\s*\\(|\\bBENCHMARK\\s*\\(|\\bINTO\\b|@\\w+\\s*:=");
    private static final Value NULL = Value.newBuilder().setIsNull(true).build();
    private static final Value ZERO = Value.newBuilder().setIntValue(0).build();

    private final MysqlConnection connection;
    private SessionCore session;
    private long nextRequest = 1;

    PrepareDescriber(MysqlConnection connection) {
        this.connection = connection;
    }

    /** The statement's result columns, or an empty list (none, or not to be learnt by running it). */
    List<Column> describe(String sql, int params) {
        if (PrepareColumns.of(sql, connection.server().catalog()).isEmpty() || NOT_SIDE_EFFECT_FREE.matcher(sql).find()
                || !DescribableCalls.allKnown(sql)) {
            return List.of();
        }
        var columns = run(sql, params, NULL);
        if (columns == null && params > 0) columns = run(sql, params, ZERO);
        return columns == null ? List.of() : columns;
    }

    private List<Column> run(String sql, int params, Value value) {
        if (session == null) session = connection.server().openSession(connection.sessionId(), connection.core().user(), connection.address());
        var execute = Execute.newBuilder().setSql(sql).setFetchSize(1).setMaxRows(1);
        for (int i = 0; i < params; i++) execute.addParams(value);
        var reply = ask(ClientMessage.newBuilder().setRequestId(nextRequest++).setExecute(execute).build());
        if (!reply.hasResultSet()) return null;
        var batch = reply.getResultSet().getFirstBatch();
        if (!batch.getLast() && batch.getCursorId() != 0) {
            ask(ClientMessage.newBuilder().setRequestId(nextRequest++).setCloseCursor(CloseCursor.newBuilder().setCursorId(batch.getCursorId())).build());
        }
        return reply.getResultSet().getColumnsList();
    }

    private ServerMessage.Builder ask(ClientMessage request) {
        try {
            return session.answer(request);
        } catch (Frames.FrameException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (session != null) session.close();
    }

}
