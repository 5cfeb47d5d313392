package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.catalog.Partitioning;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The metrics checked against what a workload did, through the real driver, router and shards:
 * N point selects of one key move that key's partition's counter, the lookup hits and the select
 * count by N and make it the hottest key; a transaction over two partitions is one two-phase
 * commit of two partitions; a stale lookup entry is one fallback; a refusal, an error and a lock
 * wait timeout (40001) are counted as such. Each check reads the scrape before and after, so the
 * counters of other statements do not matter.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE items (id INT PRIMARY KEY, price INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final int USERS = 40;

    OperatedRouter router;
    Connection c;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new OperatedRouter(shards, "metricsit", SCHEMA, new RouterConfig.Transactions("metricsit", 1, 0, 0), url -> url,
                config -> config.withOperations(new RouterConfig.Http("127.0.0.1:0"), new RouterConfig.SlowLog(60_000, false)).withMysql("127.0.0.1:0"));
        c = router.connect();
        try (var st = c.createStatement()) {
            for (int id = 1; id <= USERS; id++) st.executeUpdate("INSERT INTO users (id, name) VALUES (" + id + ", 'u" + id + "')");
            st.executeUpdate("INSERT INTO items VALUES (1, 10), (2, 20), (3, 30), (4, 40)");
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (c != null) c.close();
        if (router != null) router.close();
    }

    String scrape() throws Exception {
        var r = router.get("/metrics");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/plain"), "Prometheus text format");
        return r.body();
    }

    /** The partition a key of users lives on now, by the router's own lookup table. */
    String partitionOf(int key) {
        var users = (Partitioning.LookedUp) router.operations.router().catalog().table("users").partitioning();
        return "p" + users.table().get((long) key);
    }

    @Test
    void pointSelectsOfOneKeyMoveItsPartitionsCounterTheHitsAndTheHotKeysByN() throws Exception {
        int n = 57, key = 17;
        String p = partitionOf(key);
        String before = scrape();
        try (var ps = c.prepareStatement("SELECT name FROM users WHERE id = ?")) {
            for (int i = 0; i < n; i++) {
                ps.setInt(1, key);
                try (var rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                }
            }
        }
        String after = scrape();
        String partition = "backend=\"shard" + p.substring(1) + "\",partition=\"" + p + "\"";
        assertEquals(n, delta(before, after, "lutra_partition_subqueries_total", partition), "sub-queries of " + p);
        assertEquals(n, delta(before, after, "lutra_statements_total", "kind=\"select\",outcome=\"answered\""));
        assertEquals(n, delta(before, after, "lutra_lookup_hits_total", "table=\"users\""));
        assertEquals(n, delta(before, after, "lutra_statements_single_partition_total", ""));
        assertEquals(0, delta(before, after, "lutra_statements_multi_partition_total", ""));
        assertEquals(n, delta(before, after, "lutra_statement_partitions_bucket", "le=\"1.0\""), "each on one partition");
        assertEquals(n, delta(before, after, "lutra_statement_router_seconds_count", ""));
        assertEquals(n, delta(before, after, "lutra_statement_backend_seconds_count", ""), "each ran a backend statement");
        try (var st = c.createStatement(); var rs = st.executeQuery("SHOW LUTRA HOT KEYS")) {
            assertTrue(rs.next(), "a hot key");
            assertEquals("users", rs.getString("Table"));
            assertEquals(1, rs.getInt("Rank"));
            assertEquals(String.valueOf(key), rs.getString("Key"), "the key selected " + n + " times is the hottest");
            assertTrue(rs.getLong("Count") >= n, "counted at least " + n + " times: " + rs.getLong("Count"));
            assertTrue(rs.getLong("Count_low") <= rs.getLong("Count") && rs.getLong("Count") <= rs.getLong("Count_high"));
        }
    }

    @Test
    void aTransactionOverTwoPartitionsIsOneTwoPhaseCommitOfTwoPartitions() throws Exception {
        int a = firstKeyOn(0), b = firstKeyOn(1);
        String before = scrape();
        c.setAutoCommit(false);
        try (var st = c.createStatement()) {
            st.executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + a);
            st.executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + b);
            c.commit();
            st.executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + a); // one partition: one phase
            c.commit();
        } finally {
            c.setAutoCommit(true);
        }
        String after = scrape();
        assertEquals(1, delta(before, after, "lutra_transactions_total", "outcome=\"two_phase_commit\""));
        assertEquals(1, delta(before, after, "lutra_transactions_total", "outcome=\"one_phase_commit\""));
        assertEquals(2, delta(before, after, "lutra_transaction_partitions_count", ""));
        assertEquals(3, delta(before, after, "lutra_transaction_partitions_sum", ""), "two partitions, then one");
        assertEquals(1, delta(before, after, "lutra_transaction_partitions_bucket", "le=\"1.0\""));
        assertEquals(2, delta(before, after, "lutra_transaction_partitions_bucket", "le=\"2.0\""));
    }

    @Test
    void anOpenTransactionHoldsAConnectionOfItsPartitionsTransactionsPool() throws Exception {
        int a = firstKeyOn(0);
        String pool = "backend=\"shard0\",partition=\"p0\"";
        c.setAutoCommit(false);
        String during;
        try (var st = c.createStatement()) {
            st.executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + a);
            during = scrape();
            c.commit();
        } finally {
            c.setAutoCommit(true);
        }
        assertEquals(8, OperatedRouter.sample(during, "lutra_pool_connections", pool + ",state=\"max\""), "the backend's pool_size");
        assertEquals(8, OperatedRouter.sample(during, "lutra_transaction_pool_connections", pool + ",state=\"max\""), "the backend's pool_size");
        assertTrue(OperatedRouter.sample(during, "lutra_transaction_pool_connections", pool + ",state=\"active\"") >= 1,
                "the transaction's branch on p0 is a borrowed connection of its transactions pool:\n"
                        + during.lines().filter(l -> l.startsWith("lutra_transaction_pool")).toList());
        assertEquals(0, OperatedRouter.sample(during, "lutra_pool_waiting", pool), "nobody waits for a pool of 8");
        assertEquals(0, OperatedRouter.sample(during, "lutra_transaction_pool_waiting", pool), "nobody waits for a pool of 8");
    }

    @Test
    void aStaleLookupEntryIsOneFallbackAndOneLearnedEntryAndANewKeyIsAMiss() throws Exception {
        int key = firstKeyOn(2);
        var users = (Partitioning.LookedUp) router.operations.router().catalog().table("users").partitioning();
        users.table().put((long) key, 3); // the cache is wrong: the row lives on p2
        String before = scrape();
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT name FROM users WHERE id = " + key)) {
            assertTrue(rs.next(), "found through the fallback");
            assertEquals("u" + key, rs.getString(1));
        }
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT name FROM users WHERE id = 100000")) {
            assertFalse(rs.next());
        }
        String after = scrape();
        assertEquals(1, delta(before, after, "lutra_lookup_fallbacks_total", "table=\"users\""));
        assertEquals(1, delta(before, after, "lutra_lookup_learned_total", "table=\"users\""));
        assertEquals(1, delta(before, after, "lutra_lookup_misses_total", "table=\"users\""), "key 100000 has no entry");
        assertEquals(2, users.table().get((long) key), "the entry was corrected");
    }

    @Test
    void refusalsErrorsAndLockWaitTimeoutsAreCountedByOutcome() throws Exception {
        String before = scrape();
        var refused = assertThrows(SQLException.class, () -> c.createStatement().executeUpdate("UPDATE users SET id = id + 1000 WHERE id = 1"));
        assertEquals(1235, refused.getErrorCode(), refused.getMessage());
        assertThrows(SQLException.class, () -> c.createStatement().executeQuery("SELECT nosuch FROM users WHERE id = 1"));
        // a lock wait timeout (lock_wait_timeout_seconds: 1): 40001, the whole transaction rolled back
        int key = firstKeyOn(0);
        try (var holder = router.connect(); var waiter = router.connect()) {
            holder.setAutoCommit(false);
            waiter.setAutoCommit(false);
            holder.createStatement().executeUpdate("UPDATE users SET karma = 5 WHERE id = " + key);
            var timeout = assertThrows(SQLException.class, () -> waiter.createStatement().executeUpdate("UPDATE users SET karma = 6 WHERE id = " + key));
            assertEquals("40001", timeout.getSQLState(), timeout.getMessage());
            waiter.rollback();
            holder.rollback();
        }
        String after = scrape();
        assertEquals(1, delta(before, after, "lutra_statements_total", "kind=\"update\",outcome=\"refused\""));
        assertEquals(1, delta(before, after, "lutra_statements_total", "kind=\"select\",outcome=\"error\""));
        var located = OperatedRouter.sample(after, "lutra_backend_errors_total", "backend=\"shard0\",partition=\"p0\"")
                + OperatedRouter.sample(after, "lutra_backend_errors_total", "backend=\"shard1\",partition=\"p1\"")
                + OperatedRouter.sample(after, "lutra_backend_errors_total", "backend=\"shard2\",partition=\"p2\"")
                + OperatedRouter.sample(after, "lutra_backend_errors_total", "backend=\"shard3\",partition=\"p3\"")
                - OperatedRouter.sample(before, "lutra_backend_errors_total", "backend=\"shard0\",partition=\"p0\"")
                - OperatedRouter.sample(before, "lutra_backend_errors_total", "backend=\"shard1\",partition=\"p1\"")
                - OperatedRouter.sample(before, "lutra_backend_errors_total", "backend=\"shard2\",partition=\"p2\"")
                - OperatedRouter.sample(before, "lutra_backend_errors_total", "backend=\"shard3\",partition=\"p3\"");
        assertEquals(2, located, "the unknown column and the lock wait timeout were backends' errors; the refusal was the router's");
        assertEquals(1, delta(before, after, "lutra_transaction_retryable_total", "reason=\"lock_wait_timeout\""));
        assertEquals(2, delta(before, after, "lutra_statements_total", "kind=\"transaction\",outcome=\"answered\""), "the two ROLLBACKs");
    }

    /**
     * Two sessions lock a row each on p0 and p1, then each asks for the other's: a deadlock no shard sees. The router's detector
     * breaks it, or (this router's lock wait timeout is 1 s) the timeout does as a suspected deadlock; the counters say which,
     * as the victims' messages do.
     */
    @Test
    void aDeadlockAcrossPartitionsIsCountedAsTheSessionsSawIt() throws Exception {
        int a = firstKeyOn(0), b = firstKeyOn(1);
        String before = scrape();
        var victims = new java.util.ArrayList<SQLException>();
        try (var first = router.connect(); var second = router.connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            first.createStatement().executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + a);
            second.createStatement().executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + b);
            var pool = Executors.newFixedThreadPool(2);
            try {
                var one = pool.submit(() -> lockAndCommit(first, b));
                var two = pool.submit(() -> lockAndCommit(second, a));
                for (var f : java.util.List.of(one, two)) {
                    var e = f.get(60, TimeUnit.SECONDS);
                    if (e != null) victims.add(e);
                }
            } finally {
                pool.shutdownNow();
            }
            first.rollback();
            second.rollback();
        }
        String after = scrape();
        assertFalse(victims.isEmpty(), "a deadlock has a victim");
        long detected = victims.stream().filter(e -> e.getMessage().startsWith("Deadlock found")).count();
        long suspected = victims.stream().filter(e -> e.getMessage().startsWith("Deadlock suspected")).count();
        assertEquals(victims.size(), detected + suspected, "every victim is a deadlock's: " + victims);
        assertEquals(detected, delta(before, after, "lutra_deadlocks_total", "found_by=\"detector\""), victims.toString());
        assertEquals(suspected, delta(before, after, "lutra_deadlocks_total", "found_by=\"lock_wait_timeout\""), victims.toString());
        assertEquals(victims.size(), delta(before, after, "lutra_transaction_retryable_total", "reason=\"deadlock\""), victims.toString());
        if (detected > 0) assertTrue(delta(before, after, "lutra_deadlock_checks_total", "") >= 1, "the detector read the shards' views");
    }

    /** Wrong passwords until the login throttle blocks the account: each blocked login the client saw is one refused session. */
    @Test
    void loginsTheThrottleRefusesAreCountedAsRefusedSessions() throws Exception {
        String before = scrape();
        int blocked = 0;
        for (int i = 0; i < 8; i++) {
            var e = assertThrows(SQLException.class, () -> java.sql.DriverManager.getConnection(router.url(), "intruder", "wrong"));
            if (e.getErrorCode() == 3955 || e.getErrorCode() == 1129) blocked++;
            else assertEquals(1045, e.getErrorCode(), e.getMessage());
        }
        String after = scrape();
        assertTrue(blocked > 0, "five failures block the account for a while (login_failures_per_address_user)");
        assertEquals(blocked, delta(before, after, "lutra_sessions_refused_total", "limit=\"login_throttle\",listener=\"lutra\""));
        assertEquals(0, delta(before, after, "lutra_sessions_refused_total", "limit=\"max_sessions\",listener=\"lutra\""));
    }

    /** The same through the MySQL listener (Connector/J): counted for listener "mysql", none for "lutra". */
    @Test
    void loginsTheThrottleRefusesAtTheMysqlListenerAreCountedForIt() throws Exception {
        String before = scrape();
        String url = "jdbc:mysql://127.0.0.1:" + router.operations.router().mysqlPort() + "/" + router.database + "?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        int blocked = 0;
        for (int i = 0; i < 8; i++) {
            var e = assertThrows(SQLException.class, () -> java.sql.DriverManager.getConnection(url, "mysqlintruder", "wrong"));
            if (e.getErrorCode() == 3955 || e.getErrorCode() == 1129) blocked++;
            else assertEquals(1045, e.getErrorCode(), e.getMessage());
        }
        String after = scrape();
        assertTrue(blocked > 0, "five failures block the account for a while (login_failures_per_address_user)");
        assertEquals(blocked, delta(before, after, "lutra_sessions_refused_total", "limit=\"login_throttle\",listener=\"mysql\""));
        assertEquals(0, delta(before, after, "lutra_sessions_refused_total", "limit=\"login_throttle\",listener=\"lutra\""));
    }

    /** Locks {@code key}'s row and commits; the SQLException the session got instead, or null. */
    private static SQLException lockAndCommit(Connection c, int key) {
        try {
            c.createStatement().executeUpdate("UPDATE users SET karma = karma + 1 WHERE id = " + key);
            c.commit();
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    @Test
    void theEndpointsAnswerWhileSessionsRunAndTheSlowLogKeepsToItsThreshold() throws Exception {
        var pool = Executors.newFixedThreadPool(4);
        try {
            var work = pool.submit(() -> {
                try (var s = router.connect(); var ps = s.prepareStatement("SELECT price FROM items WHERE id = ?")) {
                    for (int i = 0; i < 400; i++) {
                        ps.setInt(1, 1 + i % 4);
                        try (var rs = ps.executeQuery()) {
                            assertTrue(rs.next());
                        }
                    }
                }
                return null;
            });
            for (int i = 0; i < 10; i++) {
                assertEquals(200, router.get("/metrics").statusCode());
                assertEquals(200, router.get("/api/console").statusCode());
                assertEquals(200, router.get("/health/live").statusCode());
            }
            work.get(120, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        var ready = router.get("/health/ready");
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("\"status\":\"ready\""), ready.body());
        var console = router.get("/api/console").body();
        assertTrue(console.contains("\"name\":\"p3\""), console);
        assertEquals(404, router.get("/nothing-here").statusCode());
    }

    /**
     * Prometheus's own linter on a real scrape (Debian's prometheus package has promtool; skipped, saying so, without it):
     * no complaint about Lutra's metrics (names, suffixes, units, help texts). Micrometer's JVM meters are its own.
     */
    @Test
    void promtoolFindsNothingToSayAboutLutrasMetrics() throws Exception {
        var promtool = java.nio.file.Path.of("/usr/bin/promtool");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(promtool),
                "promtool is missing (apt-get install prometheus): the scrape is not linted");
        var p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(scrape().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        var ours = out.lines().filter(l -> l.startsWith("lutra_")).toList();
        assertEquals(java.util.List.of(), ours, out);
    }

    /**
     * Every Lutra metric docs/operations.md and the Grafana dashboard name is in a scrape (as a sample, or at least its
     * HELP and TYPE lines): a renamed or removed metric cannot leave a panel or a documented name pointing at nothing.
     */
    @Test
    void everyMetricTheDocsAndTheDashboardNameIsScraped() throws Exception {
        String scrape = scrape();
        var missing = new java.util.TreeSet<String>();
        for (var file : java.util.List.of("docs/operations.md", "config/grafana/lutra-dashboard.json")) {
            var names = java.util.regex.Pattern.compile("\\blutra_[a-z_]+").matcher(java.nio.file.Files.readString(java.nio.file.Path.of("..", file)));
            int found = 0;
            while (names.find()) {
                found++;
                String name = names.group();
                var line = java.util.regex.Pattern.compile("(?m)^(# (TYPE|HELP) )?" + java.util.regex.Pattern.quote(name) + "(_bucket|_count|_sum)?[{ ]");
                if (!line.matcher(scrape).find()) missing.add(name + " (" + file + ")");
            }
            assertTrue(found > 10, file + " names metrics");
        }
        assertEquals(java.util.Set.of(), missing, "named but not scraped");
    }

    int firstKeyOn(int partition) {
        for (int id = 1; id <= USERS; id++) if (partitionOf(id).equals("p" + partition)) return id;
        throw new IllegalStateException("no user on p" + partition);
    }

    static double delta(String before, String after, String name, String labels) {
        return OperatedRouter.sample(after, name, labels) - OperatedRouter.sample(before, name, labels);
    }
}
