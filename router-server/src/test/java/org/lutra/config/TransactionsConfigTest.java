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
}
