package org.lutra.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Readiness follows the backends: with partition p3's backend behind a proxy that the test takes
 * down, /health/ready answers 503 naming p3 (and the metric says p3's backend is unreachable),
 * liveness stays 200, statements on the other partitions go on; once the backend is back,
 * readiness is 200 again without restarting the router.
 */
@ExtendWith(EmbeddedShardsExtension.class)
class ReadinessIT {
    @Test
    void readinessGoesFalseWhileAPartitionsBackendIsDownAndTrueAgainWhenItReturns(Shards shards) throws Exception {
        int shard3 = URI.create(shards.url(3).substring("jdbc:".length())).getPort();
        try (var proxy = new TcpProxy(shard3);
             var router = new OperatedRouter(shards, "readyit", "CREATE TABLE kv (k INT PRIMARY KEY, v INT) PARTITION BY hash(k) ON (p0, p1, p2, p3);",
                     new RouterConfig.Transactions("readyit", 5, 0, 0), url -> url.replace(":" + shard3 + "/", ":" + proxy.port() + "/"),
                     config -> config.withOperations(new RouterConfig.Http("127.0.0.1:0", null, null, null, null, false, null, 1000), null))) {
            try (var c = router.connect(); var st = c.createStatement()) {
                st.executeUpdate("INSERT INTO kv VALUES (1, 1), (2, 2), (3, 3), (4, 4)");
            }
            var ready = router.get("/health/ready");
            assertEquals(200, ready.statusCode(), ready.body());

            proxy.down();
            ready = awaitReadiness(router, 503, proxy);
            assertTrue(ready.body().contains("\"status\":\"not ready\""), ready.body());
            assertTrue(ready.body().matches("(?s).*\"partition\":\"p3\",\"backend\":\"shard3\",\"reachable\":false.*"), ready.body());
            assertTrue(ready.body().matches("(?s).*\"partition\":\"p0\",\"backend\":\"shard0\",\"reachable\":true.*"), ready.body());
            assertEquals(200, router.get("/health/live").statusCode(), "alive all the same");
            assertEquals(0, OperatedRouter.sample(router.get("/metrics").body(), "lutra_backend_reachable", "backend=\"shard3\",partition=\"p3\""));
            try (var c = router.connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT v FROM kv WHERE k = 1")) {
                assertTrue(rs.next(), "the other partitions answer");
            }

            proxy.up();
            ready = awaitReadiness(router, 200, proxy);
            assertEquals(1, OperatedRouter.sample(router.get("/metrics").body(), "lutra_backend_reachable", "backend=\"shard3\",partition=\"p3\""));
            assertEquals(3, afterStaleConnections(router, "SELECT v FROM kv WHERE k = 3"), "p3 answers again");
        }
    }

    /**
     * The first /health/ready answer with the expected status, within 10 s. A probe joins a partition's check that is still
     * running rather than starting another (the sampler checks every second too), so the first answer after the proxy
     * went down or up can be a check that began just before: readiness follows the backend within a check, not at once.
     */
    static java.net.http.HttpResponse<String> awaitReadiness(OperatedRouter router, int status, Object backend) throws Exception {
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            var ready = router.get("/health/ready");
            if (ready.statusCode() == status || System.nanoTime() > until) {
                assertEquals(status, ready.statusCode(), ready.body() + "; " + backend);
                return ready;
            }
            Thread.sleep(50);
        }
    }

    /**
     * The statement's one value, once the pool of p3 has dropped the connections the outage cut: HikariCP checks a
     * connection before lending it only when it has been idle for 500 ms, so a connection used just before the outage can
     * still be lent once and fail as lost (and be evicted). At most one such failure per connection of the pool (8), each
     * of them a lost connection; anything else fails the test.
     */
    static int afterStaleConnections(OperatedRouter router, String sql) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try (var c = router.connect(); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
                assertTrue(rs.next(), sql);
                return rs.getInt(1);
            } catch (java.sql.SQLException e) {
                if (attempt >= 8 || !e.getMessage().contains("lost connection to the backend")) throw e;
            }
        }
    }
}
