package org.lutra.ops;

import org.lutra.catalog.Partitioning;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.server.RouterServer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the console page shows, as one JSON document ({@code /api/console}): partitions with their
 * backends, rows and pools; the counters' history (the page draws load over time from it); the
 * share of distributed statements and transactions; lookup tables with their hit ratios; hot keys;
 * moves with their progress. Read from the router's state and the sampler; nothing asks a backend.
 */
final class ConsoleData {
    private final RouterServer server;
    private final Sampler sampler;
    private final long startedMillis = System.currentTimeMillis();

    ConsoleData(RouterServer server, Sampler sampler) {
        this.server = server;
        this.sampler = sampler;
    }

    Map<String, Object> snapshot() {
        var out = new LinkedHashMap<String, Object>();
        var router = new LinkedHashMap<String, Object>();
        router.put("version", RouterServer.VERSION);
        router.put("database", server.config().database());
        router.put("name", server.config().transactions().routerName());
        router.put("sessions", server.openSessions());
        router.put("uptime_seconds", (System.currentTimeMillis() - startedMillis) / 1000);
        var started = server.started();
        router.put("lookups", started == null ? "warming" : "warm (from " + started.source() + ")");
        out.put("router", router);

        var partitions = new ArrayList<Map<String, Object>>();
        for (var p : server.placements()) {
            var row = new LinkedHashMap<String, Object>();
            int id = p.partition();
            row.put("name", p.name());
            row.put("backend", p.backend());
            row.put("database", p.database());
            double rows = sampler.rows(id);
            row.put("rows", Double.isNaN(rows) ? null : (long) rows);
            double reachable = sampler.reachable(id);
            row.put("reachable", Double.isNaN(reachable) ? null : reachable == 1);
            row.put("sub_queries", server.stats().subQueries(id));
            var pool = p.pool().getHikariPoolMXBean();
            row.put("pool_active", pool == null ? 0 : pool.getActiveConnections());
            row.put("pool_size", p.pool().getMaximumPoolSize());
            partitions.add(row);
        }
        out.put("partitions", partitions);

        var stats = server.stats();
        var txn = server.transactions().stats();
        var totals = new LinkedHashMap<String, Object>();
        totals.put("statements_single_partition", stats.singlePartition());
        totals.put("statements_multi_partition", stats.multiPartition());
        totals.put("transactions_one_phase", txn.onePhaseCommits.sum());
        totals.put("transactions_two_phase", txn.twoPhaseCommits.sum());
        totals.put("transactions_rolled_back", txn.rollbacks.sum() + txn.aborts.sum());
        totals.put("xa_in_doubt", server.transactions().recovery().inDoubt());
        out.put("totals", totals);

        var history = new ArrayList<Map<String, Object>>();
        for (var point : sampler.history()) {
            var h = new LinkedHashMap<String, Object>();
            h.put("t", point.millis());
            h.put("sub_queries", point.subQueries());
            h.put("single", point.single());
            h.put("multi", point.multi());
            h.put("one_phase", point.onePhase());
            h.put("two_phase", point.twoPhase());
            h.put("hits", point.hits());
            h.put("misses", point.misses());
            history.add(h);
        }
        out.put("history", history);
        out.put("lookups", lookups());

        var hot = new ArrayList<Map<String, Object>>();
        for (var k : sampler.hotKeys()) hot.add(Map.of("table", k.table(), "rank", k.rank(), "key", k.key(), "count", k.count()));
        out.put("hot_keys", hot);

        var moves = new ArrayList<Map<String, Object>>();
        for (var m : sampler.moves().all()) {
            var row = new LinkedHashMap<String, Object>();
            row.put("id", m.id());
            row.put("table", m.table());
            row.put("state", m.state());
            row.put("keys_done", m.keysDone());
            row.put("keys_total", m.keysTotal());
            row.put("rows_moved", m.rowsMoved());
            row.put("router", m.router());
            moves.add(row);
        }
        out.put("moves", moves);
        return out;
    }

    private List<Map<String, Object>> lookups() {
        var out = new ArrayList<Map<String, Object>>();
        for (var t : server.catalog().tablesInSchemaOrder()) {
            if (!(t.partitioning() instanceof Partitioning.LookedUp lookup) || !lookup.owner().equalsIgnoreCase(t.name())) continue;
            var c = server.stats().lookup(lookup);
            var table = lookup.table();
            var row = new LinkedHashMap<String, Object>();
            row.put("table", t.name());
            row.put("keys", table.size());
            row.put("bytes", table.estimatedBytes());
            row.put("representation", (table instanceof AdaptiveLookupTable a ? a.current() : table).getClass().getSimpleName());
            row.put("hits", c.hits());
            row.put("misses", c.misses());
            row.put("fallbacks", c.fallbacks());
            row.put("broadcasts", c.broadcasts());
            long looked = c.hits() + c.misses();
            row.put("hit_ratio", looked == 0 ? null : (double) c.hits() / looked);
            out.add(row);
        }
        return out;
    }
}
