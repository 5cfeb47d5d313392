package org.lutra.server;

import org.lutra.exec.Connections;
import org.lutra.ddl.CatalogLease;
import org.lutra.ddl.DdlRunner;
import org.lutra.exec.Deadline;
import org.lutra.exec.Executor;
import org.lutra.exec.Result;
import org.lutra.exec.ValueCodec;
import org.lutra.maintain.MoveJobs;
import org.lutra.exec.Warnings;
import org.lutra.merge.LimitRows;
import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.plan.Plan;
import org.lutra.plan.Planned;
import org.lutra.plan.SessionCommand;
import org.lutra.plan.Planner;
import org.lutra.protocol.Execute;
import org.lutra.protocol.ExecuteBatch;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;
import org.lutra.protocol.ResultSet;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.SessionStatus;
import org.lutra.protocol.UpdateResult;
import org.lutra.txn.SessionTransactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs one session's statements, one at a time: plan (cached per SQL text), execute inside the
 * session's transaction state, and hand the rows back in batches. Open result sets are cursors the client pulls with Fetch; each holds its
 * backend connections until it is drained or closed.
 */
final class TransactionWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransactionWorker.class);
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

    private final Planner planner;
    private final Executor executor;
    private final SessionTransactions transactions;
    private final Map<Long, Cursor> cursors = new HashMap<>();
    /** Column lists sent to this session, so that a statement run again is told "same columns" (Execute.known_columns). */
    private final ColumnsSent columnsSent = new ColumnsSent();
    /** The last statement's warnings (SHOW WARNINGS answers them; it is the one statement that does not replace them). */
    private Warnings lastWarnings = new Warnings();
    private long nextCursorId = 1;

    private final Supplier<RowSource> routerStatus;
    /** A statement's deadline in ms from the client's query timeout (statement_timeout_ms applies when shorter). */
    private final java.util.function.LongUnaryOperator deadlineMillis;
    /** The deadline of the statement or batch running now (a Cancel from another connection reaches it here). */
    private volatile Deadline running;
    /** The request id of the statement or batch running now, and the last one a Cancel named ({@link #cancel}). */
    private volatile long runningRequest;
    private volatile long cancelledRequest;
    /** Open result sets of this session that may hold pooled backend connections, at most ({@link #withinConnectionShare}). */
    private final int maxStreamingCursors;
    /**
     * LAST_INSERT_ID(): the first id the router generated for the session's last INSERT that
     * generated one (MySQL's rule; statements that generate none leave it); 0 before the first.
     */
    private long lastInsertId;

    private final CatalogLease lease;
    private final DdlRunner ddl;
    private final MoveJobs moves;
    /** Who the session is (USER() answers it), once logged in. */
    private volatile String user;
    private volatile String host;
    private volatile boolean peer;
    /** NEXTVAL and friends, evaluated before planning; LASTVAL is the session's. */
    private final SequenceValues sequences;
    /** GET_LOCK and friends: the session's own backend connection while it holds a lock. */
    private final SessionLocks locks;

    TransactionWorker(Planner planner, Executor executor, SessionTransactions transactions, Supplier<RowSource> routerStatus,
                      java.util.function.LongUnaryOperator deadlineMillis, int maxStreamingCursors, CatalogLease lease, DdlRunner ddl,
                      MoveJobs moves, SessionLocks locks, SequenceValues sequences) {
        this.sequences = sequences;
        this.moves = moves;
        this.locks = locks;
        this.lease = lease;
        this.ddl = ddl;
        this.maxStreamingCursors = maxStreamingCursors;
        this.deadlineMillis = deadlineMillis;
        this.planner = planner;
        this.executor = executor;
        this.transactions = transactions;
        this.routerStatus = routerStatus;
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
        if (cursors.size() >= MAX_OPEN_CURSORS) {
            throw new SQLException("too many open result sets on this connection (" + MAX_OPEN_CURSORS + "); close some", "HY000", 0);
        }
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
            return reply(command((SessionCommand) planned, bound.params(), request.getSql(), notes), request, notes);
        }
        var warnings = lastWarnings = new Warnings();
        try {
            return switch (planned) {
                case SessionCommand command -> reply(command(command, bound.params(), request.getSql(), warnings), request, warnings);
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
            case SessionCommand.ShowWarnings show -> lastWarnings.show(show.errors(), show.count(), show.offset(), show.limit());
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
            case SessionCommand.Move move -> move(move, params, sql);
            case SessionCommand.MoveStatement statement -> moveStatement(statement);
            // not part of the session's transaction: a lock outlives it, as in MySQL
            case SessionCommand.NamedLock call -> new Result.Rows(locks.run(call, params), 0);
        };
    }

    private ServerMessage.Builder execute(Plan plan, Planner.Bound bound, Execute request, long requestId, Warnings warnings) throws SQLException {
        var deadline = Deadline.in(deadlineMillis.applyAsLong(request.getTimeoutMs()));
        start(requestId, deadline);
        try (deadline) {
            for (int attempt = 1; ; attempt++) {
                var statement = transactions.statement().within(deadline).reporting(warnings).streaming(plainRead(plan))
                        .neverWaits(() -> neverWaitingRead(plan));
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
     * (see SessionTransactions.Statement#restartable).
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
     * Whether the plan's rows come from routes that no operator of the router queries again while
     * they stream (routes merged, limited, projected): inside a transaction such a read streams
     * from the pinned connections (see SessionTransactions.Statement#streaming).
     */
    static boolean plainRead(Plan plan) {
        return plan instanceof Plan.Query q && plain(q.root());
    }

    /**
     * Whether every backend statement of the plan is a locking read that never waits (NOWAIT, SKIP LOCKED): then
     * its lock wait timeout cannot be part of a deadlock (see SessionTransactions.Statement#neverWaits).
     */
    static boolean neverWaitingRead(Plan plan) {
        if (!(plan instanceof Plan.Query q)) return false;
        var routes = new java.util.ArrayList<org.lutra.exec.Route>();
        if (!onlyRoutes(q.root(), routes) || routes.isEmpty()) return false;
        return routes.stream().allMatch(r -> org.lutra.plan.Guards.neverWaitingLockingRead(r.sql()));
    }

    /** Collects the plan's routes; false where an operator of it queries backends otherwise (its own SQL). */
    private static boolean onlyRoutes(org.lutra.exec.Operator op, List<org.lutra.exec.Route> routes) {
        if (op instanceof org.lutra.exec.Route r) {
            routes.add(r);
            return true;
        }
        for (var in : op.inputs()) {
            if (!onlyRoutes(in, routes)) return false;
        }
        return true;
    }

    private static boolean plain(org.lutra.exec.Operator op) {
        if (op instanceof org.lutra.exec.Route) return true;
        if (op instanceof org.lutra.exec.SelectPlan select) return select.streamsPlainly(TransactionWorker::plain);
        boolean passesRows = op instanceof org.lutra.exec.MergeSort || op instanceof org.lutra.exec.Limit
                || op instanceof org.lutra.exec.ParamLimit || op instanceof org.lutra.exec.Project;
        return passesRows && op.inputs().stream().allMatch(TransactionWorker::plain);
    }

    /**
     * The plan; a statement naming a table this router does not know renews the catalog lease first
     * (another router may have just created it) and is planned again if the catalog changed.
     */
    Planner.Bound bind(String client, List<Value> params) throws SQLException {
        String sql = org.lutra.plan.SessionFunctions.substitute(client, user, host);
        var substituted = sequences == null ? new SequenceValues.Substituted(sql, params) : sequences.substitute(sql, params);
        boolean keep = substituted.sql().equals(sql); // a text holding sequence values serves one execution: its plan is not cached
        try {
            return planner.bind(substituted.sql(), substituted.params(), keep);
        } catch (org.lutra.plan.PlanException e) {
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
        return ddl.run(statement, warnings, checks == null || !checks.replace("'", "").matches("(?i)0|OFF|FALSE"));
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
            return reply(result, request, warnings);
        } catch (SQLException | RuntimeException e) {
            deadline.blame(e);
            throw e;
        }
    }

    /**
     * ALTER TABLE ... SET PARTITION: the keys its WHERE selects (read as any query), moved in
     * transactions of their own, a batch at a time. Not inside the session's transaction: a move
     * commits as it goes, and the client's transaction could not roll it back.
     */
    private Result move(SessionCommand.Move move, List<Value> params, String sql) throws SQLException {
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
    private Result moveStatement(SessionCommand.MoveStatement statement) throws SQLException {
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

    private ServerMessage.Builder reply(Result result, Execute request, Warnings warnings) throws SQLException {
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
                var cursor = new Cursor(rows, fetchSize, !transactions.inTransaction(), warnings);
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
        cursors.values().forEach(c -> c.rows().close());
        cursors.clear();
        transactions.close();
        locks.close();
    }
}
