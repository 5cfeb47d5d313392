package org.lutra.backend;

import java.sql.SQLException;

/**
 * An insert the placement trigger refused ({@code placement.PlacementRows}): a key of the statement lives
 * elsewhere. The backend rolled back that statement only; its transaction goes on, and the
 * router redirects the rows. The trigger's message starts with {@link #MARKER}, which is how a
 * sub-query's error is recognised as this one ({@link #partitions}).
 */
public final class Misplaced extends SQLException {
    /** The trigger's message prefix; the partition names follow, comma-separated. */
    public static final String MARKER = "lutra-placed:";

    /** The count a sub-insert the trigger refused reports in place of its update count (a real one is never negative). */
    public static final long COUNT = -1;

    Misplaced(SQLException refused) {
        super(refused.getMessage(), refused.getSQLState(), refused.getErrorCode(), refused);
    }

    /** The partition names a refused insert's error names, or null if {@code e} is not the placement trigger's. */
    public static String partitions(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && "45000".equals(s.getSQLState()) && s.getMessage() != null) {
                int at = s.getMessage().indexOf(MARKER);
                if (at >= 0) return s.getMessage().substring(at + MARKER.length()).trim();
            }
        }
        return null;
    }
}
