package org.lutra.ops;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.lutra.config.RouterConfig;
import org.lutra.exec.RouterMetrics;
import org.lutra.server.ClientTls;
import org.lutra.server.RouterServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A router with what its operators need (docs/operations.md): with {@code http:} in the config,
 * metrics kept through Micrometer and served with health checks and the placement console on the
 * HTTP listener; with {@code slow_log:}, the slow-statement log. Without either the router runs
 * with {@link RouterMetrics#NONE} and nothing here costs anything.
 *
 * <p>The HTTP listener opens before the router starts, so that liveness answers at once and
 * readiness says "starting" while the catalog and the lookup tables load.
 */
public final class Operations implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Operations.class);
    /** How often the counters' history and the hot keys are sampled (the console's resolution). */
    static final int SAMPLE_SECONDS = 2;
    /** How often the backends are asked (health, rows, moves) for the console and the sampled gauges. */
    static final int BACKEND_SAMPLE_SECONDS = 5;
    /** A hot-key window: SHOW LUTRA HOT KEYS covers the last one to two of them. */
    static final int HOT_KEY_WINDOW_SECONDS = 60;

    private final RouterServer router;
    private final HttpListener http;
    private final ScheduledExecutorService background;
    private final ExecutorService work;
    private final ExecutorService checks;
    private final AutoCloseable gc;

    private Operations(RouterServer router, HttpListener http, ScheduledExecutorService background, ExecutorService work,
                       ExecutorService checks, AutoCloseable gc) {
        this.router = router;
        this.http = http;
        this.background = background;
        this.work = work;
        this.checks = checks;
        this.gc = gc;
    }

    /** Starts a router as the config asks, with its HTTP listener and slow-statement log where configured. */
    public static Operations start(RouterConfig config) throws IOException, SQLException {
        RouterMetrics slow = config.slowLog() == null ? RouterMetrics.NONE : new SlowStatementLog(config.slowLog());
        if (config.http() == null) return new Operations(RouterServer.start(config, slow), null, null, null, null, null);
        var httpConfig = config.http();
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        var gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        var hotKeys = new HotKeys(httpConfig.hotKeys());
        var engine = new MeteredEngine(registry.getPrometheusRegistry(), hotKeys, slow, config.mysql() == null ? List.of("lutra") : List.of("lutra", "mysql"));

        var background = Executors.newScheduledThreadPool(1, daemon("lutra-ops"));
        // answers off the event loop; a bounded queue: a flood of requests is answered 503, it never grows the heap
        var work = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(64), daemon("lutra-http"));
        var checks = Executors.newCachedThreadPool(daemon("lutra-health"));
        var state = new State();
        var health = new Health(() -> state.router, httpConfig.readyTimeoutMillis(), checks);
        var pages = new HttpRoutes.Pages() {
            @Override
            public String metrics() {
                var gauges = state.gauges;
                if (gauges != null) gauges.refresh();
                return registry.scrape();
            }

            @Override
            public Health.Readiness ready() {
                return health.check();
            }

            @Override
            public Map<String, Object> console() {
                var data = state.console;
                return data == null ? Map.of("router", Map.of("status", "starting")) : data.snapshot();
            }
        };
        HttpListener listener = null;
        RouterServer router = null;
        try {
            var tls = httpConfig.tls() == null ? null : ClientTls.load(httpConfig.tls());
            var routes = new HttpRoutes(pages, new HttpAuth(httpConfig), httpConfig.healthAuth(), work, StaticAssets.load());
            listener = HttpListener.start(httpConfig.host(), httpConfig.port(), tls, routes);
            router = RouterServer.start(config, engine);
            engine.backends(router.placements());
            var sampler = new Sampler(router, hotKeys, health);
            var gauges = new RouterGauges(registry, router, sampler, hotKeys);
            gauges.bind();
            state.gauges = gauges;
            state.console = new ConsoleData(router, sampler);
            state.router = router;
            sampler.sampleCounters();
            background.scheduleWithFixedDelay(() -> quietly(sampler::sampleCounters), SAMPLE_SECONDS, SAMPLE_SECONDS, TimeUnit.SECONDS);
            background.scheduleWithFixedDelay(() -> quietly(sampler::sampleBackends), 0, BACKEND_SAMPLE_SECONDS, TimeUnit.SECONDS);
            background.scheduleWithFixedDelay(() -> quietly(hotKeys::rotate), HOT_KEY_WINDOW_SECONDS, HOT_KEY_WINDOW_SECONDS, TimeUnit.SECONDS);
            return new Operations(router, listener, background, work, checks, gc);
        } catch (IOException | SQLException | RuntimeException | InterruptedException e) {
            if (router != null) router.close();
            if (listener != null) listener.close();
            background.shutdownNow();
            work.shutdownNow();
            checks.shutdownNow();
            gc.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting the HTTP listener", e);
            }
            if (e instanceof IOException io) throw io;
            if (e instanceof SQLException sql) throw sql;
            throw (RuntimeException) e;
        }
    }

    /** Written once the router runs; read by the listener's threads. */
    private static final class State {
        volatile RouterServer router;
        volatile RouterGauges gauges;
        volatile ConsoleData console;
    }

    private static void quietly(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            log.warn("operations sampling: {}", e.toString()); // a periodic task that throws would never run again
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> Thread.ofPlatform().daemon().name(name).unstarted(r);
    }

    public RouterServer router() {
        return router;
    }

    /** The HTTP listener's port; -1 without one. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    @Override
    public void close() {
        if (http != null) http.close();
        if (background != null) background.shutdownNow();
        if (work != null) work.shutdownNow();
        if (checks != null) checks.shutdownNow();
        router.close();
        if (gc != null) {
            try {
                gc.close();
            } catch (Exception ignored) {
                // closing anyway
            }
        }
    }
}
