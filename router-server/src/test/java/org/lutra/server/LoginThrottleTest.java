package org.lutra.server;

import org.junit.jupiter.api.Test;
import org.lutra.config.RouterConfig;

import static org.junit.jupiter.api.Assertions.*;

class LoginThrottleTest {
    /** 3 failures per pair, 10 per user, 10 per address; lockouts 1 s doubling up to 8 s; window 900 s. */
    static final RouterConfig.Limits LIMITS = RouterConfig.Limits.defaults().withLoginThrottle(3, 10, 10, 1, 8, 100);

    LoginThrottle throttle = new LoginThrottle(LIMITS);
    long now = 1_000_000;

    private LoginThrottle.Verdict check(String address, String user) {
        return throttle.check(address, user, "'" + user + "'", now);
    }

    private int code(LoginThrottle.Verdict v) {
        return v instanceof LoginThrottle.Verdict.Refused r ? r.vendorCode() : 0;
    }

    @Test
    void aPairIsLockedAfterItsFailuresWithALockoutThatDoublesUpToTheBound() {
        for (int i = 0; i < 3; i++) {
            assertEquals(0, code(check("10.0.0.1", "app")));
            throttle.failed("10.0.0.1", "app", true, now);
        }
        var refused = (LoginThrottle.Verdict.Refused) check("10.0.0.1", "app");
        assertEquals(3955, refused.vendorCode());
        assertEquals("HY000", refused.sqlState());
        assertTrue(refused.message().contains("blocked for 1 second(s)"), refused.message());
        assertEquals(0, code(check("10.0.0.2", "app")), "the same user from another address is not affected");
        assertEquals(0, code(check("10.0.0.1", "bob")), "another user from the same address is not affected");
        long[] expected = {2_000, 4_000, 8_000, 8_000};
        for (long lockout : expected) {
            now += 8_001; // past any lockout, well inside the 900 s window
            assertEquals(0, code(check("10.0.0.1", "app")));
            throttle.failed("10.0.0.1", "app", true, now);
            now += lockout - 1;
            assertEquals(3955, code(check("10.0.0.1", "app")), "locked for " + lockout + " ms");
            now += 1;
            assertEquals(0, code(check("10.0.0.1", "app")), "free after " + lockout + " ms");
        }
    }

    @Test
    void refusedAttemptsDoNotExtendTheLockoutAndSuccessClearsThePair() {
        for (int i = 0; i < 3; i++) throttle.failed("10.0.0.1", "app", true, now);
        for (int i = 0; i < 100; i++) assertEquals(3955, code(check("10.0.0.1", "app"))); // refused: counted nowhere
        now += 1_000;
        assertEquals(0, code(check("10.0.0.1", "app")));
        throttle.succeeded("10.0.0.1", "app");
        throttle.failed("10.0.0.1", "app", true, now);
        assertEquals(0, code(check("10.0.0.1", "app")), "one failure after a success is not a lockout");
    }

    @Test
    void failuresOlderThanTheWindowAreForgotten() {
        throttle.failed("10.0.0.1", "app", true, now);
        throttle.failed("10.0.0.1", "app", true, now);
        now += 901_000;
        throttle.failed("10.0.0.1", "app", true, now);
        assertEquals(0, code(check("10.0.0.1", "app")));
    }

    @Test
    void aUserAttackedFromManyAddressesStillLogsInFromWhereItDidBefore() {
        throttle.succeeded("10.0.0.9", "app"); // the application's own address
        for (int i = 0; i < 10; i++) throttle.failed("192.168.0." + i, "app", true, now);
        assertEquals(3955, code(check("192.168.1.1", "app")), "a new address is refused for that user");
        assertEquals(0, code(check("10.0.0.9", "app")), "an address that logged in as app before is not");
        assertEquals(0, code(check("192.168.1.1", "bob")), "nor another user");
    }

    @Test
    void anAddressTryingManyUsersIsBlockedExceptForPairsThatLoggedInBefore() {
        throttle.succeeded("10.0.0.1", "app");
        for (int i = 0; i < 10; i++) throttle.failed("10.0.0.1", "user" + i, false, now);
        var refused = (LoginThrottle.Verdict.Refused) check("10.0.0.1", "bob");
        assertEquals(1129, refused.vendorCode());
        assertTrue(refused.message().startsWith("Host '10.0.0.1' is blocked"), refused.message());
        assertEquals(0, code(check("10.0.0.1", "app")));
        assertEquals(0, code(check("10.0.0.2", "bob")));
        // unknown user names count for pairs and addresses, never as a user that could lock an account
        assertEquals(0, code(check("10.0.0.3", "user1")));
    }

    @Test
    void theTableStaysWithinItsBoundAndCanBeTurnedOff() {
        for (int i = 0; i < 10_000; i++) throttle.failed("10.0." + (i >> 8) + "." + (i & 255), "x".repeat(10_000) + i, true, now);
        assertTrue(throttle.size() <= 100, "entries: " + throttle.size());
        var off = new LoginThrottle(LIMITS.withoutLoginThrottle());
        for (int i = 0; i < 100; i++) off.failed("10.0.0.1", "app", true, now);
        assertEquals(0, off.size());
        assertInstanceOf(LoginThrottle.Verdict.Allowed.class, off.check("10.0.0.1", "app", "'app'", now));
    }
}
