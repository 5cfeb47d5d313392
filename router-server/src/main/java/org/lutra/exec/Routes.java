package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.sql.KeyMatch;
import org.lutra.protocol.Value;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pure routing arithmetic: keys from parameters, and the SQL each partition gets. No I/O. */
final class Routes {
    private Routes() {}

    /** Item indexes grouped by the partition each key is located in, in first-seen order. */
    static Map<Integer, List<Integer>> byPartition(Stats stats, Partitioning partitioning, Object[] keys) {
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int i = 0; i < keys.length; i++) {
            int p = stats.locate(partitioning, keys[i]);
            if (p != Partitioning.NONE) out.computeIfAbsent(p, k -> new ArrayList<>()).add(i);
        }
        if (out.isEmpty()) {
            // beyond every range: no partition holds such rows; the statement runs on one and matches nothing
            var all = new ArrayList<Integer>();
            for (int i = 0; i < keys.length; i++) all.add(i);
            out.put(partitioning.partitions()[0], all);
        }
        return out;
    }

    /** The first-round sub-queries of a routed write (before any lookup validation). */
    static List<ShardQuery> primary(Stats stats, Plan.Routed plan, List<Value> params) {
        Object[] keys = keys(plan, params);
        if (keys == null) return wholeOn(plan, plan.table().partitioning().partitions(), params);
        return cut(plan, byPartition(stats, plan.table().partitioning(), keys), params);
    }

    /** The routing keys of the statement, normalized; null if it must broadcast. */
    static Object[] keys(Plan.Routed plan, List<Value> params) {
        KeyMatch match = plan.keys();
        if (match == null || match instanceof KeyMatch.Range) return null; // writes over a range go everywhere
        Object[] raw;
        if (match instanceof KeyMatch.Equals eq) {
            raw = new Object[]{eq.value().resolve(params, ValueCodec::decode)}; // no list for the one key of a point write
        } else {
            var refs = ((KeyMatch.In) match).values();
            raw = new Object[refs.size()];
            for (int i = 0; i < raw.length; i++) raw[i] = refs.get(i).resolve(params, ValueCodec::decode);
        }
        Object[] keys = plan.table().keys(raw); // one backend round trip at most, for values a collation's cache lacks
        for (Object k : keys) if (k == null) return null;
        return keys;
    }

    /** One query per partition with only that partition's IN items (or the whole statement for '='). */
    static List<ShardQuery> cut(Plan.Routed plan, Map<Integer, List<Integer>> byPartition, List<Value> params) {
        var out = new ArrayList<ShardQuery>(byPartition.size());
        for (var e : byPartition.entrySet()) {
            if (plan.keys() instanceof KeyMatch.In in) {
                int[] items = e.getValue().stream().mapToInt(Integer::intValue).toArray();
                out.add(new ShardQuery(e.getKey(), in.template().render(items), in.template().params(params, items)));
            } else {
                out.add(whole(plan, e.getKey(), params));
            }
        }
        return out;
    }

    static ShardQuery whole(Plan.Routed plan, int partition, List<Value> params) {
        return new ShardQuery(partition, plan.sql(), params);
    }

    static List<ShardQuery> wholeOn(Plan.Routed plan, int[] partitions, List<Value> params) {
        return Arrays.stream(partitions).mapToObj(p -> whole(plan, p, params)).toList();
    }

}
