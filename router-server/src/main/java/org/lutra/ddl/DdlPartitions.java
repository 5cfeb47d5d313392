package org.lutra.ddl;

import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

/** How a DDL statement runs on one partition, and how its errors and progress name the partitions. */
final class DdlPartitions {
    private final RouterConfig config;
    private final Backends backends;

    DdlPartitions(RouterConfig config, Backends backends) {
        this.config = config;
        this.backends = backends;
    }

    /**
     * Runs {@code sql} on partition {@code p}, waiting at most lock_wait_timeout_seconds for the table's metadata lock;
     * {@code foreignKeyChecks} false: with the shard's foreign key checks off (the router checked what they would).
     */
    void apply(int p, String sql, boolean foreignKeyChecks) throws SQLException {
        try (Connection c = backends.placement(p).borrow(); Statement st = c.createStatement()) {
            st.execute("SET SESSION lock_wait_timeout = " + config.transactions().lockWaitSeconds()
                    + (foreignKeyChecks ? "" : ", SESSION foreign_key_checks = 0"));
            try {
                st.execute(sql);
            } finally {
                st.execute("SET SESSION lock_wait_timeout = DEFAULT" + (foreignKeyChecks ? "" : ", SESSION foreign_key_checks = DEFAULT"));
            }
        }
    }

    /** {@code e}, which partition {@code p} raised, prefixed with where and followed by {@code what} became of the statement. */
    SQLException located(int p, SQLException e, String what) {
        var placement = backends.placement(p);
        return new SQLException("[" + placement.name() + "@" + placement.backend() + "] " + e.getMessage() + " — " + what,
                e.getSQLState(), e.getErrorCode(), e);
    }

    String names(List<Integer> partitions) {
        return partitions.stream().map(p -> backends.placement(p).name()).collect(Collectors.joining(", "));
    }
}
