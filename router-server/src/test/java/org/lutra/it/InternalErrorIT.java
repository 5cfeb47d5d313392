package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

/** What a client learns of the router's own failures (an incident id) and what the log learns of the client (nothing raw). */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InternalErrorIT {
    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "internalit", "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY hash(k) ON (p0, p1, p2, p3);",
                new RouterConfig.Transactions("internalit", 0, 1, 1));
        try (var c = router.connect()) {
            c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one'), (2, 'two')");
        }
    }

    @AfterAll
    void stop() throws Exception {
        router.close();
    }

    @Test
    void anInternalErrorReachesTheClientAsAnIncidentIdAndTheDetailsOnlyTheLog() throws Exception {
        var log = new java.io.ByteArrayOutputStream();
        var stderr = System.err;
        String message;
        try (var failing = org.lutra.placement.FailPoints.install(point -> {
            throw new IllegalStateException("secret internals at " + point);
        }); var c = router.connect()) {
            System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
            c.setAutoCommit(false);
            c.createStatement().executeUpdate("UPDATE kv SET v = 'a' WHERE k = 1"); // k = 1 and k = 2: two partitions,
            c.createStatement().executeUpdate("UPDATE kv SET v = 'b' WHERE k = 2"); // so the commit prepares (the fail point)
            var e = assertThrows(SQLException.class, c::commit);
            message = e.getMessage();
            assertFalse(message.contains("secret") || message.contains("IllegalState") || message.contains("java."), message);
            var id = java.util.regex.Pattern.compile("incident ([0-9a-f]{8})").matcher(message);
            assertTrue(id.find(), message);
            String logged = log.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(logged.contains(id.group(1)) && logged.contains("secret internals at after-prepare"),
                    "the log has the id and the details: " + logged);
            c.rollback();
            try (var rs = c.createStatement().executeQuery("SELECT v FROM kv WHERE k = 1")) { // the session goes on, nothing applied
                assertTrue(rs.next());
                assertEquals("one", rs.getString(1));
            }
        } finally {
            System.setErr(stderr);
        }
        // the fail point left the prepared branches to recovery (grace 1 s here), as a crash would
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (router.server.transactions().recovery().pass() > 0 && System.nanoTime() < deadline) Thread.sleep(500);
        assertEquals(0, router.server.transactions().recovery().inDoubt());
    }

    @Test
    void aUserNameIsLoggedEscapedAndCut() throws Exception {
        var log = new java.io.ByteArrayOutputStream();
        var stderr = System.err;
        String hostile = "mallory\n[main] INFO fake: access granted\u001b[2J" + "x".repeat(10_000);
        try {
            System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
            var e = assertThrows(SQLException.class, () -> java.sql.DriverManager.getConnection(router.url(), hostile, "pw"));
            assertEquals("28000", e.getSQLState());
            assertTrue(e.getMessage().length() < 300, e.getMessage());
        } finally {
            System.setErr(stderr);
        }
        String logged = log.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(logged.contains("access denied for user 'mallory\\u000a[main] INFO fake: access granted\\u001b[2Jxxx"), logged);
        assertFalse(logged.contains("\n[main] INFO fake") || logged.contains("\u001b") || logged.contains("x".repeat(100)), logged);
    }
}
