package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.backend.Backends;
import org.lutra.placement.PlacementLog;
import org.lutra.placement.PlacementRows;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Makes a lookup table's start-up content durable and then takes the durable state back into the
 * cache ({@link PlacementRows} has the protocol):
 * <ol>
 *   <li>rows found away from their key's home (written before the placement rows existed, or
 *       directly on the shards) get their home row ({@code INSERT IGNORE}: a home row already
 *       there wins);
 *   <li>map-file entries for keys without rows are reserved: the home row is written first, then
 *       the key's rows at home are read with a locking read; a key that has rows at home keeps
 *       them there and loses the reservation. A router inserting the key at home meanwhile waits
 *       for the reservation and is then redirected by the trigger;
 *   <li>every home row is read back into the cache: the backends, not this router's map files,
 *       say where a key lives.
 * </ol>
 */
final class PlacementSync {
    private static final Logger log = LoggerFactory.getLogger(PlacementSync.class);
    private static final int BATCH = 500;

    record Entry(Object key, int partition) {}

    private PlacementSync() {}

    /** @return keys whose map entry was not honoured (rows or a home row elsewhere) */
    static long sync(Catalog catalog, TableDef owner, Partitioning.LookedUp lookup, Backends backends, List<Entry> awayRows,
                     List<Entry> reservations) throws SQLException {
        writeHomeRows(catalog, lookup, backends, awayRows, false);
        Set<Object> rejected = writeHomeRows(catalog, lookup, backends, reservations, true);
        var reserved = new LinkedHashMap<Object, Integer>();
        for (Entry e : reservations) reserved.put(e.key(), e.partition());
        long disagreeing = rejected.size();
        for (int p : lookup.partitions()) {
            try (Connection c = backends.placement(p).borrow(); var st = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
                org.lutra.backend.BackendDriver.streamRows(st);
                try (ResultSet rs = st.executeQuery("SELECT k, partitions FROM `" + PlacementRows.table(lookup.owner()) + "`")) {
                    while (rs.next()) {
                        Object key = owner.key(org.lutra.backend.BackendDriver.object(rs, 1));
                        if (key == null || lookup.placeNew(key) != p) continue; // a tombstone, not a home row
                        int where = catalog.partitionNamed(rs.getString(2).split(",")[0]).id();
                        Integer wanted = reserved.get(key);
                        if (wanted != null && wanted != where) disagreeing++;
                        lookup.table().put(key, where);
                    }
                }
            }
        }
        for (Object key : rejected) lookup.table().put(key, lookup.placeNew(key));
        return disagreeing;
    }

    /**
     * Writes home rows for {@code entries}, batched per home partition. With {@code reserving}, in
     * a transaction that then reads the keys' rows at home with a locking read and takes back the
     * rows of keys found there; returns those keys.
     */
    private static Set<Object> writeHomeRows(Catalog catalog, Partitioning.LookedUp lookup, Backends backends, List<Entry> entries,
                                             boolean reserving) throws SQLException {
        var byHome = new LinkedHashMap<Integer, List<Entry>>();
        for (Entry e : entries) {
            int home = lookup.placeNew(e.key());
            if (home != e.partition()) byHome.computeIfAbsent(home, h -> new ArrayList<>()).add(e);
        }
        var rejected = new HashSet<Object>();
        String place = "`" + PlacementRows.table(lookup.owner()) + "`";
        for (Map.Entry<Integer, List<Entry>> home : byHome.entrySet()) {
            try (Connection c = backends.placement(home.getKey()).borrow()) {
                for (int from = 0; from < home.getValue().size(); from += BATCH) {
                    var batch = home.getValue().subList(from, Math.min(home.getValue().size(), from + BATCH));
                    c.setAutoCommit(!reserving);
                    try {
                        try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + place + " (k, partitions) VALUES "
                                + "(?, ?), ".repeat(batch.size() - 1) + "(?, ?)")) {
                            int i = 1;
                            for (Entry e : batch) {
                                ps.setObject(i++, org.lutra.catalog.KeyValues.bindable(e.key()));
                                ps.setString(i++, catalog.partition(e.partition()).name());
                            }
                            ps.executeUpdate();
                        }
                        if (reserving) {
                            var found = keysWithRows(catalog, lookup, c, batch);
                            if (!found.isEmpty()) {
                                try (PreparedStatement del = c.prepareStatement("DELETE FROM " + place + " WHERE k = ? AND partitions = ?")) {
                                    for (Entry e : batch) {
                                        if (!found.contains(e.key())) continue;
                                        del.setObject(1, org.lutra.catalog.KeyValues.bindable(e.key()));
                                        del.setString(2, catalog.partition(e.partition()).name());
                                        del.addBatch();
                                        rejected.add(e.key());
                                    }
                                    del.executeBatch();
                                }
                            }
                            logReservations(catalog, lookup, c, batch, found);
                            c.commit();
                        }
                    } catch (SQLException e) {
                        if (reserving) c.rollback();
                        throw e;
                    } finally {
                        c.setAutoCommit(true);
                    }
                }
            }
        }
        if (!rejected.isEmpty()) {
            log.warn("lookup table {}: {} map entries not applied: the keys have rows at their home partition (move them with ALTER TABLE ... SET PARTITION)",
                    lookup.owner(), rejected.size());
        }
        return rejected;
    }

    /** The reservations kept, in {@link PlacementLog} (same transaction): other routers place those keys without a miss. */
    private static void logReservations(Catalog catalog, Partitioning.LookedUp lookup, Connection c, List<Entry> batch, Set<Object> found)
            throws SQLException {
        var byPartition = new LinkedHashMap<Integer, List<Object>>();
        for (Entry e : batch) {
            if (!found.contains(e.key())) byPartition.computeIfAbsent(e.partition(), p -> new ArrayList<>()).add(e.key());
        }
        for (var to : byPartition.entrySet()) {
            var params = PlacementLog.params(lookup.owner(), to.getValue(), catalog.partition(to.getKey()).name());
            try (PreparedStatement ps = c.prepareStatement(PlacementLog.insertSql(to.getValue().size()))) {
                for (int i = 0; i < params.size(); i++) ps.setObject(i + 1, org.lutra.catalog.KeyValues.bindable(params.get(i)));
                ps.executeUpdate();
            }
        }
    }

    /** The keys of {@code batch} that have rows in any table of the group on {@code c}'s partition (locking read). */
    private static Set<Object> keysWithRows(Catalog catalog, Partitioning.LookedUp lookup, Connection c, List<Entry> batch) throws SQLException {
        var found = new HashSet<Object>();
        for (TableDef t : catalog.tablesInSchemaOrder()) {
            if (!(t.partitioning() instanceof Partitioning.LookedUp l) || !l.owner().equalsIgnoreCase(lookup.owner())) continue;
            String col = "`" + l.column() + "`";
            try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT " + col + " FROM `" + t.name() + "` WHERE " + col + " IN ("
                    + "?, ".repeat(batch.size() - 1) + "?) LOCK IN SHARE MODE")) {
                for (int i = 0; i < batch.size(); i++) ps.setObject(i + 1, org.lutra.catalog.KeyValues.bindable(batch.get(i).key()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Object key = t.key(org.lutra.backend.BackendDriver.object(rs, 1));
                        if (key != null) found.add(key);
                    }
                }
            }
        }
        return found;
    }
}
