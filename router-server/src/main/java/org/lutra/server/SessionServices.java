package org.lutra.server;

import org.lutra.ddl.CatalogLease;
import org.lutra.ddl.DdlRunner;
import org.lutra.exec.Executor;
import org.lutra.maintain.MoveJobs;
import org.lutra.merge.RowSource;
import org.lutra.plan.Planner;

import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * What a session's statements use of the router, the same for every session ({@link TransactionWorker}).
 *
 * @param routerStatus        SHOW LUTRA STATUS's rows
 * @param deadlineMillis      a statement's deadline in ms from the client's query timeout (statement_timeout_ms applies when shorter)
 * @param maxStreamingCursors open result sets of one session that may hold pooled backend connections, at most
 * @param lease               the stored catalog's lease, or null (no DDL through the router)
 * @param ddl                 DDL through the router, or null
 * @param sequences           NEXTVAL and friends, evaluated before planning, or null
 */
record SessionServices(Planner planner, Executor executor, Supplier<RowSource> routerStatus, LongUnaryOperator deadlineMillis,
                       int maxStreamingCursors, CatalogLease lease, DdlRunner ddl, MoveJobs moves, SequenceValues sequences) {

    static SessionServices of(RouterServer server) {
        return new SessionServices(server.planner(), server.executor(), () -> StatusRows.of(server), server.config().limits()::statementDeadlineMillis,
                server.streamingCursorsPerSession(), server.lease(), server.ddl(), server.moves(), server.sequenceValues());
    }
}
