package org.lutra.server;

import org.lutra.config.RouterConfig;
import org.lutra.plan.PlanException;
import org.lutra.protocol.Auth;
import org.lutra.protocol.Challenge;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Error;
import org.lutra.protocol.Frames;
import org.lutra.protocol.HelloOk;
import org.lutra.protocol.Ok;
import org.lutra.protocol.ServerMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * One client connection: the login handshake, then request/response until the client quits.
 * Everything that goes wrong here stays here: a bad frame or a failed login closes this socket
 * only, a failing statement becomes an Error reply and the session goes on.
 */
final class Session implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Session.class);
    static final int PROTOCOL_VERSION = 1;
    /** {@link #waitingSince} of a session the idle sweep has claimed for closing. */
    private static final long CLOSING = -1;

    private final long id;
    private final Socket socket;
    private final RouterServer server;
    private InputStream in;
    private OutputStream out;
    private volatile boolean loginTimedOut;
    /** When the session began waiting for its client's next request (System.nanoTime), 0 while it runs one. */
    private final java.util.concurrent.atomic.AtomicLong waitingSince = new java.util.concurrent.atomic.AtomicLong();
    /** The logged-in user, once login succeeded and the user's session count was taken. */
    private volatile String user;
    /** Proves a Cancel request comes from this session's client (HelloOk.cancel_key). */
    private final byte[] cancelKey = Auth.newNonce();
    private volatile TransactionWorker worker;

    Session(long id, Socket socket, RouterServer server) {
        this.id = id;
        this.socket = socket;
        this.server = server;
    }

    @Override
    public void run() {
        // Resources close before a catch clause runs, so the protocol error is answered inside.
        try (socket; var worker = new TransactionWorker(server.planner(), server.executor(), server.transactions().session(), server::statusRows,
                server.config().limits()::statementDeadlineMillis)) {
            this.worker = worker;
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
            out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
            try {
                if (login()) {
                    serve(worker);
                }
            } catch (Frames.FrameException e) {
                log.info("session {}: closing after a protocol violation: {}", id, e.getMessage());
                sendQuietly(0, error("08P01", 0, "protocol violation: " + e.getMessage()));
            } catch (RuntimeException | java.lang.Error e) {
                // outside a statement (login, the request loop itself): the session ends, with an id to quote
                String incident = incident();
                log.error("session {}: internal error {}, closing the session", id, incident, e);
                sendQuietly(0, error("08S01", 0, "internal router error (incident " + incident + " in the router's log); the session was closed"));
            }
        } catch (IOException e) {
            if (loginTimedOut) log.info("session {}: login timed out", id);
            else if (waitingSince.get() == CLOSING) log.info("session {}: closed after idling past idle_timeout_seconds", id);
            else log.debug("session {}: connection ended: {}", id, e.getMessage());
        } catch (RuntimeException | java.lang.Error e) {
            log.error("session {}: internal error {} while closing the session", id, incident(), e); // rolling back, returning connections
        } finally {
            server.sessionEnded(this, user);
        }
    }

    private boolean login() throws IOException {
        byte[] nonce = Auth.newNonce();
        send(ServerMessage.newBuilder().setChallenge(Challenge.newBuilder()
                .setNonce(com.google.protobuf.ByteString.copyFrom(nonce))
                .setServerVersion(RouterServer.VERSION).setProtocolVersion(PROTOCOL_VERSION)));
        // A deadline for the whole handshake, not a read timeout: a socket timeout would also leave the
        // socket in non-blocking mode for the session's life (every later read would poll first).
        var limits = server.config().limits();
        var deadline = server.after(limits.loginTimeoutSeconds() * 1000L, () -> {
            loginTimedOut = true;
            close();
        });
        ClientMessage hello;
        try {
            // before login a frame may be small only: a Hello is a few hundred bytes
            hello = Frames.read(in, ClientMessage.parser(), Math.min(limits.maxLoginFrameBytes(), server.config().maxFrameBytes()));
        } finally {
            deadline.cancel(false);
        }
        if (hello == null) return false;
        if (hello.hasCancel()) {
            // no answer tells whether the id and key matched
            server.cancel(hello.getCancel().getSessionId(), hello.getCancel().getCancelKey().toByteArray());
            send(ServerMessage.newBuilder().setRequestId(hello.getRequestId()).setOk(org.lutra.protocol.Ok.newBuilder()));
            return false;
        }
        if (!hello.hasHello()) {
            throw new Frames.FrameException("expected Hello, got " + hello.getKindCase());
        }
        var h = hello.getHello();
        RouterConfig.User user = server.config().users().stream().filter(u -> u.name().equals(h.getUser())).findFirst().orElse(null);
        if (user == null || !Auth.verify(keyOf(user), nonce, h.getProof().toByteArray())) {
            log.info("session {}: access denied for user {} from {}", id, printable(h.getUser()), socket.getRemoteSocketAddress());
            send(error("28000", 1045, "Access denied for user " + printable(h.getUser())).setRequestId(hello.getRequestId()));
            return false;
        }
        String db = h.getDatabase();
        if (!db.isEmpty() && !db.equals(server.config().database())) {
            send(error("42000", 1049, "Unknown database '" + db + "' (this router serves '" + server.config().database() + "')")
                    .setRequestId(hello.getRequestId()));
            return false;
        }
        if (!server.userSessionStarted(user.name())) {
            int max = server.config().limits().maxSessionsPerUser();
            log.info("session {}: refused, user {} already has {} sessions (max_sessions_per_user)", id, printable(user.name()), max);
            send(error("42000", 1203, "User " + user.name() + " already has more than 'max_user_connections' (" + max
                    + ") active connections").setRequestId(hello.getRequestId()));
            return false;
        }
        this.user = user.name();
        send(ServerMessage.newBuilder().setRequestId(hello.getRequestId()).setHelloOk(HelloOk.newBuilder()
                .setSessionId(id).setCancelKey(com.google.protobuf.ByteString.copyFrom(cancelKey))
                .setServerVersion(RouterServer.VERSION).setMaxFrameBytes(server.config().maxFrameBytes())
                .setBackendVersion(server.backendIdentity().version()).setLowerCaseTableNames(server.backendIdentity().lowerCaseTableNames())));
        return true;
    }

    /** A short id that ties what a client was told to the router's log line with the details. */
    static String incident() {
        return java.util.UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * A client-chosen name as it may appear in a log line or a message: quoted, at most 64
     * characters, control and non-ASCII characters escaped, so a name cannot forge log lines or
     * carry terminal escapes.
     */
    static String printable(String name) {
        var out = new StringBuilder("'");
        for (int i = 0; i < name.length() && i < 64; i++) {
            char c = name.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') out.append(c);
            else out.append(String.format("\\u%04x", (int) c));
        }
        return out.append(name.length() > 64 ? "'... (" + name.length() + " characters)" : "'").toString();
    }

    private static byte[] keyOf(RouterConfig.User user) {
        return user.passwordSha256() != null ? HexFormat.of().parseHex(user.passwordSha256()) : Auth.passwordKey(user.password());
    }

    private void serve(TransactionWorker worker) throws IOException {
        ClientMessage request;
        while (true) {
            waitingSince.set(System.nanoTime());
            try {
                request = read();
            } finally {
                // the idle sweep may have claimed the session while the request arrived: it closes it
                if (waitingSince.getAndSet(0) == CLOSING) return;
            }
            if (request == null) return;
            ServerMessage.Builder reply;
            try {
                reply = switch (request.getKindCase()) {
                    case EXECUTE -> worker.execute(request.getExecute());
                    case EXECUTE_BATCH -> worker.executeBatch(request.getExecuteBatch());
                    case FETCH -> worker.fetch(request.getFetch().getCursorId(), request.getFetch().getFetchSize());
                    case CLOSE_CURSOR -> {
                        worker.closeCursor(request.getCloseCursor().getCursorId());
                        yield ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
                    }
                    case PING -> ServerMessage.newBuilder().setOk(Ok.getDefaultInstance());
                    case QUIT -> null;
                    case HELLO, CANCEL, KIND_NOT_SET -> throw new Frames.FrameException("unexpected " + request.getKindCase() + " after login");
                };
            } catch (SQLException e) {
                if (!(e instanceof PlanException)) log.debug("session {}: {}", id, e.getMessage());
                reply = error(e.getSQLState() == null ? "HY000" : e.getSQLState(), e.getErrorCode(), e.getMessage());
            } catch (RuntimeException | StackOverflowError e) {
                // the details are the log's; the client gets an id to quote, not the router's internals
                String incident = incident();
                log.warn("session {}: internal error {} on {}", id, incident, request.getKindCase(), e);
                reply = error("HY000", 0, "internal router error (incident " + incident + " in the router's log)");
            } catch (OutOfMemoryError e) {
                // one statement too big for the heap: it fails (MySQL's 1037), the session and the others go on
                String incident = incident();
                log.error("session {}: out of memory {} on {}", id, incident, request.getKindCase(), e);
                reply = error("HY001", 1037, "Out of memory in the router (incident " + incident + " in the router's log)");
            }
            if (reply == null) return;
            send(reply.setRequestId(request.getRequestId()).setStatus(worker.status()));
        }
    }

    private ClientMessage read() throws IOException {
        return Frames.read(in, ClientMessage.parser(), server.config().maxFrameBytes());
    }

    private void send(ServerMessage.Builder message) throws IOException {
        Frames.write(out, message.build());
    }

    private void sendQuietly(long requestId, ServerMessage.Builder message) {
        try {
            send(message.setRequestId(requestId));
        } catch (IOException ignored) {
            // the peer is already gone
        }
    }

    /** MySQL's bound on an error message (MYSQL_ERRMSG_SIZE): backend errors quote the statement back. */
    static final int MAX_ERROR_MESSAGE = 512;

    private static ServerMessage.Builder error(String state, int code, String message) {
        message = message == null ? "" : message;
        if (message.length() > MAX_ERROR_MESSAGE) message = message.substring(0, MAX_ERROR_MESSAGE - 3) + "...";
        return ServerMessage.newBuilder().setError(Error.newBuilder().setSqlState(state).setVendorCode(code).setMessage(message));
    }

    /**
     * Closes the session if it has waited longer than {@code idleNanos} for its client's next
     * request, telling the client why first (MySQL's 4031). Called by the router's idle sweep; the
     * compare-and-set decides between the sweep and a request arriving at the same moment, so
     * only one of them writes to the socket.
     */
    /** Stops the statement this session runs now, if {@code key} is its cancel key. */
    void cancel(long sessionId, byte[] key) {
        var w = worker;
        if (sessionId == id && user != null && w != null && java.security.MessageDigest.isEqual(cancelKey, key)) {
            log.info("session {}: statement cancelled by its client", id);
            w.cancelRunning();
        }
    }

    void closeIfIdle(long now, long idleNanos) {
        long since = waitingSince.get();
        if (since <= 0 || now - since < idleNanos || !waitingSince.compareAndSet(since, CLOSING)) return;
        sendQuietly(0, error("08S01", 4031, "The client was disconnected by the server because of inactivity (idle_timeout_seconds = "
                + idleNanos / 1_000_000_000L + ")"));
        close();
    }

    void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
