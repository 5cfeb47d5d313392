package org.lutra.paper;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a router says about its own work, read through a client connection: {@code SHOW LUTRA
 * STATUS} (statements on one or several partitions, transactions by partitions touched, one- and
 * two-phase commits, lookup fallbacks), {@code SHOW LOOKUP TABLES} (broadcasts) and {@code SHOW
 * PARTITIONS} (sub-queries per partition). A run's share is the difference of two readings.
 */
record RouterStatus(Map<String, Long> counters, Map<Integer, Long> txnPartitions, Map<Integer, Long> statementPartitions,
                    long broadcasts, long[] subQueries) {

    private static final String[] COUNTERS = {"statements_single_partition", "statements_multi_partition", "lookup_fallbacks",
            "txn_one_phase_commits", "txn_two_phase_commits", "txn_rollbacks", "txn_aborts", "deadlocks_detected", "deadlocks_by_timeout"};

    static RouterStatus read(Connection c, int partitions) throws SQLException {
        var status = new HashMap<String, String>();
        try (var rs = c.createStatement().executeQuery("SHOW LUTRA STATUS")) {
            while (rs.next()) status.put(rs.getString(1), rs.getString(2));
        }
        var counters = new HashMap<String, Long>();
        for (String name : COUNTERS) counters.put(name, Long.parseLong(status.getOrDefault(name, "0")));
        long broadcasts = 0;
        try (var rs = c.createStatement().executeQuery("SHOW LOOKUP TABLES")) {
            while (rs.next()) broadcasts += rs.getLong("Broadcasts");
        }
        long[] subQueries = new long[partitions];
        try (var rs = c.createStatement().executeQuery("SHOW PARTITIONS")) {
            while (rs.next()) {
                int id = rs.getInt("Id");
                if (id < partitions) subQueries[id] = rs.getLong("Sub_queries");
            }
        }
        return new RouterStatus(counters, histogram(status.get("txn_by_partitions")), histogram(status.get("statements_by_partitions")),
                broadcasts, subQueries);
    }

    /** {@code "1:120 2:7"} → {1=120, 2=7}; the last slot's {@code 64+} counts as 64. */
    static Map<Integer, Long> histogram(String text) {
        var out = new TreeMap<Integer, Long>();
        if (text == null || text.isBlank()) return out;
        for (String pair : text.trim().split("\\s+")) {
            int colon = pair.indexOf(':');
            out.put(Integer.parseInt(pair.substring(0, colon).replace("+", "")), Long.parseLong(pair.substring(colon + 1)));
        }
        return out;
    }

    long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }

    RouterStatus minus(RouterStatus o) {
        var c = new HashMap<String, Long>();
        counters.forEach((k, v) -> c.put(k, v - o.counters.getOrDefault(k, 0L)));
        long[] sq = subQueries.clone();
        for (int i = 0; i < sq.length && i < o.subQueries.length; i++) sq[i] -= o.subQueries[i];
        return new RouterStatus(c, minus(txnPartitions, o.txnPartitions), minus(statementPartitions, o.statementPartitions),
                broadcasts - o.broadcasts, sq);
    }

    private static Map<Integer, Long> minus(Map<Integer, Long> a, Map<Integer, Long> b) {
        var out = new TreeMap<Integer, Long>();
        a.forEach((k, v) -> {
            long d = v - b.getOrDefault(k, 0L);
            if (d != 0) out.put(k, d);
        });
        return out;
    }
}
