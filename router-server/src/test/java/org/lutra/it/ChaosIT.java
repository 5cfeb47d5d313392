package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.lutra.shards.EmbeddedShards;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The chaos test: clients run transfers between accounts on three shards, each a transaction over
 * up to three partitions (two-phase commit), and keep a ledger of the transfers whose COMMIT was
 * acknowledged, while, one after another, a shard is killed and restarted, a shard is frozen
 * (SIGSTOP) and resumed, and the router process is killed (SIGKILL) and started again. Then, read
 * on the shards themselves: every acknowledged transfer is there; every transfer that is there is
 * applied whole (each account's balance is its opening balance plus what the transfers rows say
 * it received and minus what it sent, so a half-applied transfer shows); the total is unchanged;
 * no XA branch is left prepared. Bounded: a client stuck for good fails the test (the router
 * process is killed to free it), it never hangs the build.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ChaosIT {
    static final int ACCOUNTS = 30;
    static final long OPENING = 1_000;
    static final int CLIENTS = 4;
    static final String SCHEMA = """
            CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2);
            CREATE TABLE transfers (id BIGINT PRIMARY KEY, src INT NOT NULL, dst INT NOT NULL, amount INT NOT NULL)
              PARTITION BY hash(id) ON (p0, p1, p2);
            """;

    EmbeddedShards shards;
    String database;
    Path config;
    Process router;
    final AtomicInteger port = new AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(3));
        database = "chaos_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        Path dir = Files.createTempDirectory("lutra-chaos");
        Files.writeString(dir.resolve("schema.sql"), SCHEMA);
        config = dir.resolve("router.yaml");
        Files.writeString(config, """
                listen: 127.0.0.1:0
                database: %s
                schema: schema.sql
                users: [ { name: app, password: secret } ]
                backends:
                  - { name: shard0, url: "%s", pool_size: 8, ping_timeout_ms: 1000 }
                  - { name: shard1, url: "%s", pool_size: 8, ping_timeout_ms: 1000 }
                  - { name: shard2, url: "%s", pool_size: 8, ping_timeout_ms: 1000 }
                partitions: [ { name: p0, backend: shard0 }, { name: p1, backend: shard1 }, { name: p2, backend: shard2 } ]
                transactions: { router_name: chaosit, lock_wait_timeout_seconds: 2, recovery_interval_seconds: 1, recovery_grace_seconds: 4 }
                """.formatted(database, shards.url(0), shards.url(1), shards.url(2)));
        startRouter();
        for (int attempt = 1; ; attempt++) { // the load is one transaction: rolled back whole where a phase timed out on a loaded machine
            try (var c = connect(); var ps = c.prepareStatement("INSERT INTO accounts VALUES (?, ?)")) {
                for (int id = 1; id <= ACCOUNTS; id++) {
                    ps.setInt(1, id);
                    ps.setLong(2, OPENING);
                    ps.addBatch();
                }
                ps.executeBatch();
                return;
            } catch (java.sql.BatchUpdateException e) {
                if (attempt == 5 || !(e.getCause() instanceof java.sql.SQLTransactionRollbackException)) throw e;
            }
        }
    }

    @AfterAll
    void stop() {
        if (router != null) router.destroyForcibly();
        if (shards != null) shards.close();
    }

    @Test
    void everyAcknowledgedTransferSurvivesAndNoneIsHalfApplied() throws Exception {
        var acknowledged = ConcurrentHashMap.<Long>newKeySet();
        var failed = new AtomicLong();
        var ids = new AtomicLong();
        var running = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        var futures = new ArrayList<Future<?>>();
        for (int i = 0; i < CLIENTS; i++) {
            futures.add(clients.submit(() -> transferUntilStopped(running, ids, acknowledged, failed)));
        }
        var faults = new ArrayList<String>();
        try {
            Thread.sleep(3_000);
            long before = acknowledged.size();
            shards.kill(1);
            faults.add("shard 1 killed after " + before + " acknowledged");
            Thread.sleep(2_000);
            shards.restart(1);
            faults.add("shard 1 restarted");
            Thread.sleep(3_000);
            shards.freeze(2);
            faults.add("shard 2 frozen at " + acknowledged.size());
            try {
                Thread.sleep(3_000);
            } finally {
                shards.thaw(2);
            }
            faults.add("shard 2 resumed at " + acknowledged.size());
            Thread.sleep(3_000);
            router.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            faults.add("router killed at " + acknowledged.size());
            Thread.sleep(1_000);
            startRouter();
            faults.add("router restarted");
            Thread.sleep(4_000);
        } finally {
            running.set(false);
            clients.shutdown();
        }
        if (!clients.awaitTermination(60, TimeUnit.SECONDS)) {
            router.destroyForcibly(); // frees a client stuck on the router's socket, so the test fails rather than hangs
            fail("a client did not finish within 60 s of the end of the run");
        }
        for (var f : futures) f.get();
        awaitNoPreparedBranches();

        Map<Long, long[]> transfers = readTransfers();
        Map<Integer, Long> balances = readBalances();
        System.out.println("ChaosIT: " + acknowledged.size() + " transfers acknowledged, " + failed.get() + " errors (failed transfers and reconnects), "
                + transfers.size() + " found on the shards; " + String.join("; ", faults));
        assertTrue(acknowledged.size() > 50 && failed.get() > 0, "the run proved little: " + acknowledged.size() + " acknowledged, "
                + failed.get() + " failed");
        var lost = new HashSet<>(acknowledged);
        lost.removeAll(transfers.keySet());
        assertEquals(Set.of(), lost, "acknowledged transfers missing");
        var expected = new HashMap<Integer, Long>();
        for (int id = 1; id <= ACCOUNTS; id++) expected.put(id, OPENING);
        for (long[] t : transfers.values()) {
            expected.merge((int) t[0], -t[2], Long::sum);
            expected.merge((int) t[1], t[2], Long::sum);
        }
        assertEquals(expected, balances, "every transfer found is applied whole, and no other change is");
        assertEquals(ACCOUNTS * OPENING, balances.values().stream().mapToLong(Long::longValue).sum());
    }

    /** One client: transfers until stopped, reconnecting whenever its session is gone (router killed, restarted). */
    private Void transferUntilStopped(AtomicBoolean running, AtomicLong ids, Set<Long> acknowledged, AtomicLong failed) throws Exception {
        var rnd = ThreadLocalRandom.current();
        Connection c = null;
        while (running.get()) {
            try {
                if (c == null || c.isClosed()) {
                    c = connect();
                    c.setAutoCommit(false);
                }
                long id = ids.incrementAndGet();
                int src = rnd.nextInt(1, ACCOUNTS + 1);
                int dst = rnd.nextInt(1, ACCOUNTS);
                if (dst >= src) dst++;
                int amount = rnd.nextInt(1, 10);
                try (var st = c.createStatement()) {
                    st.executeUpdate("INSERT INTO transfers VALUES (" + id + ", " + src + ", " + dst + ", " + amount + ")");
                    st.executeUpdate("UPDATE accounts SET balance = balance - " + amount + " WHERE id = " + src);
                    st.executeUpdate("UPDATE accounts SET balance = balance + " + amount + " WHERE id = " + dst);
                }
                c.commit();
                acknowledged.add(id);
            } catch (SQLException e) {
                failed.incrementAndGet();
                if (c != null) {
                    try {
                        c.rollback();
                    } catch (SQLException gone) {
                        closeQuietly(c);
                        c = null;
                    }
                }
                Thread.sleep(50);
            }
        }
        closeQuietly(c);
        return null;
    }

    private void startRouter() throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = Files.createTempFile("lutra-chaos-router", ".log");
        router = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), RouterMain.class.getName(), config.toString())
                .redirectError(log.toFile()).start();
        var out = new BufferedReader(new InputStreamReader(router.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith(RouterMain.PORT_LINE)) {
                port.set(Integer.parseInt(line.substring(RouterMain.PORT_LINE.length()).trim()));
                return;
            }
        }
        throw new IOException("router process exited before listening:\n" + Files.readString(log));
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + port.get() + "/", "app", "secret");
    }

    /** The restarted router's recovery resolves what the faults left prepared; waits for it (bounded). */
    private void awaitNoPreparedBranches() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int prepared;
        do {
            prepared = 0;
            for (int s = 0; s < 3; s++) prepared += preparedBranches(s);
            if (prepared == 0) return;
            Thread.sleep(250);
        } while (System.nanoTime() < until);
        fail(prepared + " XA branches still prepared 60 s after the run");
    }

    private int preparedBranches(int shard) throws SQLException {
        int n = 0;
        try (var c = shards.connect(shard); var rs = c.createStatement().executeQuery("XA RECOVER")) {
            while (rs.next()) {
                if (new String(rs.getBytes(4), StandardCharsets.ISO_8859_1).contains(database)) n++;
            }
        }
        return n;
    }

    private Map<Long, long[]> readTransfers() throws SQLException {
        var out = new HashMap<Long, long[]>();
        for (int s = 0; s < 3; s++) {
            try (var c = shards.connect(s, database + "_p" + s); var rs = c.createStatement().executeQuery("SELECT id, src, dst, amount FROM transfers")) {
                while (rs.next()) {
                    assertNull(out.put(rs.getLong(1), new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4)}), "transfer on two partitions");
                }
            }
        }
        return out;
    }

    private Map<Integer, Long> readBalances() throws SQLException {
        var out = new HashMap<Integer, Long>();
        for (int s = 0; s < 3; s++) {
            try (var c = shards.connect(s, database + "_p" + s); var rs = c.createStatement().executeQuery("SELECT id, balance FROM accounts")) {
                while (rs.next()) assertNull(out.put(rs.getInt(1), rs.getLong(2)), "account on two partitions");
            }
        }
        assertEquals(ACCOUNTS, out.size());
        return out;
    }

    private static void closeQuietly(Connection c) {
        if (c == null) return;
        try {
            c.close();
        } catch (SQLException ignored) {
            // gone already
        }
    }
}
