package org.lutra.txn;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class RouterNameLockTest {
    @Test
    void lockNamesFitMySqlsSixtyFourCharacters() {
        assertEquals("lutra:r1@social_p0", RouterNameLock.lockName("r1", "social_p0"));
        String longDb = "a_very_long_logical_database_name_for_this_test_p0";
        String name = RouterNameLock.lockName("sixteen-chars-xx", longDb);
        assertTrue(name.length() <= 64, name);
        assertTrue(name.startsWith("lutra:sixteen-chars-xx@"), name);
        assertNotEquals(name, RouterNameLock.lockName("sixteen-chars-xx", longDb + "1"));
    }
}
