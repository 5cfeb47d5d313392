package org.lutra.cli.bench;

import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The shard's status counters, read around the router's runs: backend statements and round trips per routed statement. */
final class ShardCounters {
    /**
     * Round trips are Questions (every statement a client sent, prepared executions included) plus the commands
     * Questions leaves out that wait for a reply (prepare, reset, ping); the Com_* counters say what the statements were.
     */
    static final List<String> ROUND_TRIPS = List.of("Questions", "Com_stmt_prepare", "Com_stmt_reset", "Com_admin_commands");
    static final List<String> COUNTERS = List.of("Questions", "Com_stmt_execute", "Com_stmt_prepare", "Com_stmt_close", "Com_stmt_reset",
            "Com_set_option", "Com_select", "Com_update", "Com_commit", "Com_rollback", "Com_admin_commands", "Com_xa_start", "Com_xa_end",
            "Com_xa_prepare", "Com_xa_commit", "Com_xa_rollback");

    private ShardCounters() {}

    /** The counters of shard 0 now. */
    static Map<String, Long> read(Shards shards) throws SQLException {
        var values = new HashMap<String, Long>();
        try (Connection c = shards.connect(0); var rs = c.createStatement().executeQuery("SHOW GLOBAL STATUS WHERE Variable_name = 'Questions' OR Variable_name LIKE 'Com\\_%'")) {
            while (rs.next()) values.put(rs.getString(1), rs.getLong(2));
        }
        for (String k : COUNTERS) values.putIfAbsent(k, 0L);
        return values;
    }

    /**
     * The shard's counters per second while the routers run and no client does (their catalog leases' statements): taken off
     * each cell's counts, which otherwise weigh them more the slower a busy machine runs the loop.
     */
    static Map<String, Double> idleRates(Shards shards, double seconds) throws SQLException, InterruptedException {
        double window = Math.max(2, seconds);
        var before = read(shards);
        long t0 = System.nanoTime();
        Thread.sleep((long) (window * 1000));
        var after = read(shards);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        after.merge("Questions", -1L, Long::sum); // the SHOW STATUS that read "before" counts itself
        var rates = new HashMap<String, Double>();
        for (String k : COUNTERS) rates.put(k, Math.max(0, after.get(k) - before.get(k)) / elapsed);
        return rates;
    }

    /** Backend round trips per routed statement in one run's counter deltas (with its "statements"). */
    static double roundTrips(Map<String, Long> delta) {
        long total = 0;
        for (String k : ROUND_TRIPS) total += delta.get(k);
        return total / (double) Math.max(1, delta.get("statements"));
    }
}
