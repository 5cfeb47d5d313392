package org.lutra.protocol;

import java.sql.SQLException;

/**
 * How the router says "valid SQL that Lutra cannot run exactly as one MySQL would (yet)": SQLState
 * 42000 with MySQL's ER_NOT_SUPPORTED_YET (1235), the pair MySQL itself answers for what it does
 * not support yet. Not 0A000: connection pools (HikariCP among them) take 0A000 for a broken
 * connection and evict it, which would close the application's transaction on every refusal.
 *
 * <p>A backend's own 1235 ("This version of MariaDB doesn't yet support '...'") carries the same
 * pair; {@link #is} tells them apart by that message, which no refusal of Lutra's uses.
 */
public final class Refusal {
    public static final String SQL_STATE = "42000";
    public static final int VENDOR_CODE = 1235;
    private static final String BACKEND_WORDING = "doesn't yet support";

    private Refusal() {}

    public static SQLException of(String message) {
        return new SQLException(message, SQL_STATE, VENDOR_CODE);
    }

    /** Whether this is a refusal of Lutra's (not a backend's own "not supported yet" or syntax error). */
    public static boolean is(SQLException e) {
        return is(e.getSQLState(), e.getErrorCode(), e.getMessage());
    }

    public static boolean is(String sqlState, int vendorCode, String message) {
        return SQL_STATE.equals(sqlState) && vendorCode == VENDOR_CODE
                && (message == null || !message.contains(BACKEND_WORDING));
    }
}
