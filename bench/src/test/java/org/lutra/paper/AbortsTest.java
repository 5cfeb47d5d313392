package org.lutra.paper;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class AbortsTest {
    @Test
    void classifiesWhatAnApplicationRunsAgain() {
        assertEquals(Aborts.Cause.DEADLOCK, Aborts.classify(new SQLException("Deadlock found", "40001", 1213)));
        assertEquals(Aborts.Cause.LOCK_WAIT_TIMEOUT, Aborts.classify(new SQLException("Lock wait timeout exceeded", "HY000", 1205)));
        assertEquals(Aborts.Cause.SERIALIZATION, Aborts.classify(new SQLException("victim of a distributed deadlock", "40001", 0)));
        // the router's rollback carries the backend's error as its cause
        assertEquals(Aborts.Cause.DEADLOCK, Aborts.classify(new SQLException("transaction rolled back", "40000", 0,
                new SQLException("[p1@shard1] Deadlock found", "40001", 1213))));
        assertEquals(Aborts.Cause.ROLLED_BACK, Aborts.classify(new SQLException("prepare timed out", "40000", 0)));
        assertNull(Aborts.classify(new SQLException("Duplicate entry", "23000", 1062)));
        assertNull(Aborts.classify(new SQLException("not supported", "42000", 1235)));
    }
}
