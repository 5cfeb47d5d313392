package org.lutra.backend;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;

import static org.junit.jupiter.api.Assertions.*;

class BackendWatchTest {
    @Test
    void anErrorTheServerSentIsAnAnswerAFailureToHearFromItIsNot() {
        assertTrue(BackendWatch.serverAnswered(new SQLException("Too many connections", "08004", 1040)));
        assertTrue(BackendWatch.serverAnswered(new SQLException("Access denied", "28000", 1045)));
        assertTrue(BackendWatch.serverAnswered(new SQLException("Account is locked", "HY000", 3118)));
        assertFalse(BackendWatch.serverAnswered(new SQLException("Communications link failure", "08S01", 0)));
        assertFalse(BackendWatch.serverAnswered(new SQLTimeoutException("Read timed out", "08S01", 0)));
        assertFalse(BackendWatch.serverAnswered(new SQLException("Lost connection to server", "HY000", 2013)));
    }
}
