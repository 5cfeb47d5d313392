package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.EmbeddedShards;
import org.lutra.placement.FailPoints;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Crashes in the middle of two-phase commit, on shards of this class's own (it kills them): the
 * router process killed after PREPARE or after the decision, and a backend killed while its
 * branch is prepared. After restarts, every transaction is committed everywhere or nowhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TxnCrashIT {
    private static final String SCHEMA = """
            CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL) PARTITION BY range(id) ON (p0 < 100, p1);
            """;

    EmbeddedShards shards;
    Path config;
    String database;

    @BeforeAll
    void startShards() throws IOException {
        shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(2));
    }

    @AfterAll
    void stopShards() {
        shards.close();
    }

    /** A fresh logical database for every test, served by a router named "crashit". */
    @BeforeEach
    void writeConfig() throws IOException {
        database = "crash_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        config = config("crashit", 60);
    }

    private Path config(String routerName, int graceSeconds) throws IOException {
        Path dir = Files.createTempDirectory("lutra-crash");
        Files.writeString(dir.resolve("schema.sql"), SCHEMA);
        Path file = dir.resolve("router.yaml");
        Files.writeString(file, """
                listen: 127.0.0.1:0
                database: %s
                schema: schema.sql
                users: [ { name: app, password: secret } ]
                backends:
                  - { name: shard0, url: "%s", pool_size: 4 }
                  - { name: shard1, url: "%s", pool_size: 4 }
                partitions: [ { name: p0, backend: shard0 }, { name: p1, backend: shard1 } ]
                transactions: { router_name: %s, lock_wait_timeout_seconds: 2, recovery_interval_seconds: 1, recovery_grace_seconds: %d }
                """.formatted(database, shards.url(0), shards.url(1), routerName, graceSeconds));
        return file;
    }

    @Test
    void routerKilledAfterPrepareRollsBackEverywhere() throws Exception {
        transferInDyingRouter(FailPoints.AFTER_PREPARE);
        assertEquals(1, preparedBranches(1), "p1's XA branch outlives the router; p0's plain branch died with its connection");
        try (var restarted = RouterServer.start(RouterConfig.load(config))) {
            assertEquals(0, preparedBranches(1), "an earlier life's branch is resolved at start");
            assertEquals(1, restarted.transactions().stats().recoveredRollbacks.sum());
            assertEquals(0, restarted.transactions().recovery().inDoubt());
        }
        assertEquals(List.of(100L, 100L), balances(), "no decision was logged: presumed abort");
    }

    @Test
    void routerKilledAfterDecisionCommitsEverywhere() throws Exception {
        transferInDyingRouter(FailPoints.AFTER_DECISION);
        assertEquals(1, preparedBranches(1));
        assertEquals(List.of(90L, 100L), balances(), "p0 committed with the decision; p1 is still prepared");
        try (var restarted = RouterServer.start(RouterConfig.load(config))) {
            assertEquals(0, preparedBranches(1));
            assertEquals(1, restarted.transactions().stats().recoveredCommits.sum());
        }
        assertEquals(List.of(90L, 110L), balances(), "the logged decision is carried out");
    }

    @Test
    void anotherRouterResolvesADeadRoutersBranchesAfterTheGracePeriod() throws Exception {
        transferInDyingRouter(FailPoints.AFTER_DECISION);
        assertEquals(1, preparedBranches(1));
        try (var other = RouterServer.start(RouterConfig.load(config("other", 1)))) {
            assertEquals(1, preparedBranches(1), "not another router's branch at once: its owner may be alive");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (preparedBranches(1) > 0 && System.nanoTime() < deadline) Thread.sleep(200);
            assertEquals(0, preparedBranches(1), "resolved by the periodic pass once older than the grace period");
            assertEquals(1, other.transactions().stats().recoveredCommits.sum());
        }
        assertEquals(List.of(90L, 110L), balances());
    }

    @Test
    void lostBackendAbortsTheWholeTransaction() throws Exception {
        try (var router = RouterServer.start(RouterConfig.load(config))) {
            try (var c = connect(router.port())) {
                insertAccounts(c);
                c.setAutoCommit(false);
                transfer(c);
                shards.kill(1);
                try {
                    var e = assertThrows(SQLException.class,
                            () -> c.createStatement().executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101"));
                    assertTrue(e.getMessage().contains("[p1@shard1] lost connection to the backend"), e.getMessage());
                    assertEquals("HY000", e.getSQLState(), "the client's own connection is fine: not 08xxx");
                    var next = assertThrows(SQLException.class, () -> transfer(c));
                    assertEquals("25000", next.getSQLState(), next.getMessage());
                    c.rollback();
                } finally {
                    shards.restart(1);
                }
                c.setAutoCommit(true);
                assertEquals(100L, balance(0, 1), "p0's part was rolled back with the rest");
                assertEquals(100L, balance(1, 101), "p1's part died with its server");
                c.setAutoCommit(false);
                transfer(c);
                c.commit();
            }
            assertEquals(List.of(90L, 110L), balances());
        }
    }

    @Test
    void backendKilledWithAPreparedBranchIsCommittedWhenItReturns() throws Exception {
        try (var router = RouterServer.start(RouterConfig.load(config))) {
            try (var c = connect(router.port())) {
                insertAccounts(c);
                c.setAutoCommit(false);
                transfer(c);
                try (var hook = FailPoints.install(point -> {
                    if (point.equals(FailPoints.AFTER_DECISION)) shards.kill(1);
                })) {
                    c.commit(); // committed: the decision is durable, only p1's phase two is missing
                }
            }
            assertEquals(90L, balance(0, 1), "p0 committed with the decision while p1 was down");
            shards.restart(1);
            assertEquals(1, preparedBranches(1), "the prepared branch survived the crash of its server");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (preparedBranches(1) > 0 && System.nanoTime() < deadline) {
                router.transactions().recovery().pass();
                Thread.sleep(200);
            }
            assertEquals(0, preparedBranches(1));
            assertEquals(List.of(90L, 110L), balances());
            assertEquals(0, router.transactions().recovery().inDoubt());
            try (var c = connect(router.port())) {
                c.setAutoCommit(false);
                transfer(c); // the restarted backend serves transactions again
                c.commit();
            }
            assertEquals(List.of(80L, 120L), balances());
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** Starts a router process that halts at {@code failpoint}, and runs a two-partition transfer in it. */
    private void transferInDyingRouter(String failpoint) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = Files.createTempFile("lutra-router", ".log");
        var process = new ProcessBuilder(java, "-Dlutra.failpoint=" + failpoint, "-cp", System.getProperty("java.class.path"),
                RouterMain.class.getName(), config.toString())
                .redirectError(log.toFile()).start();
        try {
            int port = readPort(process, log);
            try (var c = connect(port)) {
                insertAccounts(c);
                c.setAutoCommit(false);
                transfer(c);
                assertThrows(SQLException.class, c::commit, "the router dies while committing");
            }
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "router process halted");
            assertEquals(86, process.exitValue(), Files.readString(log));
        } finally {
            process.destroyForcibly();
        }
    }

    private static int readPort(Process process, Path log) throws IOException {
        var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith(RouterMain.PORT_LINE)) return Integer.parseInt(line.substring(RouterMain.PORT_LINE.length()).trim());
        }
        throw new IOException("router process exited before listening:\n" + Files.readString(log));
    }

    private static Connection connect(int port) throws SQLException {
        return DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + port + "/", "app", "secret");
    }

    private static void insertAccounts(Connection c) throws SQLException {
        c.createStatement().executeUpdate("INSERT INTO accounts (id, balance) VALUES (1, 100)");
        c.createStatement().executeUpdate("INSERT INTO accounts (id, balance) VALUES (101, 100)");
    }

    private static void transfer(Connection c) throws SQLException {
        assertEquals(1, c.createStatement().executeUpdate("UPDATE accounts SET balance = balance - 10 WHERE id = 1"));
        assertEquals(1, c.createStatement().executeUpdate("UPDATE accounts SET balance = balance + 10 WHERE id = 101"));
    }

    /** Balances of account 1 (p0) and 101 (p1), read on the shards themselves. */
    private List<Long> balances() throws SQLException {
        return List.of(balance(0, 1), balance(1, 101));
    }

    private long balance(int shard, int id) throws SQLException {
        try (var c = DriverManager.getConnection(shards.url(shard, database + "_p" + shard), shards.user(), shards.password());
             var rs = c.createStatement().executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    /** Prepared XA branches of this test's database on {@code shard}. */
    private int preparedBranches(int shard) throws SQLException {
        int n = 0;
        try (var c = shards.connect(shard); var rs = c.createStatement().executeQuery("XA RECOVER")) {
            while (rs.next()) {
                if (new String(rs.getBytes(4), StandardCharsets.ISO_8859_1).endsWith(database + "_p" + shard)) n++;
            }
        }
        return n;
    }
}
