package org.lutra.catalog;

import java.sql.SQLException;

/**
 * A backend could not weigh a routing key ({@link CollationWeights}): carried out of code that computes keys
 * without declaring SQLException (catalog lookups, map visitors), and given to the client as its SQLException.
 */
public final class KeyWeighingException extends RuntimeException {
    public KeyWeighingException(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    public SQLException sqlException() {
        return (SQLException) getCause();
    }
}
