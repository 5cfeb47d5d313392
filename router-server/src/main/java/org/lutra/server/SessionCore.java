package org.lutra.server;

import org.lutra.log.LogText;
import org.lutra.sql.PlanException;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Error;
import org.lutra.protocol.Frames;
import org.lutra.protocol.Ok;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.SessionStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;

/**
 * One logged-in client's session, whichever listener it came through (the Lutra protocol's
 * {@link Session}, the MySQL protocol's {@code org.lutra.server.mysql}): its statements, cursors,
 * transaction and deadlines. A front end turns its client's requests into {@link ClientMessage}s
 * and the answers back into its own wire format, so a statement is answered the same through
 * either listener.
 *
 * <p>One request at a time, from the front end's thread for this session; {@link #cancel} and
 * {@link #kill} come from other threads.
 */
public final class SessionCore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Session.class); // a session's lines, whichever listener

    private final long id;
    private final String user;
    private final TransactionWorker worker;
    private final KillStatement.Killer killer;

    SessionCore(long id, String user, String address, RouterServer server) {
        this.id = id;
        this.user = user;
        this.killer = server.sessions()::kill;
        this.worker = new TransactionWorker(SessionServices.of(server), server.transactions().session(), new SessionLocks(server.lockPlacement()));
        worker.identify(user, address, user.equals(server.config().placement().peerUser()));
    }

    /** The session id: the Lutra protocol's cancel names it, MySQL clients see it as the connection id (KILL takes it). */
    public long id() {
        return id;
    }

    public String user() {
        return user;
    }

    /**
     * Runs one request (Execute, ExecuteBatch, Fetch, CloseCursor, Ping) and gives the answer,
     * carrying the request's id and the session's transaction status; null for Quit. A failing
     * statement is an Error answer and the session goes on.
     *
     * @throws Frames.FrameException for a request that has no place after login (the session ends)
     */
    public ServerMessage.Builder answer(ClientMessage request) throws Frames.FrameException {
        ServerMessage.Builder reply;
        try {
            reply = switch (request.getKindCase()) {
                case EXECUTE -> {
                    var kill = KillStatement.parse(request.getExecute().getSql());
                    if (kill != null) {
                        kill.run(user, killer);
                        yield ServerMessage.newBuilder().setUpdateResult(org.lutra.protocol.UpdateResult.getDefaultInstance());
                    }
                    yield worker.execute(request.getExecute(), request.getRequestId());
                }
                case EXECUTE_BATCH -> worker.executeBatch(request.getExecuteBatch(), request.getRequestId());
                case FETCH -> worker.fetch(request.getFetch().getCursorId(), request.getFetch().getFetchSize());
                case CLOSE_CURSOR -> {
                    worker.closeCursor(request.getCloseCursor().getCursorId());
                    yield ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
                }
                case PING -> ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
                case QUIT -> null;
                case HELLO, CANCEL, AUTH_PROOF, KIND_NOT_SET -> throw new Frames.FrameException("unexpected " + request.getKindCase() + " after login");
            };
        } catch (SQLException e) {
            if (!(e instanceof PlanException)) log.debug("session {}: {}", id, Session.printable(String.valueOf(e.getMessage()), 512)); // may quote the statement
            var shown = org.lutra.backend.BackendDriver.forClient(e);
            reply = error(shown.sqlState(), e.getErrorCode(), shown.message());
        } catch (org.lutra.catalog.KeyWeighingException e) {
            // a routing key that a backend had to weigh while rows were read (the executor turns the others into SQLExceptions)
            var shown = org.lutra.backend.BackendDriver.forClient(e.sqlException());
            reply = error(shown.sqlState(), e.sqlException().getErrorCode(), shown.message());
        } catch (RuntimeException | StackOverflowError e) {
            // the details are the log's; the client gets an id to quote, not the router's internals
            String incident = Session.incident();
            log.warn("session {}: internal error {} on {}", id, incident, request.getKindCase(), LogText.redacted(e));
            reply = error("HY000", 0, "internal router error (incident " + incident + " in the router's log)");
        } catch (OutOfMemoryError e) {
            // one statement too big for the heap: it fails (MySQL's 1037), the session and the others go on
            String incident = Session.incident();
            log.error("session {}: out of memory {} on {}", id, incident, request.getKindCase(), LogText.redacted(e));
            reply = error("HY001", 1037, "Out of memory in the router (incident " + incident + " in the router's log)");
        }
        return reply == null ? null : reply.setRequestId(request.getRequestId()).setStatus(worker.status());
    }

    /** The session's transaction state now. */
    public SessionStatus status() {
        return worker.status();
    }

    /** Stops request {@code requestId} if it runs now or as soon as it starts (0: whatever runs); from any thread. */
    public void cancel(long requestId) {
        worker.cancel(requestId);
    }

    /** MySQL's bound on an error message (MYSQL_ERRMSG_SIZE): backend errors quote the statement back. */
    static final int MAX_ERROR_MESSAGE = 512;

    /** An Error answer, its message cut at {@link #MAX_ERROR_MESSAGE}. */
    public static ServerMessage.Builder error(String state, int code, String message) {
        message = message == null ? "" : message;
        if (message.length() > MAX_ERROR_MESSAGE) message = message.substring(0, MAX_ERROR_MESSAGE - 3) + "...";
        return ServerMessage.newBuilder().setError(Error.newBuilder().setSqlState(state).setVendorCode(code).setMessage(message));
    }

    /** Closes the session's cursors and rolls back its open transaction. */
    @Override
    public void close() {
        worker.close();
    }
}
