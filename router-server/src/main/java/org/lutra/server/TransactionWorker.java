package org.lutra.server;

import org.lutra.backend.Connections;
import org.lutra.ddl.CatalogLease;
import org.lutra.ddl.DdlRunner;
import org.lutra.backend.Deadline;
import org.lutra.exec.Executor;
import org.lutra.exec.Result;
import org.lutra.backend.ValueCodec;
import org.lutra.maintain.MoveJobs;
import org.lutra.exec.WarningRows;
import org.lutra.backend.Warnings;
import org.lutra.merge.RowSource;
import org.lutra.exec.Plan;
import org.lutra.exec.Planned;
import org.lutra.exec.SessionCommand;
import org.lutra.plan.Planner;
import org.lutra.protocol.Execute;
import org.lutra.protocol.ExecuteBatch;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;
import org.lutra.protocol.Row;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.SessionStatus;
import org.lutra.txn.SessionTransactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Runs one session's statements, one at a time: plan (cached per SQL text), execute inside the
 * session's transaction state, and hand the rows back in batches ({@link Cursors}: open result sets the client pulls with Fetch).
 */
final class TransactionWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransactionWorker.class);

    private final Planner planner;
    private final Executor executor;
    private final SessionTransactions transactions;
    /** The session's open result sets. */
    private final Cursors cursors;
    /** The last statement's warnings (SHOW WARNINGS answers them; it is the one statement that does not replace them). */
    private Warnings lastWarnings = new Warnings();

    private final Supplier<RowSource> routerStatus;
    /** A statement's deadline in ms from the client's query timeout (statement_timeout_ms applies when shorter). */
    private final java.util.function.LongUnaryOperator deadlineMillis;
    /** The deadline of the statement or batch running now (a Cancel from another connection reaches it here). */
    private volatile Deadline running;
    /** The request id of the statement or batch running now, and the last one a Cancel named ({@link #cancel}). */
    private volatile long runningRequest;
    private volatile long cancelledRequest;
    /**
     * LAST_INSERT_ID(): the first id the router generated for the session's last INSERT that
     * generated one (MySQL's rule; statements that generate none leave it); 0 before the first.
     */
    private long lastInsertId;

    private final CatalogLease lease;
    private final DdlRunner ddl;
    /** ALTER TABLE ... SET PARTITION, LOAD LOOKUP TABLE and the other statements about moves. */
    private final MoveCommands moveCommands;
    /** Who the session is (USER() answers it), once logged in. */
    private volatile String user;
    private volatile String host;
    private volatile boolean peer;
    /** NEXTVAL and friends, evaluated before planning; LASTVAL is the session's. */
    private final SequenceValues sequences;
    /** GET_LOCK and friends: the session's own backend connection while it holds a lock. */
    private final SessionLocks locks;

    /** @param transactions and {@code locks}: the session's own */
    TransactionWorker(SessionServices router, SessionTransactions transactions, SessionLocks locks) {
        this.sequences = router.sequences();
        this.locks = locks;
        this.lease = router.lease();
        this.ddl = router.ddl();
        this.deadlineMillis = router.deadlineMillis();
        this.planner = router.planner();
        this.executor = router.executor();
        this.transactions = transactions;
        this.moveCommands = new MoveCommands(router.moves(), router.executor(), transactions);
        this.cursors = new Cursors(router.maxStreamingCursors(), transactions::inTransaction);
        this.routerStatus = router.routerStatus();
    }

    /**
     * The login user and the client's address, for USER() ({@link org.lutra.plan.SessionFunctions}); {@code peer}: the user is this
     * router's {@code placement.peer_user}, the login routers use with each other, which alone may copy the lookup tables.
     */
    void identify(String user, String host, boolean peer) {
        this.user = user;
        this.host = host;
        this.peer = peer;
    }

    /** The statement running now: its plan once bound, and its backend time once run (reported to RouterMetrics). */
    private Planned statementPlan;
    private long statementBackendNanos;

    /** Runs one client statement and reports how it ended, and its times, to the router's metrics. */
    ServerMessage.Builder execute(Execute request, long requestId) throws SQLException {
        long begin = System.nanoTime();
        statementPlan = null;
        statementBackendNanos = 0;
        var metrics = executor.metrics();
        try {
            var reply = answer(request, requestId);
            int partitions = reply.hasResultSet() ? reply.getResultSet().getPartitions() : reply.hasUpdateResult() ? reply.getUpdateResult().getPartitions() : 0;
            metrics.statement(statementPlan, request.getSql(), request.getParamsList(), partitions, null, System.nanoTime() - begin, statementBackendNanos);
            return reply;
        } catch (SQLException e) {
            metrics.statement(statementPlan, request.getSql(), request.getParamsList(), 0, e, System.nanoTime() - begin, statementBackendNanos);
            throw e;
        } catch (RuntimeException e) {
            metrics.statement(statementPlan, request.getSql(), request.getParamsList(), 0, new SQLException("internal error", "HY000", 0, e),
                    System.nanoTime() - begin, statementBackendNanos);
            throw e;
        }
    }

    private ServerMessage.Builder answer(Execute request, long requestId) throws SQLException {
        cursors.requireRoom();
        Planner.Bound bound;
        try {
            bound = bind(request.getSql(), request.getParamsList());
        } catch (SQLException e) {
            lastWarnings = new Warnings();
            lastWarnings.error(e);
            throw e;
        }
        var planned = statementPlan = bound.plan();
        if (planned instanceof SessionCommand.ShowWarnings || planned instanceof SessionCommand.Ddl) {
            // SHOW WARNINGS answers the last statement's and keeps them; DDL's are its notes alone, a failure not among them
            var notes = planned instanceof SessionCommand.Ddl ? (lastWarnings = new Warnings()) : new Warnings();
            return cursors.reply(command((SessionCommand) planned, bound.params(), request.getSql(), notes), request, notes);
        }
        var warnings = lastWarnings = new Warnings();
        try {
            return switch (planned) {
                case SessionCommand command -> cursors.reply(command(command, bound.params(), request.getSql(), warnings), request, warnings);
                case Plan plan -> execute(plan, bound, request, requestId, warnings);
            };
        } catch (SQLException e) {
            warnings.error(e);
            throw e;
        }
    }

    /**
     * Runs a statement the session answers itself, the one place every kind of {@link SessionCommand} is
     * dispatched (a batch's entries too: {@link #update}).
     */
    private Result command(SessionCommand command, List<Value> params, String sql, Warnings warnings) throws SQLException {
        return switch (command) {
            case SessionCommand.Control control -> {
                transactions.control(control);
                yield new Result.Count(0, 0);
            }
            case SessionCommand.SetVariables set -> {
                transactions.variables(executor.set(set, params, transactions.variables(), transactions.isolation(), warnings));
                yield new Result.Count(0, 0);
            }
            case SessionCommand.Ddl statement -> new Result.Count(runDdl(statement, warnings), 0);
            case SessionCommand.ShowWarnings show -> WarningRows.show(lastWarnings, show);
            case SessionCommand.RouterStatus status -> new Result.Rows(status.hotKeys() ? hotKeys() : routerStatus.get(), 0);
            case SessionCommand.LastInsertId last -> new Result.Rows(LastInsertIdRows.of(last.label(), lastInsertId), 0);
            case SessionCommand.ShowPlacement show -> {
                if (show instanceof SessionCommand.ShowLookupSnapshot && !peer) {
                    // the whole placement map, for a starting router: only the routers' own login gets it (docs/security.md)
                    throw new SQLException("Access denied; you need (at least one of) the peer login (placement.peer_user) privilege(s) for this operation:"
                            + " SHOW LOOKUP SNAPSHOT and SHOW LOOKUP LOG POSITION answer only the user routers log in to each other as", "42000", 1227);
                }
                // the router's own state: answered alike in and out of a transaction, which it neither starts nor joins
                yield executor.placement(show, params);
            }
            case SessionCommand.Move move -> moveCommands.move(move, params, sql);
            case SessionCommand.MoveStatement statement -> moveCommands.run(statement);
            // not part of the session's transaction: a lock outlives it, as in MySQL
            case SessionCommand.NamedLock call -> new Result.Rows(locks.run(call, params), 0);
        };
    }

    private ServerMessage.Builder execute(Plan plan, Planner.Bound bound, Execute request, long requestId, Warnings warnings) throws SQLException {
        var deadline = Deadline.in(deadlineMillis.applyAsLong(request.getTimeoutMs()));
        start(requestId, deadline);
        try (deadline) {
            for (int attempt = 1; ; attempt++) {
                var traits = plan instanceof Plan.Query q ? q.traits() : null;
                var statement = transactions.statement().within(deadline).reporting(warnings).neverWaits(() -> traits != null && traits.neverWaits());
                if (traits != null && traits.plainRead()) statement.plainRead();
                try {
                    var reply = executeWithin(deadline, plan, bound.params(), statement, request, warnings);
                    statement.succeeded(); // an implicit transaction's commit is not cut short: it is decided by then
                    return reply;
                } catch (SQLException | RuntimeException e) {
                    // an unexpected exception is logged once, with its incident id, where the transaction state turns it into the client's error
                    if (e instanceof RuntimeException) log.debug("internal error running {}", abbreviated(request.getSql()));
                    SQLException reported = statement.failed(e);
                    if (attempt >= MAX_DEADLOCK_RESTARTS || !statement.restartable()) throw reported;
                    statement.restarting();
                    pauseBeforeRestart(attempt);
                } catch (StackOverflowError | OutOfMemoryError e) {
                    // the statement failed part-way: its transaction is failed as for any other error, then the session reports it
                    statement.failed(new IllegalStateException(e.getClass().getSimpleName() + " running the statement", e));
                    throw e;
                }
            }
        } finally {
            running = null;
            statementBackendNanos = deadline.backendNanos();
        }
    }

    /**
     * How often an auto-commit statement rolled back whole as a deadlock victim runs again before its 40001 reaches the client
     * (see SessionStatement#restartable).
     */
    private static final int MAX_DEADLOCK_RESTARTS = 5;

    /** A random pause growing with the attempts, so that the statements of a cycle do not meet again at once. */
    private static void pauseBeforeRestart(int attempt) throws SQLException {
        try {
            Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(1, 5L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted before running the statement again", "70100", 1317, e);
        }
    }

    /**
     * The plan; a statement naming a table this router does not know renews the catalog lease first
     * (another router may have just created it) and is planned again if the catalog changed.
     */
    Planner.Bound bind(String client, List<Value> params) throws SQLException {
        String sql = org.lutra.plan.SessionFunctions.substitute(client, user, host);
        var substituted = sequences == null ? new SequenceValues.Substituted(sql, params) : sequences.substitute(sql, params);
        // a text holding sequence values serves one execution: its plan is not cached
        var keep = substituted.sql().equals(sql) ? org.lutra.plan.Planner.Reuse.CACHED : org.lutra.plan.Planner.Reuse.ONE_EXECUTION;
        try {
            return planner.bind(substituted.sql(), substituted.params(), keep);
        } catch (org.lutra.sql.PlanException e) {
            if (e.getErrorCode() != 1146 || lease == null || !lease.refresh()) throw e;
            return planner.bind(substituted.sql(), substituted.params(), keep);
        }
    }

    /**
     * DDL: an open transaction that has written nothing is committed first, as MySQL commits it
     * implicitly; one that wrote is refused ({@link SessionTransactions#commitBeforeDdl}). Then run
     * on the partitions and recorded.
     */
    private long runDdl(SessionCommand.Ddl statement, Warnings warnings) throws SQLException {
        if (ddl == null) throw Refusal.of("DDL is not available on this router");
        transactions.commitBeforeDdl();
        String checks = transactions.variables().values().get("foreign_key_checks");
        boolean off = checks != null && checks.replace("'", "").matches("(?i)0|OFF|FALSE");
        return ddl.run(statement, warnings, off ? DdlRunner.KeyChecks.OFF : DdlRunner.KeyChecks.ON);
    }

    /**
     * Runs the statement and reads its first batch of rows. What fails after the deadline has
     * passed failed because of it (a backend statement killed, a connection aborted, or refused to
     * start): reported as MariaDB reports max_statement_time. Nothing the statement changed stays:
     * a killed statement is rolled back by its server, and several partitions' writes are atomic.
     */
    private ServerMessage.Builder executeWithin(Deadline deadline, Plan plan, List<Value> params, Connections connections,
                                                Execute request, Warnings warnings) throws SQLException {
        try {
            if (lease != null) lease.requireFresh(); // a transaction's pinned connections are not borrowed again: checked here
            var result = executor.execute(plan, params, connections);
            if (result instanceof Result.Count c && c.generated().length > 0) lastInsertId = c.generated()[0];
            if (result instanceof Result.Count c && c.insertIdSet().isPresent()) lastInsertId = c.insertIdSet().getAsLong();
            if (plan instanceof Plan.SessionVariables variables) result = SessionValues.patch(variables, (Result.Rows) result, transactions);
            return cursors.reply(result, request, warnings);
        } catch (SQLException | RuntimeException e) {
            deadline.blame(e);
            throw e;
        }
    }

    /** SHOW LUTRA HOT KEYS: (Table, Rank, Key, Count, Count_low, Count_high) rows, hottest first per lookup table. */
    private RowSource hotKeys() throws SQLException {
        var out = new org.lutra.maintain.ReportRows().text("Table").number("Rank").text("Key").number("Count").number("Count_low").number("Count_high");
        for (var hot : executor.metrics().hotKeys()) out.add(hot.table(), hot.rank(), hot.key(), hot.count(), hot.countLow(), hot.countHigh());
        return out.rows();
    }

    /** A client's statement as a log line may show it: escaped (no forged lines, no terminal escapes) and cut. */
    private static String abbreviated(String sql) {
        return Session.printable(sql, 200);
    }

    /** The session's transaction state, sent with every reply. */
    SessionStatus status() {
        return SessionStatus.newBuilder().setAutocommit(transactions.autocommit())
                .setInTransaction(transactions.inTransaction()).setIsolation(transactions.isolation()).build();
    }

    ServerMessage.Builder fetch(long cursorId, int fetchSize) throws SQLException {
        return cursors.fetch(cursorId, fetchSize);
    }

    void closeCursor(long cursorId) {
        cursors.closeCursor(cursorId);
    }

    /**
     * Statement.cancel from the client, on another connection: stops request {@code requestId} if
     * it runs now, or as soon as it starts (the Cancel may overtake it while it is planned); 0
     * stops whatever runs. A Cancel naming a request that already ended stops nothing, so it
     * cannot hit the session's next statement.
     */
    void cancel(long requestId) {
        cancelledRequest = requestId;
        var d = running;
        if (d != null && (requestId == 0 || requestId == runningRequest)) d.cancel();
    }

    /** The statement or batch {@code requestId} runs under {@code deadline} from now. */
    private void start(long requestId, Deadline deadline) {
        runningRequest = requestId;
        running = deadline;
        // read after running is set: a concurrent cancel() either sees this deadline or set cancelledRequest before this read
        if (requestId != 0 && cancelledRequest == requestId) deadline.cancel();
    }

    /** A JDBC batch in one request ({@link BatchRunner}); an entry's failure is in the reply, not thrown. */
    ServerMessage.Builder executeBatch(ExecuteBatch request, long requestId) {
        lastWarnings = new Warnings(); // a batch's entries' warnings are not collected
        long begin = System.nanoTime();
        var deadline = Deadline.in(deadlineMillis.applyAsLong(request.getTimeoutMs()));
        try (deadline) {
            start(requestId, deadline);
            var runner = new BatchRunner(planner, (plan, params, sql) -> update(plan, params, sql, deadline));
            var result = runner.run(request);
            runner.lastInsertId().ifPresent(id -> lastInsertId = id);
            // one statement to the metrics (no plan: a batch); its error is the entry's that stopped it
            var error = result.hasError() ? new SQLException(result.getError().getMessage(), result.getError().getSqlState(), result.getError().getVendorCode()) : null;
            executor.metrics().statement(null, request.getSql().isEmpty() && request.getStatementsCount() > 0 ? request.getStatements(0) : request.getSql(),
                    List.of(), 0, error, System.nanoTime() - begin, deadline.backendNanos());
            return ServerMessage.newBuilder().setBatchResult(result);
        } finally {
            running = null;
        }
    }

    /** One batch entry (or a group of them), run as {@link #execute} runs a statement; it must not return rows. */
    private Result.Count update(Planned planned, List<Value> params, String sql, Deadline deadline) throws SQLException {
        if (!(planned instanceof Plan plan)) {
            var command = (SessionCommand) planned;
            if (!command.batchable()) throw batchRows(sql);
            return (Result.Count) command(command, params, sql, new Warnings());
        }
        var statement = transactions.statement().within(deadline);
        Result result;
        try {
            try {
                if (lease != null) lease.requireFresh();
                result = executor.execute(plan, params, statement);
            } catch (SQLException | RuntimeException e) {
                deadline.blame(e);
                throw e;
            }
            statement.succeeded();
        } catch (SQLException | RuntimeException e) {
            if (e instanceof RuntimeException) log.warn("internal error running batch entry {}", abbreviated(sql), e);
            throw statement.failed(e);
        }
        return switch (result) {
            case Result.Count c -> c;
            case Result.Rows r -> {
                r.rows().close();
                throw batchRows(sql);
            }
        };
    }

    private static SQLException batchRows(String sql) {
        return new SQLException("a batch entry returned a result set (" + (sql.length() > 80 ? sql.substring(0, 80) + "..." : sql)
                + "); batches take statements that return update counts", "HY000", 0);
    }

    /** The client is gone: close its cursors and roll back its open transaction. */
    @Override
    public void close() {
        cursors.close();
        transactions.close();
        locks.close();
    }
}
