package org.lutra.server;

import org.lutra.protocol.Frames;
import org.lutra.protocol.ServerMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The listener of the Lutra driver's protocol (the router's {@code listen} port): accepts connections and gives each
 * session a platform thread of its own; connections beyond max_sessions are refused on the acceptor thread.
 */
final class LutraListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LutraListener.class);
    static final long SESSION_STACK_BYTES = 4 << 20;

    private final RouterServer server;
    private final ServerSocket socket;
    private final Thread acceptor;

    private LutraListener(RouterServer server, ServerSocket socket) {
        this.server = server;
        this.socket = socket;
        this.acceptor = Thread.ofPlatform().name("lutra-accept").daemon(true).unstarted(this::acceptLoop);
    }

    /** Binds the port; {@link #start} accepts on it. */
    static LutraListener bind(RouterServer server, String host, int port) throws IOException {
        // a channel's server socket: it accepts channels' sockets, which FrameReader and FrameWriter read and write
        // without the JDK's per-call temporary buffers
        var socket = java.nio.channels.ServerSocketChannel.open().socket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), port), 256);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
        return new LutraListener(server, socket);
    }

    void start() {
        acceptor.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket accepted = socket.accept();
                if (!server.sessions().roomForAnother()) {
                    refuse(accepted);
                    continue;
                }
                var session = new Session(server.sessions().nextId(), accepted, server);
                server.sessions().started(session);
                // A platform thread per session: a session blocks on its client and its backends in
                // turn, and a blocking read on a platform thread is one system call, where a virtual
                // thread parks, registers with the poller and is handed back to a carrier
                // (measured side by side: virtual-thread sessions cost about twice the router CPU per point select at 1 client).
                // 4 MB of stack, not the default 1: the parser and the planner recurse per level of a statement, and
                // the nesting and operator-chain limits (Guards) are set for this much (reserved, committed as used);
                // 2 MB overflowed on a 2,000-term sum (the chain limit) planned in a cold JVM (HostileInputIT)
                Thread.ofPlatform().daemon().name("lutra-session-" + server.sessions().lastId()).stackSize(SESSION_STACK_BYTES).start(session);
            } catch (IOException e) {
                if (!socket.isClosed()) log.warn("accept failed: {}", e.getMessage());
            }
        }
    }

    /** Sessions beyond max_sessions are told so (MySQL's 1040, in place of the challenge) and closed, on the acceptor thread. */
    private void refuse(Socket client) {
        server.metrics().sessionRefused("lutra", "max_sessions");
        log.warn("refused a connection from {}: {} sessions open (max_sessions)", client.getRemoteSocketAddress(), server.sessions().count());
        try {
            client.setSoTimeout(1_000);
            Frames.write(client.getOutputStream(), ServerMessage.newBuilder().setError(org.lutra.protocol.Error.newBuilder()
                    .setSqlState("08004").setVendorCode(1040).setMessage("Too many connections (max_sessions = "
                            + server.config().limits().maxSessions() + ")")).build());
        } catch (IOException ignored) {
            // the client is gone already
        } finally {
            Session.close(client);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
