package org.lutra.ops;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.ReadTimeoutHandler;
import org.lutra.server.ClientTls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operators' HTTP listener (router config {@code http: { listen: HOST:PORT }}): Netty, as the
 * router's other listeners, on one event-loop thread of its own, so that nothing sent here takes
 * a thread, a connection or a lock from the SQL sessions. What a client may cost is bounded:
 * a request line of 4 KiB, headers of 8 KiB, a body of 16 KiB (operators' requests have none),
 * {@link #MAX_CONNECTIONS} connections, and a request must arrive whole within
 * {@link #REQUEST_SECONDS} seconds of the connection's start or of the previous answer (a client
 * that trickles bytes is closed). Requests are answered off the event loop ({@link HttpRoutes}).
 */
final class HttpListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpListener.class);
    static final int MAX_CONNECTIONS = 128;
    static final int REQUEST_SECONDS = 10;
    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADERS = 8192;
    static final int MAX_BODY = 16384;

    private final EventLoopGroup loop;
    private final Channel channel;

    private HttpListener(EventLoopGroup loop, Channel channel) {
        this.loop = loop;
        this.channel = channel;
    }

    static HttpListener start(String host, int port, ClientTls tls, HttpRoutes routes) throws InterruptedException {
        var loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        var open = new AtomicInteger();
        try {
            var bootstrap = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 64).option(ChannelOption.SO_REUSEADDR, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (open.incrementAndGet() > MAX_CONNECTIONS) {
                                open.decrementAndGet();
                                ch.close();
                                return;
                            }
                            ch.closeFuture().addListener(f -> open.decrementAndGet());
                            var p = ch.pipeline();
                            if (tls != null) p.addLast("tls", new SslHandler(tls.newServerEngine()));
                            p.addLast("idle", new ReadTimeoutHandler(REQUEST_SECONDS * 3, TimeUnit.SECONDS));
                            p.addLast("deadline", new RequestDeadline());
                            p.addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, 8192));
                            p.addLast("aggregate", new HttpObjectAggregator(MAX_BODY));
                            p.addLast("routes", routes);
                        }
                    });
            var channel = bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
            var listener = new HttpListener(loop, channel);
            log.info("HTTP listener on {}:{} ({}): /metrics, /health/live, /health/ready, console at /", host, listener.port(),
                    tls == null ? "plain HTTP" : "HTTPS");
            return listener;
        } catch (RuntimeException | InterruptedException e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /**
     * Closes a connection on which no whole request arrived within {@link #REQUEST_SECONDS} seconds of its start or of the
     * last answer ({@link HttpRoutes} calls {@link #answered}): a trickling client cannot hold a connection for long.
     */
    static final class RequestDeadline extends ChannelInboundHandlerAdapter {
        private io.netty.util.concurrent.ScheduledFuture<?> timer;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            arm(ctx);
            super.channelActive(ctx);
        }

        private void arm(ChannelHandlerContext ctx) {
            if (timer != null) timer.cancel(false);
            timer = ctx.executor().schedule(() -> ctx.close(), REQUEST_SECONDS, TimeUnit.SECONDS);
        }

        /** An answer was written: the next request gets a deadline of its own. */
        static void answered(ChannelHandlerContext ctx) {
            var self = ctx.pipeline().get(RequestDeadline.class);
            if (self != null) ctx.executor().execute(() -> self.arm(self.context(ctx)));
        }

        private ChannelHandlerContext context(ChannelHandlerContext any) {
            return any.pipeline().context(this);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (timer != null) timer.cancel(false);
            super.channelInactive(ctx);
        }
    }
}
