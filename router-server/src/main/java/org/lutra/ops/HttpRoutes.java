package org.lutra.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * The listener's answers: {@code /metrics} (Prometheus text), {@code /health/live},
 * {@code /health/ready}, the console ({@code /}, its script and style, Chart.js from its WebJar)
 * and the console's data ({@code /api/console}). GET and HEAD only. With credentials in the config
 * every path but the health checks (unless {@code health_auth}) asks for them (401). A request
 * the codec could not read (malformed, too long) is answered 400/413/431 and its connection closed.
 * Answers are computed on {@code work}, not on the event loop: a readiness check waits for the
 * backends, up to its deadline.
 */
@ChannelHandler.Sharable
final class HttpRoutes extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(HttpRoutes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What answers each kind of request; the Operations object supplies them once the router runs. */
    interface Pages {
        String metrics();

        Health.Readiness ready();

        Map<String, Object> console();
    }

    private final Pages pages;
    private final HttpAuth auth;
    private final boolean healthAuth;
    private final ExecutorService work;
    private final StaticAssets assets;

    HttpRoutes(Pages pages, HttpAuth auth, boolean healthAuth, ExecutorService work, StaticAssets assets) {
        this.pages = pages;
        this.auth = auth;
        this.healthAuth = healthAuth;
        this.work = work;
        this.assets = assets;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        var decoded = request.decoderResult();
        if (decoded.isFailure()) {
            var status = decoded.cause() instanceof TooLongFrameException tooLong
                    ? (tooLong.getMessage() != null && tooLong.getMessage().contains("header") ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                    : HttpResponseStatus.REQUEST_URI_TOO_LONG) : HttpResponseStatus.BAD_REQUEST;
            send(ctx, false, text(status, status.reasonPhrase() + "\n"), false);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        boolean head = request.method().equals(HttpMethod.HEAD);
        if (!request.method().equals(HttpMethod.GET) && !head) {
            var response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET and HEAD\n");
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            send(ctx, keepAlive, response, head);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        boolean health = path.startsWith("/health/");
        if ((!health || healthAuth) && !auth.allows(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
            var response = text(HttpResponseStatus.UNAUTHORIZED, "credentials required\n");
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, auth.challenge());
            send(ctx, keepAlive, response, head);
            return;
        }
        try {
            work.execute(() -> {
                FullHttpResponse response;
                try {
                    response = answer(path);
                } catch (RuntimeException e) {
                    log.warn("HTTP {}: {}", path.length() > 100 ? path.substring(0, 100) : path, e.toString());
                    response = text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error (see the router's log)\n");
                }
                send(ctx, keepAlive, response, head);
            });
        } catch (RejectedExecutionException e) {
            send(ctx, false, text(HttpResponseStatus.SERVICE_UNAVAILABLE, "busy\n"), head);
        }
    }

    private FullHttpResponse answer(String path) {
        return switch (path) {
            case "/metrics" -> {
                var r = text(HttpResponseStatus.OK, pages.metrics());
                r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
                yield r;
            }
            case "/health/live" -> json(HttpResponseStatus.OK, Map.of("status", "live"));
            case "/health/ready" -> {
                var ready = pages.ready();
                yield json(ready.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, ready.body());
            }
            case "/api/console" -> json(HttpResponseStatus.OK, pages.console());
            default -> {
                var asset = assets.get(path);
                yield asset == null ? text(HttpResponseStatus.NOT_FOUND, "not found\n") : asset.response();
            }
        };
    }

    static FullHttpResponse text(HttpResponseStatus status, String body) {
        var r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return r;
    }

    private static FullHttpResponse json(HttpResponseStatus status, Object body) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        var r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        return r;
    }

    private static void send(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response, boolean head) {
        var headers = response.headers();
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
        headers.set("Referrer-Policy", "no-referrer");
        if (!headers.contains(HttpHeaderNames.CACHE_CONTROL)) headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        if (head) response.content().clear();
        if (keepAlive) headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        } else {
            HttpListener.RequestDeadline.answered(ctx);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // a reset, a TLS handshake a client broke off, a read timeout: that connection ends, nothing else
        log.debug("HTTP connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
