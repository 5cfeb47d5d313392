package org.lutra;

import org.lutra.protocol.Refusal;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Assertions that a statement was refused by Lutra ({@link Refusal}: 42000, 1235), not failed otherwise. */
public final class Refusals {
    private Refusals() {}

    public static void assertRefusal(SQLException e) {
        assertRefusal(e, "the statement");
    }

    public static void assertRefusal(SQLException e, String context) {
        assertTrue(Refusal.is(e), () -> context + ": expected Lutra's refusal (" + Refusal.SQL_STATE + ", " + Refusal.VENDOR_CODE
                + "), got " + e.getSQLState() + " " + e.getErrorCode() + " " + e.getMessage());
    }
}
