package org.lutra.server;

import org.lutra.exec.Executor;
import org.lutra.exec.Result;
import org.lutra.backend.ValueCodec;
import org.lutra.maintain.MoveJobs;
import org.lutra.merge.RowSource;
import org.lutra.exec.SessionCommand;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;
import org.lutra.txn.SessionTransactions;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** A session's statements about moves, run through the router's {@link MoveJobs} and never inside the session's transaction. */
final class MoveCommands {
    private final MoveJobs moves;
    private final Executor executor;
    private final SessionTransactions transactions;

    MoveCommands(MoveJobs moves, Executor executor, SessionTransactions transactions) {
        this.moves = moves;
        this.executor = executor;
        this.transactions = transactions;
    }

    /**
     * ALTER TABLE ... SET PARTITION: the keys its WHERE selects (read as any query), moved in
     * transactions of their own, a batch at a time. Not inside the session's transaction: a move
     * commits as it goes, and the client's transaction could not roll it back.
     */
    Result move(SessionCommand.Move move, List<Value> params, String sql) throws SQLException {
        if (transactions.inTransaction()) {
            throw new SQLException("ALTER TABLE ... SET PARTITION cannot run inside a transaction (it commits batch by batch): commit first", "25000", 1179);
        }
        var keys = new ArrayList<Object>();
        var statement = transactions.statement().untraced();
        try (RowSource rows = ((Result.Rows) executor.execute(move.keys(), params, statement)).rows()) {
            Row row;
            while ((row = rows.next()) != null) {
                Object key = move.table().key(ValueCodec.decode(row.getValues(0)));
                if (key != null) keys.add(key);
            }
        }
        statement.succeeded();
        return new Result.Count(moves.move(move.table(), sql.strip(), keys, move.targets()), 0);
    }

    /**
     * LOAD LOOKUP TABLE, SHOW MOVES, PAUSE / RESUME MOVE: the router's own (MoveJobs), outside any
     * transaction (a LOAD commits as it goes, as a move does).
     */
    Result run(SessionCommand.MoveStatement statement) throws SQLException {
        if (statement instanceof SessionCommand.ShowMoves) return new Result.Rows(moves.show(), 0);
        if (transactions.inTransaction()) {
            throw new SQLException("LOAD LOOKUP TABLE, PAUSE MOVE and RESUME MOVE cannot run inside a transaction: commit first", "25000", 1179);
        }
        return switch (statement) {
            case SessionCommand.LoadLookup load -> new Result.Rows(moves.load(load), 0);
            case SessionCommand.PauseMove pause -> {
                moves.pause(pause.id());
                yield new Result.Count(0, 0);
            }
            case SessionCommand.ResumeMove resume -> {
                moves.resume(resume.id());
                yield new Result.Count(0, 0);
            }
            case SessionCommand.ShowMoves show -> throw new IllegalStateException("answered above");
        };
    }
}
