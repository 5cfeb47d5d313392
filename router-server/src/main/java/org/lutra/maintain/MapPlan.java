package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.backend.Backends;
import org.lutra.placement.PlacementRows;
import org.lutra.lookup.io.MapLoader;
import org.lutra.lookup.io.MapSource;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * LOAD LOOKUP TABLE's first half: a partitioner's map file read whole and checked (nothing is
 * written if any line is bad), then compared with where the keys live now — the home rows of
 * {@code lutra_place_<owner>} on the backends, not a router's cache — and how many rows each key
 * has there (the owner's and every SAME AS table's).
 */
final class MapPlan {
    private static final int CHUNK = 500;

    /**
     * One key of the map: where the map wants it and where it is — one partition, or several for a replicated key (the first is
     * its primary; a map's set is sorted, so its primary is its lowest-numbered partition) — and how many rows it has at its primary.
     */
    record Key(Object key, int[] target, int[] location, long rows) {
        boolean inPlace() {
            return java.util.Arrays.equals(target, location);
        }
    }

    private MapPlan() {}

    /**
     * The map's entries, keys normalized as the owner's column compares them, in file order: the partitions of each (sorted;
     * several: the key is replicated there). A key placed twice on different partitions is an error of the second line; so is a
     * key on several partitions in a lookup group with secondary lookups (whose entries name one partition a row).
     */
    static Map<Object, int[]> read(Catalog catalog, TableDef named, Partitioning.LookedUp lookup, MapSource source) throws IOException {
        var entries = new LinkedHashMap<Object, int[]>();
        String secondaries = secondaries(catalog, lookup);
        new MapLoader(MapLoader.Progress.NONE, LookupMapFiles.partitionNames(catalog)).scan(source,
                new LookupMapFiles.Entries(catalog, named, lookup, new RouterLoader.KeySink() {
                    @Override
                    public void accept(Object key, int partition) {
                        accept(key, new int[] {partition}, catalog);
                    }

                    @Override
                    public void accept(Object key, int[] partitions, Catalog c) {
                        if (partitions.length > 1 && secondaries != null) {
                            throw new IllegalArgumentException("key " + key + " is placed on " + RouterLoader.names(catalog, partitions) + ", but Lutra"
                                    + " does not support replicated keys in a lookup group with secondary lookups (" + secondaries + "): name one partition");
                        }
                        int[] earlier = entries.putIfAbsent(key, partitions);
                        if (earlier != null && !java.util.Arrays.equals(earlier, partitions)) {
                            throw new IllegalArgumentException("key " + key + " is placed on " + RouterLoader.names(catalog, partitions)
                                    + " here but on " + RouterLoader.names(catalog, earlier) + " by an earlier line");
                        }
                    }
                }));
        return entries;
    }

    /** "'t' has s" for the first table of the group with a secondary lookup, or null. */
    private static String secondaries(Catalog catalog, Partitioning.LookedUp lookup) {
        for (TableDef g : group(catalog, lookup)) {
            if (!catalog.secondariesOf(g.name()).isEmpty()) return "'" + g.name() + "' has " + catalog.secondariesOf(g.name()).getFirst().name();
        }
        return null;
    }

    /** Where each key of {@code entries} is now and its rows there (read without locks: the move re-reads under its own). */
    static List<Key> locate(Catalog catalog, TableDef owner, Partitioning.LookedUp lookup, Backends backends, Map<Object, int[]> entries)
            throws SQLException {
        var location = new HashMap<Object, int[]>();
        var byHome = new LinkedHashMap<Integer, List<Object>>();
        for (Object k : entries.keySet()) byHome.computeIfAbsent(lookup.placeNew(k), h -> new ArrayList<>()).add(k);
        String place = "`" + PlacementRows.table(lookup.owner()) + "`";
        for (var home : byHome.entrySet()) {
            for (var chunk : chunks(home.getValue())) {
                try (Connection c = backends.placement(home.getKey()).borrow();
                     PreparedStatement ps = prepare(c, "SELECT k, partitions FROM " + place + " WHERE k IN (" + marks(chunk.size()) + ")", chunk);
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String[] names = rs.getString(2).split(",");
                        int[] at = new int[names.length];
                        for (int i = 0; i < at.length; i++) at[i] = catalog.partitionNamed(names[i]).id();
                        location.put(owner.key(org.lutra.backend.BackendDriver.object(rs, 1)), at);
                    }
                }
            }
        }
        var byLocation = new LinkedHashMap<Integer, List<Object>>();
        for (var e : byHome.entrySet()) {
            for (Object k : e.getValue()) {
                int[] at = location.get(k);
                byLocation.computeIfAbsent(at == null ? e.getKey() : at[0], x -> new ArrayList<>()).add(k); // rows counted at the primary
            }
        }
        var rows = new HashMap<Object, Long>();
        for (var at : byLocation.entrySet()) {
            for (TableDef t : group(catalog, lookup)) {
                String col = "`" + t.partitioning().column() + "`";
                for (var chunk : chunks(at.getValue())) {
                    try (Connection c = backends.placement(at.getKey()).borrow();
                         PreparedStatement ps = prepare(c, "SELECT " + col + ", COUNT(*) FROM `" + t.name() + "` WHERE " + col + " IN ("
                                 + marks(chunk.size()) + ") GROUP BY " + col, chunk);
                         ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) rows.merge(owner.key(org.lutra.backend.BackendDriver.object(rs, 1)), rs.getLong(2), Long::sum);
                    }
                }
            }
        }
        var out = new ArrayList<Key>(entries.size());
        entries.forEach((k, target) -> out.add(new Key(k, target, location.getOrDefault(k, new int[] {lookup.placeNew(k)}), rows.getOrDefault(k, 0L))));
        return out;
    }

    /** The owner and its SAME AS tables. */
    static List<TableDef> group(Catalog catalog, Partitioning.LookedUp lookup) {
        var out = new ArrayList<TableDef>();
        for (TableDef t : catalog.tablesInSchemaOrder()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(lookup.owner())) out.add(t);
        }
        return out;
    }

    private static List<List<Object>> chunks(List<Object> keys) {
        var out = new ArrayList<List<Object>>();
        for (int from = 0; from < keys.size(); from += CHUNK) out.add(keys.subList(from, Math.min(keys.size(), from + CHUNK)));
        return out;
    }

    private static PreparedStatement prepare(Connection c, String sql, List<Object> params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < params.size(); i++) ps.setObject(i + 1, org.lutra.catalog.KeyValues.bindable(params.get(i)));
        return ps;
    }

    private static String marks(int n) {
        return "?, ".repeat(n - 1) + "?";
    }
}
