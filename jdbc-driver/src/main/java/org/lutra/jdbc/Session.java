package org.lutra.jdbc;

import com.google.protobuf.ByteString;
import org.lutra.protocol.AuthProof;
import org.lutra.protocol.Challenge;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.CloseCursor;
import org.lutra.protocol.FrameReader;
import org.lutra.protocol.FrameWriter;
import org.lutra.protocol.Frames;
import org.lutra.protocol.Hello;
import org.lutra.protocol.Quit;
import org.lutra.protocol.Scram;
import org.lutra.protocol.ServerMessage;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One socket to the router and the request/response pairing on it.
 *
 * <p>The protocol allows one request in flight per session and answers each with exactly one
 * message carrying the same request_id, so a lock around write-then-read is all the
 * multiplexing there is. Every answer's request_id is checked; a mismatch means the two sides
 * disagree about the conversation and the session is closed rather than guessed at.
 *
 * <p>A query timeout abandons a request without closing the session: its id is remembered and,
 * before the next request, its late answer is read and thrown away (closing the cursor it may
 * have opened). The protocol has no cancel, so the next request waits for the router to finish
 * the abandoned one, which it would have to do anyway since it serves a session in order.
 *
 * <p>Every answer that carries a {@code status} (all of them after login, errors included)
 * replaces the session's {@link TransactionStatus}, late answers of abandoned requests too: the
 * router has run those statements, so their effect on the transaction is real.
 */
final class Session {
    static final int PROTOCOL_VERSION = 2;
    static final String CLIENT_NAME = "lutra-jdbc " + LutraDriver.VERSION;

    /** The TCP socket: closing it unblocks a reader at once, with or without TLS. */
    private final Socket rawSocket;
    /** What the session reads and writes: {@link #rawSocket}, or the TLS socket over it. */
    private final Socket socket;
    /** Null without TLS; the cancel path's second connection uses it too. */
    private final Tls tls;
    private final FrameReader in;
    private final FrameWriter out;
    private final JdbcUrl.Host host;
    private final int maxFrameBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Long> abandoned = new ArrayDeque<>();
    private volatile boolean closed;
    private volatile int socketTimeoutMs;
    private long nextRequestId = 1;
    private int routerMaxFrameBytes = Frames.DEFAULT_MAX_FRAME_BYTES;
    private long sessionId;
    private String serverVersion = "";
    private String backendVersion = "";
    private int lowerCaseTableNames;
    private byte[] cancelKey = new byte[0];
    /** The request the session waits on now (0: none): the one Statement.cancel() names. */
    private volatile long inFlight;
    private volatile TransactionStatus transactionStatus = TransactionStatus.INITIAL;

    private Session(Socket rawSocket, Socket socket, Tls tls, JdbcUrl.Host host, int socketTimeoutMs, int maxFrameBytes) throws IOException {
        this.rawSocket = rawSocket;
        this.socket = socket;
        this.tls = tls;
        this.host = host;
        this.socketTimeoutMs = socketTimeoutMs;
        this.maxFrameBytes = maxFrameBytes;
        this.in = new FrameReader(socket); // reads with a time limit go through the socket's stream, which applies it
        this.out = new FrameWriter(socket);
    }

    /** Opens the socket (and its TLS, with {@code tls} not null) only; {@link #login} runs the handshake. */
    static Session open(JdbcUrl.Host host, Tls tls, int connectTimeoutMs, int socketTimeoutMs, int maxFrameBytes) throws IOException {
        // A channel's socket, not a plain Socket: the JDK's Socket switches to non-blocking mode for good
        // at its first wait with a time limit (the connect timeout, the login's reads), after which every
        // read of an answer is three system calls (a read that finds nothing, a poll, the read again). A
        // channel goes non-blocking only for a timed wait and back after it, so a statement without a
        // time limit reads its answer in one blocking read (docs/architecture.md, "Backend connections").
        var socket = java.nio.channels.SocketChannel.open().socket();
        try {
            socket.setTcpNoDelay(true); // small request frames must not wait for Nagle
            socket.setKeepAlive(true);
            socket.connect(new InetSocketAddress(host.name(), host.port()), connectTimeoutMs);
            return new Session(socket, tls == null ? socket : tls.wrap(socket, host, connectTimeoutMs), tls, host, socketTimeoutMs, maxFrameBytes);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Challenge, then {@link #authenticate}. Reads wait at most {@code timeoutMs} so that a peer that is not a
     * Lutra router (and says nothing) cannot hang the connect.
     */
    void login(String user, String password, String database, int timeoutMs) throws SQLException {
        lock.lock();
        try {
            ServerMessage challenge = read(timeoutMs);
            if (challenge.hasError()) {
                throw closeAfter(Errors.fromServer(challenge.getError()));
            }
            if (!challenge.hasChallenge()) {
                throw protocolViolation("expected Challenge, got " + challenge.getKindCase());
            }
            var answer = authenticate(user, password, database, challenge.getChallenge(), timeoutMs);
            var ok = answer.getHelloOk();
            sessionId = ok.getSessionId();
            serverVersion = ok.getServerVersion().isEmpty() ? challenge.getChallenge().getServerVersion() : ok.getServerVersion();
            backendVersion = ok.getBackendVersion();
            lowerCaseTableNames = ok.getLowerCaseTableNames();
            cancelKey = ok.getCancelKey().toByteArray();
            if (ok.getMaxFrameBytes() > 0) {
                routerMaxFrameBytes = ok.getMaxFrameBytes();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Protocol 2's proof of the password (Scram): Hello with a client nonce, SaltChallenge,
     * AuthProof, then HelloOk, whose server signature shows the router knows the user's keys
     * (a stranger that took the router's address does not).
     */
    private ServerMessage authenticate(String user, String password, String database, Challenge challenge, int timeoutMs) throws SQLException {
        if (challenge.getProtocolVersion() < PROTOCOL_VERSION) {
            throw closeAfter(Errors.of("the Lutra router " + host + " speaks protocol " + challenge.getProtocolVersion()
                    + ", this driver " + PROTOCOL_VERSION + " (salted password proofs): upgrade the router", Errors.UNABLE_TO_CONNECT));
        }
        byte[] clientNonce = Scram.newClientNonce();
        long id = nextRequestId++;
        write(ClientMessage.newBuilder().setRequestId(id).setHello(Hello.newBuilder()
                .setUser(user).setDatabase(database).setClientNonce(ByteString.copyFrom(clientNonce))
                .setClientName(CLIENT_NAME).setProtocolVersion(PROTOCOL_VERSION)).build());
        ServerMessage salt = read(timeoutMs);
        if (salt.hasError()) throw closeAfter(Errors.fromServer(salt.getError())); // the router closes after a refused login; so do we
        checkPairing(id, salt);
        if (!salt.hasSaltChallenge()) throw protocolViolation("expected SaltChallenge, got " + salt.getKindCase());
        int iterations = salt.getSaltChallenge().getIterations();
        if (iterations < Scram.MIN_ITERATIONS) {
            throw closeAfter(Errors.of("the Lutra router " + host + " asked for " + iterations + " PBKDF2 iterations, fewer than "
                    + Scram.MIN_ITERATIONS + ": no proof sent (it would be cheap to crack)", Errors.UNABLE_TO_CONNECT));
        }
        byte[] saltBytes = salt.getSaltChallenge().getSalt().toByteArray();
        byte[] salted = SaltedPasswords.get(password, saltBytes, iterations);
        byte[] transcript = Scram.authMessage(user, challenge.getNonce().toByteArray(), clientNonce, saltBytes, iterations);
        id = nextRequestId++;
        write(ClientMessage.newBuilder().setRequestId(id).setAuthProof(AuthProof.newBuilder()
                .setProof(ByteString.copyFrom(Scram.clientProof(salted, transcript)))).build());
        ServerMessage answer = read(timeoutMs);
        if (answer.hasError()) throw closeAfter(Errors.fromServer(answer.getError())); // 28000 stays 28000
        checkPairing(id, answer);
        if (!answer.hasHelloOk()) throw protocolViolation("expected HelloOk, got " + answer.getKindCase());
        if (!Scram.verifyServerSignature(salted, transcript, answer.getHelloOk().getServerSignature().toByteArray())) {
            throw closeAfter(Errors.of("the Lutra router " + host + " accepted the login without proving it knows the user's password"
                    + " keys: not the configured router? The connection was closed", Errors.UNABLE_TO_CONNECT));
        }
        return answer;
    }

    /**
     * Sends one request and returns its answer. An Error answer is thrown as an SQLException; the
     * session stays usable unless the state is a connection error (08xxx), after which the router
     * has closed its end.
     *
     * @param queryTimeoutMs 0, or how long to wait for the first byte of the answer before
     *                       abandoning the request (SQLTimeoutException, session kept)
     */
    ServerMessage call(ClientMessage.Builder request, int queryTimeoutMs) throws SQLException {
        lock.lock();
        try {
            ensureOpen();
            drainAbandoned();
            long id = nextRequestId++;
            ClientMessage message = request.setRequestId(id).build();
            inFlight = id;
            int size = message.getSerializedSize();
            if (size > routerMaxFrameBytes) {
                // Refused before sending: the router would drop the whole session for it.
                throw Errors.of("request of " + size + " bytes exceeds the router's frame limit of "
                        + routerMaxFrameBytes + " bytes", "54000");
            }
            write(message);
            // The query timeout abandons the request; a shorter socket timeout ends the session instead.
            boolean queryTimeoutFirst = queryTimeoutMs > 0 && (socketTimeoutMs == 0 || queryTimeoutMs < socketTimeoutMs);
            if (queryTimeoutFirst && !awaitAnswer(queryTimeoutMs)) {
                abandoned.add(id);
                throw Errors.queryTimeout((queryTimeoutMs + 999) / 1000);
            }
            ServerMessage answer = read(socketTimeoutMs);
            checkPairing(id, answer);
            if (answer.hasError()) {
                var e = Errors.fromServer(answer.getError());
                throw answer.getError().getSqlState().startsWith("08") ? closeAfter(e) : e;
            }
            return answer;
        } finally {
            inFlight = 0;
            lock.unlock();
        }
    }

    /** Reads and discards the late answers of abandoned requests, closing cursors they opened. */
    private void drainAbandoned() throws SQLException {
        while (!abandoned.isEmpty()) {
            long id = abandoned.peek();
            ServerMessage late = read(socketTimeoutMs);
            checkPairing(id, late);
            abandoned.poll();
            if (late.hasResultSet()) {
                var batch = late.getResultSet().getFirstBatch();
                if (batch.getCursorId() != 0 && !batch.getLast()) {
                    long closeId = nextRequestId++;
                    write(ClientMessage.newBuilder().setRequestId(closeId)
                            .setCloseCursor(CloseCursor.newBuilder().setCursorId(batch.getCursorId())).build());
                    checkPairing(closeId, read(socketTimeoutMs));
                }
            }
        }
    }

    /** Waits for the first byte of an answer without consuming it; false on timeout. */
    private boolean awaitAnswer(int timeoutMs) throws SQLException {
        try {
            socket.setSoTimeout(timeoutMs);
            if (!in.awaitBytes()) {
                throw closeAfter(Errors.of("Lutra router " + host + " closed the connection", Errors.CONNECTION_FAILURE));
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            throw closeAfter(Errors.connectionLost(host.toString(), e));
        }
    }

    /**
     * Statement.cancel(): asks the router, on a connection of its own (this one is busy waiting
     * for the statement), to stop what this session runs now. The statement then ends with
     * 70100/1317; one that already finished is not affected. Not under the session's lock.
     */
    void cancel() throws SQLException {
        if (cancelKey.length == 0) throw Errors.unsupported("Statement.cancel with a router older than this driver");
        long target = inFlight;
        if (target == 0) return; // nothing runs: nothing to stop (and nothing the next statement could take for its own cancel)
        try (var raw = new Socket()) {
            raw.setTcpNoDelay(true);
            raw.connect(new InetSocketAddress(host.name(), host.port()), CANCEL_TIMEOUT_MS);
            var s = tls == null ? raw : tls.wrap(raw, host, CANCEL_TIMEOUT_MS); // a cancel key never crosses in clear where the session does not
            s.setSoTimeout(CANCEL_TIMEOUT_MS);
            var cin = new BufferedInputStream(s.getInputStream());
            var cout = new BufferedOutputStream(s.getOutputStream());
            ServerMessage challenge = Frames.read(cin, ServerMessage.parser(), maxFrameBytes);
            if (challenge == null || !challenge.hasChallenge()) {
                throw Errors.of("cancel: the router at " + host + " did not greet a new connection"
                        + (challenge != null && challenge.hasError() ? ": " + challenge.getError().getMessage() : ""), Errors.CONNECTION_FAILURE);
            }
            Frames.write(cout, ClientMessage.newBuilder().setRequestId(1).setCancel(org.lutra.protocol.Cancel.newBuilder()
                    .setSessionId(sessionId).setCancelKey(ByteString.copyFrom(cancelKey)).setRequestId(target)).build());
            Frames.read(cin, ServerMessage.parser(), maxFrameBytes); // Ok: sent whether or not anything ran
        } catch (IOException e) {
            throw Errors.of("cancel: could not reach the router at " + host + ": " + e.getMessage(), Errors.CONNECTION_FAILURE, 0, e);
        }
    }

    private static final int CANCEL_TIMEOUT_MS = 10_000;

    private ServerMessage read(int timeoutMs) throws SQLException {
        try {
            socket.setSoTimeout(timeoutMs);
            ServerMessage m = in.read(ServerMessage.parser(), maxFrameBytes);
            if (m == null) {
                throw closeAfter(Errors.of("Lutra router " + host + " closed the connection", Errors.CONNECTION_FAILURE));
            }
            if (m.hasStatus()) {
                transactionStatus = transactionStatus.next(m.getStatus()); // only this thread writes: it holds the lock
            }
            return m;
        } catch (Frames.FrameException e) {
            // An oversized or garbled frame leaves the stream at an unknown position: nothing after
            // it can be trusted, so the session ends here (the router does the same).
            throw closeAfter(Errors.of("bad frame from Lutra router " + host + ": " + e.getMessage()
                    + "; the connection was closed", Errors.CONNECTION_FAILURE, 0, e));
        } catch (IOException e) {
            throw closeAfter(Errors.connectionLost(host.toString(), e));
        }
    }

    private void write(ClientMessage message) throws SQLException {
        try {
            out.write(message);
        } catch (IOException e) {
            throw closeAfter(Errors.connectionLost(host.toString(), e));
        }
    }

    private void checkPairing(long expected, ServerMessage answer) throws SQLException {
        if (answer.getRequestId() != expected) {
            if (answer.hasError() && answer.getRequestId() == 0) {
                // The router may fail a session before it could read our request (e.g. 08P01).
                throw closeAfter(Errors.fromServer(answer.getError()));
            }
            throw protocolViolation("answer for request " + answer.getRequestId() + " while waiting for request " + expected);
        }
    }

    /** For callers that got an answer of a kind their request cannot have: the session ends. */
    SQLException unexpected(ServerMessage answer, String request) {
        return protocolViolation("answered " + request + " with " + answer.getKindCase());
    }

    private SQLException protocolViolation(String what) {
        return closeAfter(Errors.of("protocol violation by Lutra router " + host + ": " + what
                + "; the connection was closed", Errors.PROTOCOL_VIOLATION));
    }

    private SQLException closeAfter(SQLException e) {
        abort();
        return e;
    }

    private void ensureOpen() throws SQLException {
        if (closed) {
            throw Errors.closed("connection");
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Says goodbye if the session is idle; a busy session (another thread in a call) is just cut. */
    void close() {
        if (closed) {
            return;
        }
        if (lock.tryLock()) {
            try {
                if (!closed) {
                    write(ClientMessage.newBuilder().setRequestId(nextRequestId++).setQuit(Quit.getDefaultInstance()).build());
                }
            } catch (SQLException ignored) {
                // the socket is going away either way
            } finally {
                lock.unlock();
            }
        }
        abort();
    }

    /** Refuses further requests; the socket stays until {@link #abort} (Connection.abort's contract). */
    void markClosed() {
        closed = true;
    }

    /** Closes the socket without taking the lock, so it also unblocks a thread waiting in a read. */
    void abort() {
        closed = true;
        try {
            rawSocket.close(); // not the TLS socket, whose close could wait for the read it is meant to unblock
        } catch (IOException ignored) {
            // nothing left to release
        }
    }

    void setSocketTimeoutMs(int ms) {
        socketTimeoutMs = ms;
    }

    int socketTimeoutMs() {
        return socketTimeoutMs;
    }

    /** As of the latest answer that carried one; {@link TransactionStatus#INITIAL} before. */
    TransactionStatus transactionStatus() {
        return transactionStatus;
    }

    long sessionId() {
        return sessionId;
    }

    String serverVersion() {
        return serverVersion;
    }

    /** The largest request the router takes (HelloOk.max_frame_bytes). */
    int routerMaxFrameBytes() {
        return routerMaxFrameBytes;
    }

    /** VERSION() of the router's backends ("11.4.5-MariaDB"); empty if the router did not say. */
    String backendVersion() {
        return backendVersion;
    }

    /** The backends' lower_case_table_names: 0 = table names are case-sensitive. */
    int lowerCaseTableNames() {
        return lowerCaseTableNames;
    }

    JdbcUrl.Host host() {
        return host;
    }
}
