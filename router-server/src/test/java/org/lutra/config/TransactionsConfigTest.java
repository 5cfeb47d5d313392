package org.lutra.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class TransactionsConfigTest {
    @Test
    void phaseTimeoutsDefaultWellUnderTheGrace() {
        var defaults = RouterConfig.Transactions.defaults();
        assertEquals(5000, defaults.prepareTimeoutMillis());
        assertEquals(5000, defaults.decisionTimeoutMillis());
        assertEquals(5000, defaults.commitTimeoutMillis());
        var shortGrace = new RouterConfig.Transactions("r", 0, 1, 1);
        assertEquals(250, shortGrace.prepareTimeoutMillis(), "a quarter of a short grace");
        assertEquals(250, shortGrace.decisionTimeoutMillis());
        assertEquals(500_000_000L, shortGrace.decideWithinNanos());
    }

    @Test
    void aCoordinatorBoundThatReachesTheGraceIsRefused() {
        var e = assertThrows(IllegalArgumentException.class, () -> new RouterConfig.Transactions("r", 0, 1, 10, 6000, 4000, 0));
        assertTrue(e.getMessage().contains("must be less than recovery_grace_seconds"), e.getMessage());
        assertEquals(9_999_000_000L, new RouterConfig.Transactions("r", 0, 1, 10, 6000, 3999, 0).decideWithinNanos());
    }

    @Test
    void deadlockDetectionIsOnByDefaultAndTurnsOffWithANegativeCheckTime() throws Exception {
        assertEquals(50, RouterConfig.Transactions.defaults().deadlockCheckMillis());
        assertTrue(RouterConfig.Transactions.defaults().detectsDeadlocks());
        var off = new RouterConfig.Transactions("r", 0, 0, 0, 0, 0, 0, -5);
        assertEquals(-1, off.deadlockCheckMillis());
        assertFalse(off.detectsDeadlocks());
        var dir = java.nio.file.Files.createTempDirectory("lutra-config");
        java.nio.file.Files.writeString(dir.resolve("s.sql"), "CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0);");
        var file = dir.resolve("router.yaml");
        java.nio.file.Files.writeString(file, """
                schema: s.sql
                users: [ { name: app, password: secret } ]
                backends: [ { name: b0, url: "jdbc:mysql://127.0.0.1:3306/" } ]
                partitions: [ { name: p0, backend: b0 } ]
                transactions: { deadlock_check_ms: 200 }
                """);
        assertEquals(200, RouterConfig.load(file).transactions().deadlockCheckMillis());
    }
}
