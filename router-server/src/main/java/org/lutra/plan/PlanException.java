package org.lutra.plan;

import java.sql.SQLException;

/** A statement the router refuses at plan time; carries a MySQL-style SQLState and error number. */
public final class PlanException extends SQLException {
    public PlanException(String sqlState, int vendorCode, String message) {
        super(message, sqlState, vendorCode);
    }

    /** 0A000: valid SQL the router cannot run correctly (yet). */
    static PlanException unsupported(String what) {
        return new PlanException("0A000", 1235, "Lutra does not support " + what);
    }
}
