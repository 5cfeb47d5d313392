package org.lutra.server.mysql;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import org.lutra.server.RouterServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The router's MySQL-protocol listener (router config {@code mysql: { listen: HOST:PORT }}): any
 * MySQL client reaches the same sessions, planner and transactions as the Lutra driver. Netty's
 * NIO event loops own the sockets, so an idle connection costs no thread; a connection's packets
 * run on a pooled worker thread while it has work ({@link MysqlConnection}), which reads and writes
 * a busy plaintext connection's socket itself ({@link DirectSocket}).
 */
public final class MysqlListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MysqlListener.class);

    /** What the router offers in its greeting (CLIENT_SSL added when it has a certificate). */
    static final int SERVER_CAPABILITIES = MysqlWire.CLIENT_LONG_PASSWORD | MysqlWire.CLIENT_FOUND_ROWS | MysqlWire.CLIENT_LONG_FLAG
            | MysqlWire.CLIENT_CONNECT_WITH_DB | MysqlWire.CLIENT_PROTOCOL_41 | MysqlWire.CLIENT_INTERACTIVE | MysqlWire.CLIENT_TRANSACTIONS
            | MysqlWire.CLIENT_SECURE_CONNECTION | MysqlWire.CLIENT_MULTI_STATEMENTS | MysqlWire.CLIENT_MULTI_RESULTS
            | MysqlWire.CLIENT_PS_MULTI_RESULTS | MysqlWire.CLIENT_PLUGIN_AUTH | MysqlWire.CLIENT_CONNECT_ATTRS
            | MysqlWire.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | MysqlWire.CLIENT_DEPRECATE_EOF;

    private final RouterServer server;
    private final MysqlPasswords passwords;
    private final org.lutra.server.LoginGate loginGate;
    private final String serverVersion;
    private final int capabilities;
    private final EventLoopGroup boss;
    private final EventLoopGroup loops;
    private final ExecutorService workers;
    private final Channel channel;

    private MysqlListener(RouterServer server, String host, int port) throws InterruptedException {
        this.server = server;
        this.passwords = new MysqlPasswords(server.credentials());
        this.loginGate = server.loginGate("mysql");
        this.serverVersion = server.backendVersion() + "-lutra";
        var tls = server.tls();
        this.capabilities = SERVER_CAPABILITIES | (tls != null ? MysqlWire.CLIENT_SSL : 0);
        var threads = new AtomicLong();
        // a worker runs a connection's statements: planning recurses per nesting level, as on a Lutra session's thread
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> Thread.ofPlatform().daemon().name("lutra-mysql-" + threads.incrementAndGet()).stackSize(4 << 20).unstarted(r));
        // NIO, not epoll: a worker reads and writes a busy connection's JDK socket itself (DirectSocket, ClientSockets)
        var factory = NioIoHandler.newFactory();
        this.boss = new MultiThreadIoEventLoopGroup(1, factory);
        this.loops = new MultiThreadIoEventLoopGroup(Math.max(1, Runtime.getRuntime().availableProcessors()), factory);
        int maxLogin = Math.min(server.config().limits().maxLoginFrameBytes(), server.config().maxFrameBytes());
        var bootstrap = new ServerBootstrap().group(boss, loops)
                .channelFactory((io.netty.channel.ChannelFactory<ClientSockets.Server>) ClientSockets.Server::new)
                .option(ChannelOption.SO_BACKLOG, 256)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast("packets", new PacketDecoder(maxLogin, tls == null ? null : () -> new SslHandler(tls.newServerEngine())));
                        ch.pipeline().addLast("connection", new MysqlConnection(server, MysqlListener.this));
                    }
                });
        this.channel = bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
        log.info("MySQL protocol listening on {}:{} ({})", host, port(),
                tls == null ? "plaintext; caching_sha2_password full authentication by RSA" : "TLS required (CLIENT_SSL)");
    }

    /** Starts the listener on {@code listen} (HOST:PORT; port 0 picks a free one). */
    public static MysqlListener start(RouterServer server, String listen) throws java.io.IOException {
        int colon = listen.lastIndexOf(':');
        if (colon < 0) throw new IllegalArgumentException("config: mysql.listen must be HOST:PORT, not " + listen);
        try {
            return new MysqlListener(server, listen.substring(0, colon), Integer.parseInt(listen.substring(colon + 1)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.IOException("interrupted while binding the MySQL listener", e);
        } catch (RuntimeException e) {
            throw new java.io.IOException("cannot listen for MySQL clients on " + listen + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    ExecutorService workers() {
        return workers;
    }

    MysqlPasswords passwords() {
        return passwords;
    }

    org.lutra.server.LoginGate loginGate() {
        return loginGate;
    }

    String serverVersion() {
        return serverVersion;
    }

    int capabilities() {
        return capabilities;
    }

    boolean tlsRequired() {
        return server.tls() != null;
    }

    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    PacketDecoder decoder(Channel ch) {
        return (PacketDecoder) ch.pipeline().get("packets");
    }

    /** Closes once: a router closed again (a test's stop after a failed start, a shutdown hook) finds its event loops gone. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        channel.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownNow();
    }
}
