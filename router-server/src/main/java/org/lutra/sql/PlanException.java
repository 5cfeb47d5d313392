package org.lutra.sql;

import org.lutra.protocol.Refusal;

import java.sql.SQLException;

/** A statement the router refuses at plan time; carries a MySQL-style SQLState and error number. */
public final class PlanException extends SQLException {
    public PlanException(String sqlState, int vendorCode, String message) {
        super(message, sqlState, vendorCode);
    }

    /** Valid SQL the router cannot run correctly (yet): a {@link Refusal}. */
    public static PlanException unsupported(String what) {
        return new PlanException(Refusal.SQL_STATE, Refusal.VENDOR_CODE, "Lutra does not support " + what);
    }
}
