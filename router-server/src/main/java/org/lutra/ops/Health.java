package org.lutra.ops;

import org.lutra.backend.Backends;
import org.lutra.server.RouterServer;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Liveness and readiness, as load balancers and Kubernetes probes ask. Live: the process answers
 * HTTP. Ready: the router has started (catalog loaded, lookup tables in) and every partition's
 * backend answered a fresh connection's ping within the deadline. Each check opens a new
 * connection (not a pooled one: a busy pool is no sign of a dead server, and a pooled connection
 * may be one the server lost). Probes never pile up: while a partition's last check still runs,
 * a new probe waits on that one instead of starting another.
 */
final class Health {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Health.class);
    /** One partition's last check: reachable, how long it took, or why not. */
    record Reach(boolean reachable, double millis, String error) {}

    /** A readiness answer: ready or not, and the reasons as JSON-ready fields. */
    record Readiness(boolean ready, Map<String, Object> body) {}

    private final Supplier<RouterServer> server;
    private final long deadlineMillis;
    private final ExecutorService checks;
    private final ConcurrentHashMap<Integer, CompletableFuture<Reach>> running = new ConcurrentHashMap<>();
    private volatile Map<Integer, Reach> last = Map.of();

    /** @param server the router once it has started, null before */
    Health(Supplier<RouterServer> server, long deadlineMillis, ExecutorService checks) {
        this.server = server;
        this.deadlineMillis = deadlineMillis;
        this.checks = checks;
    }

    /** Checks every partition's backend now (or joins the checks still running) and answers readiness. */
    Readiness check() {
        var router = server.get();
        var body = new LinkedHashMap<String, Object>();
        if (router == null) {
            body.put("status", "starting");
            body.put("catalog", "loading");
            body.put("lookups", "warming");
            return new Readiness(false, body);
        }
        body.put("catalog", "loaded (version " + router.liveCatalog().version() + ")");
        var started = router.started();
        body.put("lookups", started == null ? "warming" : "warm (from " + started.source() + " in " + started.millis() + " ms)");
        List<Backends.Placement> placements = router.placements();
        var futures = new LinkedHashMap<Backends.Placement, CompletableFuture<Reach>>();
        for (var p : placements) futures.put(p, running.computeIfAbsent(p.partition(), id -> start(p)));
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
        var reach = new LinkedHashMap<Integer, Reach>();
        var partitions = new java.util.ArrayList<Map<String, Object>>();
        boolean all = true;
        for (var e : futures.entrySet()) {
            Reach r;
            try {
                r = e.getValue().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException t) {
                r = new Reach(false, deadlineMillis, "no answer within " + deadlineMillis + " ms");
            } catch (InterruptedException t) {
                Thread.currentThread().interrupt();
                r = new Reach(false, 0, "interrupted");
            } catch (java.util.concurrent.ExecutionException t) {
                r = new Reach(false, 0, String.valueOf(t.getCause()));
            }
            reach.put(e.getKey().partition(), r);
            all &= r.reachable();
            var row = new LinkedHashMap<String, Object>();
            row.put("partition", e.getKey().name());
            row.put("backend", e.getKey().backend());
            row.put("reachable", r.reachable());
            row.put("ms", Math.round(r.millis() * 10) / 10.0);
            if (r.error() != null) row.put("error", r.error());
            partitions.add(row);
        }
        last = Map.copyOf(reach);
        boolean ready = all && started != null;
        body.put("partitions", partitions);
        var ordered = new LinkedHashMap<String, Object>();
        ordered.put("status", ready ? "ready" : "not ready");
        ordered.putAll(body);
        return new Readiness(ready, ordered);
    }

    private CompletableFuture<Reach> start(Backends.Placement p) {
        var future = CompletableFuture.supplyAsync(() -> ping(p), checks);
        future.whenComplete((r, e) -> running.remove(p.partition(), future));
        return future;
    }

    private Reach ping(Backends.Placement p) {
        long begin = System.nanoTime();
        var props = p.freshProperties();
        // the check's own deadline bounds the connection; a frozen server must not hold a check thread for long
        String timeout = String.valueOf(Math.max(1_000, deadlineMillis * 5));
        props.setProperty("connectTimeout", timeout);
        props.setProperty("socketTimeout", timeout);
        try (var c = java.sql.DriverManager.getConnection(p.pool().getJdbcUrl(), props); var st = c.createStatement()) {
            st.execute("SELECT 1");
            return new Reach(true, (System.nanoTime() - begin) / 1e6, null);
        } catch (SQLException e) {
            // the answer may be public (health_auth: false): the state and code only, the message (hosts, users) to the log
            log.debug("health check of {}: {}", p.name(), e.getMessage());
            return new Reach(false, (System.nanoTime() - begin) / 1e6, "SQLState " + e.getSQLState() + ", error " + e.getErrorCode());
        }
    }

    /** Each partition's last check (none before the first). */
    Map<Integer, Reach> last() {
        return last;
    }
}
