package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.lutra.log.LogText;
import org.lutra.server.ClientConnection;
import org.lutra.server.RouterServer;
import org.lutra.server.SessionCore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MySQL client connection. Netty's event loop reads its bytes and cuts them into packets
 * ({@link PacketDecoder}); the packets are handled in order on a worker thread of the listener's
 * pool, which holds a thread only while the connection has something to do: the login
 * ({@link MysqlLogin}), then commands ({@link MysqlCommands}) run against the session core every
 * listener shares. Answers are written as whole buffers; a large result waits while the socket's
 * outbound buffer is over its high-water mark (backpressure), and reading from a client that
 * sends faster than its commands run pauses the same way.
 *
 * <p>What goes wrong stays here: a malformed packet gets an error and closes this connection only.
 *
 * <p>Its length is one connection's threading protocol: the packet queue and the one worker draining it, backpressure
 * both ways, the login deadline, the idle sweep's claim and a close from any thread share these fields, and each method
 * reads or writes them under that protocol; what a login or a command does is {@link MysqlLogin}'s and {@link MysqlCommands}'.
 */
final class MysqlConnection extends ChannelInboundHandlerAdapter implements ClientConnection {
    private static final Logger log = LoggerFactory.getLogger(MysqlConnection.class);
    /** {@link #waitingSince} of a connection the idle sweep has claimed for closing. */
    private static final long CLOSING = -1;
    private static final Object CLOSED = new Object();
    /** Packets queued before the connection stops reading from its client. */
    private static final int MAX_QUEUED = 64;

    private final RouterServer server;
    private final MysqlListener listener;
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicLong waitingSince = new AtomicLong();
    private final Object writable = new Object();
    private volatile Channel channel;
    private PacketWriter out;
    private long id;
    private String address = "?";
    private volatile boolean registered;
    private volatile boolean closeRequested;
    private volatile ScheduledFuture<?> loginDeadline;
    private volatile boolean loginTimedOut;
    private MysqlLogin login;
    private MysqlCommands commands;
    private volatile SessionCore core;
    /** The user counted against its session limit at login; null before. */
    private String countedUser;
    private boolean finished;
    /** The worker thread draining the queue now, and whether it runs a command (see {@link #awaitCommandEnd}). */
    private volatile Thread worker;
    private boolean inCommand;
    /** The socket as the worker reads and writes it itself, for a plaintext connection after its login; null before and with TLS. */
    private volatile DirectSocket direct;

    MysqlConnection(RouterServer server, MysqlListener listener) {
        this.server = server;
        this.listener = listener;
    }

    // ---- event loop ------------------------------------------------------------------------

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        out = new PacketWriter(channel.alloc());
        if (channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) address = a.getAddress().getHostAddress();
        if (!server.sessions().roomForAnother()) {
            server.metrics().sessionRefused("mysql", "max_sessions");
            log.warn("refused a MySQL connection from {}: max_sessions reached", address);
            Packets.error(out, 1040, "08004", "Too many connections (max_sessions = " + server.config().limits().maxSessions() + ")");
            channel.writeAndFlush(out.take()).addListener(f -> channel.close());
            return;
        }
        id = server.sessions().nextId();
        server.sessions().started(this);
        registered = true;
        loginDeadline = server.after(server.config().limits().loginTimeoutSeconds() * 1000L, () -> {
            loginTimedOut = true;
            close();
        });
        enqueue(Greeting.INSTANCE);
    }

    private enum Greeting { INSTANCE }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (waitingSince.getAndSet(0) == CLOSING) { // the idle sweep closes this connection
            release(msg);
            return;
        }
        enqueue(msg);
        if (queue.size() > MAX_QUEUED) ctx.channel().config().setAutoRead(false);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        enqueue(CLOSED);
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof java.io.IOException)) log.info("session {}: closing: {}", id, String.valueOf(cause.getMessage()));
        ctx.close();
    }

    private void enqueue(Object msg) {
        queue.add(msg);
        if (draining.compareAndSet(false, true)) {
            listener.workers().execute(this::drain);
        } else {
            var d = direct;
            if (d != null) d.wakeup(); // the worker may be waiting on the socket: this comes first
        }
    }

    // ---- worker ----------------------------------------------------------------------------

    /** Handles queued packets in order, on one worker thread at a time. */
    private void drain() {
        worker = Thread.currentThread();
        try {
            drainQueue();
        } finally {
            worker = null;
        }
    }

    private void drainQueue() {
        while (true) {
            Object msg;
            while ((msg = queue.poll()) != null) {
                try {
                    handle(msg);
                } finally {
                    release(msg);
                }
            }
            if (direct != null && !finished && readDirectly()) continue;
            if (core != null && !finished) waitingSince.compareAndSet(0, System.nanoTime());
            if (channel != null && !channel.config().isAutoRead() && !finished) channel.config().setAutoRead(true);
            draining.set(false);
            if (queue.isEmpty() || !draining.compareAndSet(false, true)) return;
        }
    }

    /**
     * After a command, keeps reading the client's socket on this worker for a while ({@link DirectSocket}); true when
     * packets (or the loop's news of a close) were queued, false when the client stayed idle and the event loop reads again.
     */
    private boolean readDirectly() {
        var d = direct;
        if (!d.reading() && !d.take()) return false;
        waitingSince.compareAndSet(0, System.nanoTime());
        return switch (d.read(queue, this::acceptRead)) {
            case PACKETS -> true;
            case IDLE -> {
                d.giveBack();
                out.discard(); // nothing is pending after a command: this frees the buffer kept for the next answer
                yield false;
            }
            case GONE -> false;
        };
    }

    /** Packets the worker read itself: dropped when the idle sweep has claimed the connection, as {@link #channelRead} does. */
    private boolean acceptRead(java.util.List<Object> packets) {
        if (waitingSince.getAndSet(0) != CLOSING) return true;
        packets.forEach(MysqlConnection::release);
        return false;
    }

    private void handle(Object msg) {
        if (finished || closeRequested && msg instanceof PacketDecoder.Packet) return;
        try {
            if (msg == CLOSED) {
                finish();
            } else if (msg == Greeting.INSTANCE) {
                login = new MysqlLogin(id, address, listener.loginGate(), listener.passwords(), listener.tlsRequired());
                Packets.greeting(out, listener.serverVersion(), id, login.scramble(), listener.capabilities(), MysqlWire.SERVER_STATUS_AUTOCOMMIT,
                        MysqlPasswords.CACHING_SHA2);
                send();
            } else if (msg instanceof PacketDecoder.TooLarge large) {
                log.info("session {}: closing: a packet of {} bytes, over the {} allowed", id, large.announced(), large.max());
                fail(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes (" + large.announced() + " > " + large.max() + ")");
            } else if (msg instanceof PacketDecoder.TlsRequested tls) {
                login.tlsStarted();
                out.sequence(tls.sequence() + 1);
            } else if (msg instanceof PacketDecoder.Packet packet) {
                out.sequence(packet.sequence() + 1);
                if (commands != null) {
                    commanding(true);
                    try {
                        if (!commands.handle(packet.payload())) close();
                        send();
                    } finally {
                        commanding(false);
                    }
                } else {
                    login(packet.payload());
                }
                send();
            }
        } catch (MalformedPacket | IndexOutOfBoundsException | IllegalArgumentException e) {
            log.info("session {}: closing after a malformed packet: {}", id, e.getMessage());
            fail(1835, "08S01", "Malformed communication packet (" + e.getMessage() + ")");
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            String incident = java.util.UUID.randomUUID().toString().substring(0, 8);
            log.error("session {}: internal error {}, closing the session", id, incident, LogText.redacted(e));
            fail(0, "08S01", "internal router error (incident " + incident + " in the router's log); the session was closed");
        }
    }

    private void login(ByteBuf packet) {
        var outcome = login.next(packet, out);
        if (outcome == null) return;
        var deadline = loginDeadline;
        if (deadline != null) deadline.cancel(false);
        switch (outcome) {
            case MysqlLogin.Outcome.Refused r -> {
                Packets.error(out, r.error().getVendorCode(), r.error().getSqlState(), r.error().getMessage());
                send();
                close();
            }
            case MysqlLogin.Outcome.LoggedIn in -> {
                countedUser = in.user();
                core = server.openSession(id, in.user(), address);
                commands = new MysqlCommands(this, in.hello(), ClientCharset.of(in.hello().collation()));
                listener.decoder(channel).maxPayload(server.config().maxFrameBytes());
                if (channel instanceof ClientSockets.Client c && channel.pipeline().get("tls") == null) {
                    direct = new DirectSocket(c, listener.decoder(channel));
                }
                login = null;
                Packets.ok(out, 0, 0, MysqlWire.SERVER_STATUS_AUTOCOMMIT, 0, "");
            }
        }
    }

    /** An error that ends the connection: sent, then closed. */
    private void fail(int code, String state, String message) {
        out.discard();
        Packets.error(out, code, state, message);
        send();
        close();
    }

    private void finish() {
        if (finished) return;
        finished = true;
        if (loginTimedOut) log.info("session {}: login timed out", id);
        else if (waitingSince.get() == CLOSING) log.info("session {}: closed after idling past idle_timeout_seconds", id);
        try {
            var d = direct;
            if (d != null) d.release();
            if (commands != null) commands.close();
            if (core != null) core.close();
        } catch (RuntimeException e) {
            log.error("session {}: internal error while closing the session", id, LogText.redacted(e));
        } finally {
            out.discard();
            if (registered) server.sessions().ended(this, countedUser);
        }
    }

    private void commanding(boolean running) {
        synchronized (writable) {
            inCommand = running;
            if (!running) writable.notifyAll();
        }
    }

    @Override
    public void awaitCommandEnd(long millis) {
        if (Thread.currentThread() == worker) return;
        long end = System.nanoTime() + millis * 1_000_000L;
        synchronized (writable) {
            for (long left = millis; inCommand && left > 0; left = (end - System.nanoTime()) / 1_000_000L) {
                try {
                    writable.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        // the answer was handed to the event loop; a task queued after it runs once it is flushed to the socket
        var c = channel;
        if (c != null && c.isActive() && !c.eventLoop().inEventLoop()) {
            c.eventLoop().submit(() -> {}).awaitUninterruptibly(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
        }
    }

    /** Writes what the writer holds. */
    void send() {
        ByteBuf b = out.take();
        if (b == null) return;
        var d = direct;
        if (d != null && Thread.currentThread() == worker) {
            if (d.write(b)) out.reuse(b);
        } else {
            channel.writeAndFlush(b, channel.voidPromise());
        }
    }

    /** Writes what the writer holds and waits while the client is slower than the result (the outbound buffer over its high mark). */
    void sendAndWait() {
        send();
        synchronized (writable) {
            while (!channel.isWritable() && channel.isActive()) {
                try {
                    writable.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    boolean open() {
        return channel.isActive();
    }

    PacketWriter out() {
        return out;
    }

    /** COM_RESET_CONNECTION: a fresh session (transaction rolled back, variables and cursors gone), the same id and login. */
    void resetSession() {
        core.close();
        core = server.openSession(id, countedUser, address);
    }

    RouterServer server() {
        return server;
    }

    String database() {
        return server.config().database();
    }

    long sessionId() {
        return id;
    }

    String address() {
        return address;
    }

    private static void release(Object msg) {
        if (msg instanceof PacketDecoder.Packet p) p.payload().release();
    }

    // ---- ClientConnection --------------------------------------------------------------------

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
        var w = new PacketWriter(channel.alloc());
        w.sequence(0);
        Packets.error(w, 4031, "08S01", "The client was disconnected by the server because of inactivity (idle_timeout_seconds = "
                + idleNanos / 1_000_000_000L + ")");
        channel.writeAndFlush(w.take()).addListener(f -> channel.close());
    }

    @Override
    public void close() {
        closeRequested = true; // the channel closes on its event loop: no command read before then is answered (KILL CONNECTION)
        var c = channel;
        if (c != null) c.close();
    }

    /** A packet too short for what its command says it holds. */
    static final class MalformedPacket extends RuntimeException {
        MalformedPacket(String message) {
            super(message);
        }
    }
}
