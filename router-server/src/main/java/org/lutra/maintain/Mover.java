package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.backend.Connections;
import org.lutra.placement.MoveFence;
import org.lutra.placement.PlacementLog;
import org.lutra.placement.PlacementRows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves keys of a lookup group — the owner's rows and every SAME AS table's rows with that key —
 * to one partition, or replicates them on several (the first is their primary), a batch of keys per
 * transaction (two-phase when it spans partitions). A key's rows are copied to every target that
 * lacks them and deleted wherever it no longer belongs; with several targets, the home row, every
 * target and every partition left keep a placement row naming the whole set (see docs/placement.md,
 * "Replicated keys"), and the batch marks its transaction on each partition it writes, as the
 * placement triggers require of writes of replicated keys ({@code PlacementRows.MARK}).
 *
 * <p>Per batch, in this order (see {@link PlacementRows} for why each write comes before the read):
 * <ol>
 *   <li>the target first, so that its branch coordinates the transaction and <b>commits before
 *       every other</b>: the keys' placement rows there locked;
 *   <li>at each key's home: its home row read with FOR UPDATE (where the key is now; none: at
 *       home), then written to name the target, and a {@link PlacementLog} entry per key added there
 *       (other routers' caches hear of the move); at the target, the keys' placement rows deleted
 *       (it becomes their location: no tombstone there, and no home row if it is their home);
 *   <li>at each source other than the home: a tombstone naming the target; then, at every
 *       source, each group table's rows of the keys read with FOR UPDATE, inserted at the target,
 *       and deleted at the source.
 * </ol>
 *
 * <p>The reader's rule, from the commit order: a reader that finds a key's rows no longer at the
 * partition it asked (the source committed) asks the others, and the target, committed before the
 * source, has them. A reader that reads the source before its commit still sees the rows there
 * (its old version). A read of one key never misses the rows. A scan, which names no keys, reads
 * every partition in snapshots taken while the group's {@link MoveFence} is held: this batch holds
 * it exclusively from before its first branch commits until its last one has.
 */
public final class Mover {
    /** Keys per transaction: each batch holds its rows' locks until it commits. */
    static final int BATCH = 100;

    /** What a move did. */
    public record Moved(long keys, long rows) {}

    private final Catalog catalog;
    private final Partitioning.LookedUp lookup;
    private final Copied copied;
    private final MoveFence fence;
    private final long leaseMillis;

    /**
     * Hears each table's rows copied to the target, inside the batch's transaction, after they left the
     * source: writes what else those rows need there before the move commits (secondary lookup entries).
     */
    public interface Copied {
        void copied(Connections t, TableDef table, String[] columns, List<Object[]> rows, int to) throws SQLException;
    }

    /**
     * @param fence       held exclusively over each batch's commit, so that no scan's snapshots straddle it
     * @param leaseMillis the catalog lease: how long after a secondary lookup of the group is dropped replication stays refused
     */
    public Mover(Catalog catalog, Partitioning.LookedUp lookup, Copied copied, MoveFence fence, long leaseMillis) {
        this.catalog = catalog;
        this.lookup = lookup;
        this.copied = copied;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
    }

    /** A transaction of the router's own: leases, then commit or rollback. */
    public interface Transaction extends Connections {
        void commit() throws SQLException;

        void rollback();
    }

    /** Moves {@code keys} (normalized, distinct) to {@code target}, a transaction from {@code begin} per batch. */
    public Moved move(List<Object> keys, int target, java.util.function.Supplier<Transaction> begin) throws SQLException {
        return move(keys, new int[] {target}, begin);
    }

    /**
     * Places {@code keys} (normalized, distinct) on {@code targets} — one partition (a move), or several (the keys
     * are replicated there; the first is their primary) — a transaction from {@code begin} per batch.
     */
    public Moved move(List<Object> keys, int[] targets, java.util.function.Supplier<Transaction> begin) throws SQLException {
        long moved = 0;
        long rows = 0;
        for (int from = 0; from < keys.size(); from += BATCH) {
            var batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
            Transaction t = begin.get();
            var flagged = new java.util.LinkedHashSet<Integer>();
            long[] done;
            MoveFence.Held fenced;
            try {
                done = moveBatch(batch, targets, t, flagged);
                var wrote = new java.util.TreeSet<>(flagged);
                unflag(t, flagged);
                org.lutra.placement.FailPoints.reach(org.lutra.placement.FailPoints.MOVE_BATCH_LOCKED);
                fenced = fence.exclusive(lookup.owner()); // last, after every lock of the batch: see MoveFence for the lock order
                try {
                    if (targets.length > 1) refuseReplication();
                    // counted where it wrote, committing with it: a transaction's scan sees whether its snapshot predates it (MoveFence)
                    for (int p : wrote) update(t, p, MoveFence.COUNT_BATCH, List.of(MoveFence.group(lookup.owner())));
                } catch (SQLException | RuntimeException e) {
                    fenced.close();
                    throw e;
                }
            } catch (SQLException | RuntimeException e) {
                t.rollback(); // takes the marks back with the rest
                throw e;
            }
            try (fenced) {
                t.commit(); // ends the transaction either way: a failed commit rolled it back (or recovery finishes it)
            }
            for (Object k : batch) lookup.table().put(k, targets[0]);
            moved += done[0];
            rows += done[1];
        }
        return new Moved(moved, rows);
    }

    /**
     * A secondary lookup and replicated keys exclude each other in a lookup group, so that a group with a secondary lookup
     * provably has no replicated keys and its scans skip asking each partition ({@code placement.ReplicaScans}). Replication is
     * refused where the statement is planned, and here again, while the batch holds the fence exclusively, with the live
     * catalog: a batch planned before its router saw a CREATE SECONDARY LOOKUP commits before that statement's check of
     * the placement rows (which holds the fence shared, after every router has seen the lookup: it then finds the key
     * replicated and refuses), or sees the lookup here. After a DROP SECONDARY LOOKUP another router may skip the question
     * until it sees the drop, within one catalog lease: replication waits that long.
     */
    private void refuseReplication() throws SQLException {
        String why = fence.replicationRefused(lookup.owner(), leaseMillis);
        if (why != null) {
            throw new SQLException("Lutra does not support replicated keys in a lookup group with secondary lookups: " + why + "; nothing replicated",
                    org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
        }
    }

    private long[] moveBatch(List<Object> keys, int[] targets, Transaction t, java.util.Set<Integer> flagged) throws SQLException {
        String place = "`" + PlacementRows.table(lookup.owner()) + "`";
        boolean replicated = targets.length > 1;
        String targetNames = String.join(",", java.util.Arrays.stream(targets).mapToObj(p -> catalog.partition(p).name()).toList());
        // 1. the targets first: the first coordinates, and so commits before the sources (their placement rows locked now, written below)
        for (int target : targets) {
            flag(t, target, flagged);
            try (var lease = new Lease(t, target, Connections.Use.WRITE);
                 PreparedStatement ps = lease.prepare("SELECT k FROM " + place + " WHERE k IN (" + marks(keys.size()) + ") FOR UPDATE", keys)) {
                ps.executeQuery().close();
            }
        }

        // 2. homes: where each key is now, then the home row names the targets
        var byHome = group(keys, lookup::placeNew);
        var sources = new LinkedHashMap<Object, int[]>();
        for (var home : byHome.entrySet()) {
            flag(t, home.getKey(), flagged);
            var away = new java.util.HashMap<Object, int[]>();
            try (var lease = new Lease(t, home.getKey(), Connections.Use.WRITE);
                 PreparedStatement ps = lease.prepare("SELECT k, partitions FROM " + place + " WHERE k IN (" + marks(home.getValue().size()) + ") FOR UPDATE",
                         home.getValue());
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String[] names = rs.getString(2).split(",");
                    int[] at = new int[names.length];
                    for (int i = 0; i < names.length; i++) at[i] = catalog.partitionNamed(names[i]).id();
                    away.put(normalized(org.lutra.backend.BackendDriver.object(rs, 1)), at);
                }
            }
            for (Object k : home.getValue()) sources.put(k, away.getOrDefault(k, new int[] {home.getKey()}));
            if (replicated || home.getKey() != targets[0]) upsert(t, home.getKey(), place, home.getValue(), targetNames);
            // the change's log entries, at the home, after its home row is written or locked (PlacementLog: the order per key;
            // a set is logged whole, and a router's cache takes its first partition, the primary)
            update(t, home.getKey(), PlacementLog.insertSql(home.getValue().size()), PlacementLog.params(lookup.owner(), home.getValue(), targetNames));
        }

        // the targets are now the keys' location: one target keeps no row (no home row, if it is their home, and no tombstone);
        // several keep the set, which the triggers read there (a write of one copy alone is refused) and scans (copies left out)
        for (int target : targets) {
            if (replicated) {
                upsert(t, target, place, keys, targetNames);
            } else {
                update(t, target, "DELETE FROM " + place + " WHERE k IN (" + marks(keys.size()) + ")", keys);
            }
        }

        // 3. sources, per set of partitions the keys are on now: tombstones where they leave, the rows copied to the
        //    targets that lack them (read at the first source, locked) and deleted where they leave
        var bySources = new LinkedHashMap<String, List<Object>>();
        var setOf = new java.util.HashMap<String, int[]>();
        sources.forEach((k, s) -> {
            String id = java.util.Arrays.toString(s);
            setOf.put(id, s);
            bySources.computeIfAbsent(id, x -> new ArrayList<>()).add(k);
        });
        long moved = 0;
        long rows = 0;
        for (var e : bySources.entrySet()) {
            int[] now = setOf.get(e.getKey());
            var group = e.getValue();
            int[] adding = java.util.Arrays.stream(targets).filter(p -> !contains(now, p)).toArray();
            int[] leaving = java.util.Arrays.stream(now).filter(p -> !contains(targets, p)).toArray();
            if (adding.length == 0 && leaving.length == 0) continue; // already placed so
            for (int from : leaving) {
                flag(t, from, flagged);
                var tombstones = new ArrayList<Object>();
                for (Object k : group) if (lookup.placeNew(k) != from) tombstones.add(k);
                if (!tombstones.isEmpty()) upsert(t, from, place, tombstones, targetNames);
            }
            flag(t, now[0], flagged);
            for (TableDef g : group()) rows += copy(t, g, group, now[0], adding, leaving);
            moved += group.size();
        }
        return new long[] {moved, rows};
    }

    /** Rows with the placement {@code names} for {@code keys} at {@code partition}, replacing what was there. */
    private void upsert(Transaction t, int partition, String place, List<Object> keys, String names) throws SQLException {
        var params = new ArrayList<Object>();
        for (Object k : keys) {
            params.add(k);
            params.add(names);
        }
        update(t, partition, "INSERT INTO " + place + " (k, partitions) VALUES " + "(?, ?), ".repeat(keys.size() - 1)
                + "(?, ?) ON DUPLICATE KEY UPDATE partitions = VALUES(partitions)", params);
    }

    /**
     * The batch writes rows of replicated keys (and copies of them), which the placement triggers let through only
     * in a marked transaction ({@link PlacementRows#MARK}): marked on each of its partitions once, unmarked before it commits.
     */
    private static void flag(Transaction t, int partition, java.util.Set<Integer> flagged) throws SQLException {
        if (flagged.add(partition)) update(t, partition, PlacementRows.MARK, List.of());
    }

    private static void unflag(Transaction t, java.util.Set<Integer> flagged) throws SQLException {
        for (int p : flagged) update(t, p, PlacementRows.UNMARK, List.of());
        flagged.clear();
    }

    private static boolean contains(int[] partitions, int p) {
        for (int q : partitions) if (q == p) return true;
        return false;
    }

    /**
     * Copies {@code table}'s rows of {@code keys}, read at {@code from} with a locking read, to each partition of {@code to}
     * and deletes them at each of {@code leaving} (every one of which must hold the same rows); returns how many rows.
     */
    private long copy(Transaction t, TableDef table, List<Object> keys, int from, int[] toAll, int[] leaving) throws SQLException {
        String col = "`" + table.partitioning().column() + "`";
        String where = " WHERE " + col + " IN (" + marks(keys.size()) + ")";
        var rows = new ArrayList<Object[]>();
        String[] columns;
        int[] types;
        try (var lease = new Lease(t, from, Connections.Use.WRITE);
             PreparedStatement ps = lease.prepare("SELECT * FROM `" + table.name() + "`" + where + " FOR UPDATE", keys);
             ResultSet rs = ps.executeQuery()) {
            var md = rs.getMetaData();
            columns = new String[md.getColumnCount()];
            types = new int[columns.length];
            for (int i = 0; i < columns.length; i++) {
                columns[i] = md.getColumnName(i + 1);
                types[i] = md.getColumnType(i + 1);
            }
            while (rs.next()) {
                var row = new Object[columns.length];
                for (int i = 0; i < row.length; i++) row[i] = value(rs, i + 1, types[i]);
                rows.add(row);
            }
        }
        if (rows.isEmpty()) return 0;
        for (int to : toAll) insert(t, table, columns, rows, to);
        for (int source : leaving) {
            long deleted = update(t, source, unchecked(table, "DELETE FROM `" + table.name() + "`" + where), keys);
            if (deleted != rows.size()) {
                throw new SQLException("move of " + table.name() + " rows: read " + rows.size() + " rows at " + catalog.partition(from).name() + " but deleted "
                        + deleted + " at " + catalog.partition(source).name() + "; rolled back", "HY000", 0);
            }
        }
        for (int to : toAll) copied.copied(t, table, columns, rows, to); // after the deletes: a unique entry's check must not find the rows where they were
        return rows.size();
    }

    private void insert(Transaction t, TableDef table, String[] columns, List<Object[]> rows, int to) throws SQLException {
        var names = new StringBuilder();
        for (String c : columns) names.append(names.isEmpty() ? "" : ", ").append('`').append(c.replace("`", "``")).append('`');
        String one = "(" + marks(columns.length) + ")";
        for (int start = 0; start < rows.size(); start += 200) {
            var chunk = rows.subList(start, Math.min(rows.size(), start + 200));
            var params = new ArrayList<Object>();
            chunk.forEach(r -> params.addAll(java.util.Arrays.asList(r)));
            update(t, to, unchecked(table, "INSERT INTO `" + table.name() + "` (" + names + ") VALUES " + (one + ", ").repeat(chunk.size() - 1) + one),
                    params);
        }
    }

    /**
     * A move's write of rows of {@code table}, where a foreign key names it: with the shard's checks off. The rows move as they
     * are, so every key holds after the move as before, but a shard would look for a parent, or for children, on its own
     * partition only (the rows' parents or children may be elsewhere, or not copied yet); a delete would cascade.
     */
    private String unchecked(TableDef table, String sql) {
        boolean keyed = catalog.foreignKeys().stream().anyMatch(fk -> fk.child().equalsIgnoreCase(table.name()) || fk.parent().equalsIgnoreCase(table.name()));
        return keyed ? "SET STATEMENT foreign_key_checks = 0 FOR " + sql : sql;
    }

    /**
     * A column value as it must be written back unchanged: temporal values as the server's text
     * (no time-zone conversion on the way), everything else as the driver reads it in the binary
     * protocol (exact numbers, bytes for binary strings and bits).
     */
    private static Object value(ResultSet rs, int i, int type) throws SQLException {
        return switch (type) {
            case Types.DATE, Types.TIME, Types.TIMESTAMP, Types.TIME_WITH_TIMEZONE, Types.TIMESTAMP_WITH_TIMEZONE -> org.lutra.backend.BackendDriver.text(rs, i);
            case Types.BIT, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> rs.getBytes(i);
            default -> org.lutra.backend.BackendDriver.object(rs, i);
        };
    }

    private List<TableDef> group() {
        var out = new ArrayList<TableDef>();
        for (TableDef t : catalog.tablesInSchemaOrder()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(lookup.owner())) out.add(t);
        }
        return out;
    }

    private Object normalized(Object raw) {
        return catalog.table(lookup.owner()).key(raw);
    }

    private static long update(Transaction t, int partition, String sql, List<Object> params) throws SQLException {
        try (var lease = new Lease(t, partition, Connections.Use.WRITE); PreparedStatement ps = lease.prepare(sql, params)) {
            long n = ps.executeLargeUpdate();
            lease.changed(n);
            return n;
        }
    }

    private static Map<Integer, List<Object>> group(List<Object> keys, java.util.function.ToIntFunction<Object> by) {
        var out = new LinkedHashMap<Integer, List<Object>>();
        for (Object k : keys) out.computeIfAbsent(by.applyAsInt(k), x -> new ArrayList<>()).add(k);
        return out;
    }

    private static String marks(int n) {
        return "?, ".repeat(n - 1) + "?";
    }

    /** A leased connection of the move's transaction, released when closed. */
    private static final class Lease implements AutoCloseable {
        private final Connections.Lease lease;
        private SQLException failure;

        Lease(Connections c, int partition, Connections.Use use) throws SQLException {
            this.lease = c.lease(partition, use);
        }

        PreparedStatement prepare(String sql, List<Object> params) throws SQLException {
            try {
                Connection c = lease.connection();
                PreparedStatement ps = c.prepareStatement(sql);
                for (int i = 0; i < params.size(); i++) ps.setObject(i + 1, org.lutra.catalog.KeyValues.bindable(params.get(i)));
                return ps;
            } catch (SQLException e) {
                failure = e;
                throw e;
            }
        }

        void changed(long rows) {
            lease.changed(rows);
        }

        @Override
        public void close() {
            lease.release(failure);
        }
    }
}
