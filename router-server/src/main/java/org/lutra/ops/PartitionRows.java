package org.lutra.ops;

import org.lutra.backend.Backends;

import java.sql.SQLException;

/** A partition's rows as its server estimates them: information_schema's TABLE_ROWS of the partition's tables, the router's own apart. */
final class PartitionRows {
    private PartitionRows() {}

    static long estimate(Backends.Placement placement) throws SQLException {
        try (var c = placement.pool().getConnection();
             var ps = c.prepareStatement("SELECT COALESCE(SUM(TABLE_ROWS), 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?"
                     + " AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME NOT LIKE 'lutra\\_%'")) {
            ps.setString(1, placement.database());
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
