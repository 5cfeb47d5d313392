package org.lutra.paper;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * A shard server's own counters ({@code SHOW GLOBAL STATUS}): {@code Questions} (every statement
 * a client sent it, the paper's messages) and the {@code Com_*} counters by kind. A run's share is
 * the difference of two readings, less the one {@code SHOW GLOBAL STATUS} that the second reading
 * counts.
 */
record ShardStatus(Map<String, Long> values) {
    static final String[] NAMES = {"Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_rollback",
            "Com_begin", "Com_xa_start", "Com_xa_end", "Com_xa_prepare", "Com_xa_commit", "Com_xa_rollback", "Com_stmt_execute",
            "Com_stmt_prepare", "Com_set_option", "Innodb_row_lock_waits", "Innodb_deadlocks"};
    private static final String QUERY = "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + String.join("', '", NAMES) + "')";

    static ShardStatus read(Connection direct) throws SQLException {
        var values = new HashMap<String, Long>();
        try (var rs = direct.createStatement().executeQuery(QUERY)) {
            while (rs.next()) values.put(rs.getString(1), rs.getLong(2));
        }
        return new ShardStatus(values);
    }

    long get(String name) {
        return values.getOrDefault(name, 0L);
    }

    /** The statements between two readings ({@code this} the later), the reading itself left out. */
    ShardStatus minus(ShardStatus earlier) {
        var out = new HashMap<String, Long>();
        values.forEach((k, v) -> out.put(k, v - earlier.get(k)));
        out.merge("Questions", -1L, Long::sum);
        return new ShardStatus(out);
    }
}
