package org.lutra.exec;

import java.sql.SQLException;

/**
 * An insert the placement trigger refused ({@link org.lutra.placement.PlacementRows}): a key of the statement lives
 * elsewhere. The backend rolled back that statement only; its transaction goes on, and the
 * router redirects the rows.
 */
final class Misplaced extends SQLException {
    Misplaced(SQLException refused) {
        super(refused.getMessage(), refused.getSQLState(), refused.getErrorCode(), refused);
    }
}
