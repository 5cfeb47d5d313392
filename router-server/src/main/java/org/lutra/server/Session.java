package org.lutra.server;

import org.lutra.log.LogText;

import org.lutra.protocol.Auth;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.FrameReader;
import org.lutra.protocol.FrameWriter;
import org.lutra.protocol.Frames;
import org.lutra.protocol.ServerMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Socket;

/**
 * One client connection: the login handshake, then request/response until the client quits.
 * Everything that goes wrong here stays here: a bad frame or a failed login closes this socket
 * only, a failing statement becomes an Error reply and the session goes on.
 */
final class Session implements Runnable, ClientConnection {
    private static final Logger log = LoggerFactory.getLogger(Session.class);
    /** {@link #waitingSince} of a session the idle sweep has claimed for closing. */
    private static final long CLOSING = -1;

    private final long id;
    /** The client's TCP socket: closing it ends the session from any thread, TLS or not. */
    private final Socket rawSocket;
    /** What the session reads and writes: the TCP socket, or the TLS socket over it once the handshake is done. */
    private volatile Socket socket;
    private final RouterServer server;
    private FrameReader in;
    private FrameWriter out;
    private volatile boolean loginTimedOut;
    /** When the session began waiting for its client's next request (System.nanoTime), 0 while it runs one. */
    private final java.util.concurrent.atomic.AtomicLong waitingSince = new java.util.concurrent.atomic.AtomicLong();
    /** The logged-in user, once login succeeded and the user's session count was taken. */
    private volatile String user;
    /** Proves a Cancel request comes from this session's client (HelloOk.cancel_key). */
    private final byte[] cancelKey = Auth.newNonce();
    private volatile SessionCore core;

    Session(long id, Socket socket, RouterServer server) {
        this.id = id;
        this.rawSocket = socket;
        this.socket = socket;
        this.server = server;
    }

    @Override
    public void run() {
        // Resources close before a catch clause runs, so the protocol error is answered inside.
        try (java.io.Closeable closing = () -> close(rawSocket)) {
            rawSocket.setTcpNoDelay(true);
            // A deadline for the whole handshake (TLS and login), not a read timeout: a socket timeout would also
            // leave the socket in non-blocking mode for the session's life (every later read would poll first).
            var deadline = server.after(server.config().limits().loginTimeoutSeconds() * 1000L, () -> {
                loginTimedOut = true;
                close();
            });
            try {
                if (!secure()) return;
                in = new FrameReader(socket);
                out = new FrameWriter(socket);
                try {
                    user = new Login(id, cancelKey, server, in, out, address()).run();
                } finally {
                    deadline.cancel(false);
                }
                if (user != null) {
                    try (var session = server.openSession(id, user, address())) {
                        this.core = session;
                        serve(session);
                    }
                }
            } catch (Frames.FrameException e) {
                log.info("session {}: closing after a protocol violation: {}", id, e.getMessage());
                sendQuietly(0, error("08P01", 0, "protocol violation: " + e.getMessage()));
            } catch (javax.net.ssl.SSLException e) {
                if (!loginTimedOut) log.info("session {}: TLS handshake with {} failed: {}", id, address(), e.getMessage());
            } catch (RuntimeException | java.lang.Error e) {
                // outside a statement (login, the request loop itself): the session ends, with an id to quote
                String incident = incident();
                log.error("session {}: internal error {}, closing the session", id, incident, LogText.redacted(e));
                sendQuietly(0, error("08S01", 0, "internal router error (incident " + incident + " in the router's log); the session was closed"));
            } finally {
                deadline.cancel(false);
                if (socket != rawSocket) socket.close();
            }
        } catch (IOException e) {
            if (loginTimedOut) log.info("session {}: login timed out", id);
            else if (waitingSince.get() == CLOSING) log.info("session {}: closed after idling past idle_timeout_seconds", id);
            else log.debug("session {}: connection ended: {}", id, e.getMessage());
        } catch (RuntimeException | java.lang.Error e) {
            log.error("session {}: internal error {} while closing the session", id, incident(), LogText.redacted(e)); // rolling back, returning connections
        } finally {
            server.sessions().ended(this, user);
        }
    }

    /** With TLS on the client port, replaces {@link #socket} by the TLS socket over it; false: the client was refused for plaintext. */
    private boolean secure() throws IOException {
        var tls = server.tls();
        if (tls == null) return true;
        var secured = tls.accept(rawSocket, server);
        if (secured == null) {
            if (!loginTimedOut) log.info("session {}: refused a client from {} that does not speak TLS", id, address());
            return false;
        }
        socket = secured;
        return true;
    }

    /** The client's IP address, as the login throttle counts it and log lines name it. */
    private String address() {
        return rawSocket.getInetAddress() == null ? "?" : rawSocket.getInetAddress().getHostAddress();
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
        return printable(name, 64);
    }

    /** Client-chosen text (a name, a statement, an error quoting one) for a log line: as {@link #printable(String)}, cut at {@code max}. */
    static String printable(String text, int max) {
        return LogText.printable(text, max);
    }

    private void serve(SessionCore session) throws IOException {
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
            var reply = session.answer(request);
            if (reply == null) return;
            send(reply);
        }
    }

    private ClientMessage read() throws IOException {
        return in.read(ClientMessage.parser(), server.config().maxFrameBytes());
    }

    private void send(ServerMessage.Builder message) throws IOException {
        out.write(message.build());
    }

    private void sendQuietly(long requestId, ServerMessage.Builder message) {
        try {
            send(message.setRequestId(requestId));
        } catch (IOException ignored) {
            // the peer is already gone
        }
    }

    static ServerMessage.Builder error(String state, int code, String message) {
        return SessionCore.error(state, code, message);
    }

    /**
     * Closes the session if it has waited longer than {@code idleNanos} for its client's next
     * request, telling the client why first (MySQL's 4031). Called by the router's idle sweep; the
     * compare-and-set decides between the sweep and a request arriving at the same moment, so
     * only one of them writes to the socket.
     */
    /** Stops request {@code requestId} (0: whatever runs) if this session runs it and {@code key} is its cancel key. */
    void cancel(long sessionId, byte[] key, long requestId) {
        var c = core;
        if (sessionId == id && c != null && java.security.MessageDigest.isEqual(cancelKey, key)) {
            log.info("session {}: request {} cancelled by its client", id, requestId);
            c.cancel(requestId);
        }
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public SessionCore core() {
        return core;
    }

    @Override
    public void closeIfIdle(long now, long idleNanos) {
        long since = waitingSince.get();
        if (since <= 0 || now - since < idleNanos || !waitingSince.compareAndSet(since, CLOSING)) return;
        sendQuietly(0, error("08S01", 4031, "The client was disconnected by the server because of inactivity (idle_timeout_seconds = "
                + idleNanos / 1_000_000_000L + ")"));
        close();
    }

    @Override
    public void close() {
        close(rawSocket); // not the TLS socket: its close may wait for a read another thread is blocked in
    }

    /**
     * Closes a client's socket the way the JDK's plain sockets do: the end of the router's output (a FIN) first, then the
     * socket. A channel's socket (RouterServer accepts those) closes at once, and with bytes from the client still unread
     * the kernel then answers with a reset, which can cost the client the error frame sent just before (SecurityIT: a
     * plaintext client's refusal).
     */
    static void close(Socket socket) {
        try {
            if (!socket.isClosed() && !socket.isOutputShutdown()) socket.shutdownOutput();
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
