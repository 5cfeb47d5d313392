package org.lutra.placement;

import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.KeyValues;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The entries of a secondary lookup ({@link SecondaryLookup}) on the backends, and the protocol that keeps
 * them right whatever the routers' memories hold.
 *
 * <p><b>Entries.</b> {@code lutra_sec_<name> (v, p)} at v's home partition: "rows with value v may be on
 * partition p". Non-unique: one entry per (v, p), key (v, p). UNIQUE: one entry per v, key (v). Over several columns v
 * is the tuple of their values, in columns {@code v1, v2, ...} ({@link SecondaryLookup#valueColumns}), and so is every
 * statement below: a row "with value v" has every column equal to its part.
 *
 * <p><b>Invariant: the entries are a superset.</b> Every committed row with value v on partition p has a
 * committed entry (v, p). An insert's entries are committed aside (each by its own statement), after its rows are written and before
 * they commit ({@link #writeForWrittenRows}: the insert commits on its rows' partitions alone); where that
 * cannot settle them, and for an update setting the column and a move's copy to its target ({@link #write}),
 * they are written in the same transaction as the rows, which is made atomic over the partitions it touches
 * (two-phase when the home is another partition). Entries are never deleted with rows: an entry whose rows are
 * gone (a delete, an update to another value, a move's source) stays, costing a reader a visit to a
 * partition with no such rows. A reader ({@link #partitions}) reads the committed entries of its values,
 * then runs the statement on the partitions they name: a row committed before the read began has its
 * entry committed too, and so is found. A row whose transaction commits while the read runs may be seen
 * or not (as for any read over several partitions). Inside a transaction the reader reads the latest
 * committed entries (outside the transaction: its snapshot of the home may be older than its snapshots of
 * the partitions the entries name) and, at a home the transaction has begun on, its own uncommitted ones. A UNIQUE
 * entry taken over ({@link #claim}) no longer names the partition of the deleted row it stood for, which a REPEATABLE
 * READ transaction's older snapshot there still shows: such a read also reads the partitions the transaction began on
 * before ({@code exec.Target}, docs/placement.md "Secondary lookups").
 *
 * <p><b>UNIQUE</b> ({@link #claim}), per value v placed on partition q, inside the writing transaction:
 * <ol>
 *   <li>{@code INSERT IGNORE} the entry (v, q). Inserted: v is claimed (its lock held until commit).
 *       A concurrent claimer of v waits here on that lock until this transaction ends.
 *   <li>Else read the entry with {@code FOR UPDATE}: it names p. p = q: the partition's own unique index
 *       decides (MySQL's 1062 there).
 *   <li>p ≠ q: is the entry live? Read v's rows at p with a locking read ({@code LOCK IN SHARE MODE}, which
 *       waits for a transaction writing them). A row: the statement fails with 1062, raised by inserting the
 *       entry again (so the transaction is marked failed as after any backend error). No row (the row was
 *       deleted, updated away or moved, or its transaction never committed): the entry is stale and is
 *       taken over ({@code UPDATE ... SET p = q}) under the lock of step 2.
 * </ol>
 * As in Vitess's consistent_lookup, a stale entry never blocks a new row for longer than one check, and
 * two transactions claiming the same value serialize on the entry's lock: the second sees the first's
 * committed row and gets 1062. Every row of v is written by a transaction that holds v's entry lock
 * (claim) or by a move that rewrites the entry, so no row of v can appear on p between step 3's read and
 * the commit.
 */
public final class SecondaryEntries {
    private SecondaryEntries() {}

    /** One value to index: rows with {@code key} were written on {@code partition}. */
    public record Entry(Object key, int partition) {}

    /**
     * Writes the entries {@code entries} of {@code lookup} over {@code shards} (the writing statement's
     * transaction, made atomic by the caller before its first write). Non-unique: insert-if-missing;
     * UNIQUE: {@link #claim} each, failing with 1062 on a live row elsewhere.
     */
    public static void write(Shards shards, TableDef table, SecondaryLookup lookup, List<Entry> entries) throws SQLException {
        write(shards, table, lookup, entries, false);
    }

    /**
     * As {@link #write}, for rows the statement has just written (uncommitted, in its transaction) on the partitions
     * the entries name: each home's entries first settled aside ({@link #aside}), so that a statement whose rows are on
     * one partition commits there alone; the entries not settled so are written in the statement's transaction.
     */
    public static void writeForWrittenRows(Shards shards, TableDef table, SecondaryLookup lookup, List<Entry> entries) throws SQLException {
        write(shards, table, lookup, entries, true);
    }

    private static void write(Shards shards, TableDef table, SecondaryLookup lookup, List<Entry> entries, boolean asideFirst) throws SQLException {
        if (entries.isEmpty()) return;
        // one order for every writer (by home, then value): two statements writing the same entries never wait on each other in a cycle
        var byHome = new TreeMap<Integer, Set<Entry>>();
        var sorted = new ArrayList<>(new LinkedHashSet<>(entries));
        sorted.sort((a, b) -> {
            int c = KeyValues.compare(a.key(), b.key());
            return c != 0 ? c : Integer.compare(a.partition(), b.partition());
        });
        for (Entry e : sorted) byHome.computeIfAbsent(lookup.home(table, e.key()), h -> new LinkedHashSet<>()).add(e);
        for (var home : byHome.entrySet()) {
            Collection<Entry> left = asideFirst ? aside(shards, table, lookup, home.getKey(), home.getValue()) : home.getValue();
            if (left.isEmpty()) continue;
            if (lookup.unique()) {
                for (Entry e : left) claim(shards, table, lookup, home.getKey(), e);
            } else {
                var params = new ArrayList<Value>();
                for (Entry e : left) params.addAll(entry(e));
                String values = String.join(", ", Collections.nCopies(left.size(), placeholders(lookup)));
                shards.update(List.of(new ShardQuery(home.getKey(), "INSERT IGNORE INTO " + quote(lookup.indexTable()) + " (" + lookup.valueList() + ", p) VALUES " + values, params)));
            }
        }
    }

    /**
     * Settles {@code entries} (all at {@code home}) outside the writing statement's transaction, each by statements that
     * commit themselves ({@link Shards#aside}, auto-commit: an entry's insert is one statement, with no COMMIT), before the
     * statement's rows commit: an entry that was missing is inserted; an entry there already settles a non-unique value,
     * and a UNIQUE one if it names the row's own partition (whose unique index then decides, as in {@link #claim}). The
     * entries it cannot settle so are returned, all of them when a lock wait there ended it (one second at most: another
     * writer of the value holds its entry), to be written in the statement's transaction; those committed before it are
     * then found there and settle again (an entry of a non-unique value is there; a UNIQUE one names the row's partition).
     *
     * <p>Each entry stands alone: it is settled by one insert, or by the insert and then a locking read of the committed
     * entry (which waits for a writer holding it and is released as it returns, the entry left as it was), so
     * committing each statement as it runs settles what one transaction around them settled.
     *
     * <p>Why committing an entry ahead of its rows is exact: the rows are written (uncommitted, locked) before their entry
     * names their partition, and the entry is committed before they are, so the entries stay a superset; a claimer of the
     * same value on another partition that finds the entry naming this one reads it with a locking read, which waits for
     * these rows' transaction and then finds them (1062), or finds them gone (rolled back: the entry is stale). An entry
     * naming a partition leaves it only after such a read found no row of the value there.
     */
    private static Collection<Entry> aside(Shards shards, TableDef table, SecondaryLookup lookup, int home, Collection<Entry> entries) throws SQLException {
        Shards.Aside t = shards.aside(home);
        if (t == null) return entries;
        String index = quote(lookup.indexTable());
        var left = new ArrayList<Entry>();
        try (t) {
            for (Entry e : entries) {
                if (t.update("INSERT IGNORE INTO " + index + " (" + lookup.valueList() + ", p) VALUES " + placeholders(lookup), entry(e)) > 0
                        || !lookup.unique()) {
                    continue;
                }
                try (RowSource rows = t.query("SELECT p FROM " + index + " WHERE " + lookup.entriesMatch(1) + " LOCK IN SHARE MODE", KeyParams.toValues(e.key()))) {
                    Row row = rows.next();
                    if (row == null || ((Number) ValueCodec.decode(row.getValues(0))).intValue() != e.partition()) left.add(e);
                }
            }
        } catch (SQLException e) {
            if (!lockConflict(e)) throw e;
            return entries; // the statement that waited was undone (its lock wait, or a shard's deadlock victim)
        }
        return left;
    }

    /** A lock wait timeout (1205) or a shard's deadlock (1213), perhaps wrapped by the router's location of it. */
    private static boolean lockConflict(SQLException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SQLException s && (s.getErrorCode() == 1205 || s.getErrorCode() == 1213)) return true;
        }
        return false;
    }

    private static void claim(Shards shards, TableDef table, SecondaryLookup lookup, int home, Entry e) throws SQLException {
        String index = quote(lookup.indexTable());
        List<Value> entry = entry(e);
        List<Value> value = KeyParams.toValues(e.key());
        String insert = "INSERT IGNORE INTO " + index + " (" + lookup.valueList() + ", p) VALUES " + placeholders(lookup);
        for (int attempt = 0; attempt < 3; attempt++) {
            if (shards.update(List.of(new ShardQuery(home, insert, entry)))[0] > 0) return;
            Integer named = null;
            try (RowSource rows = shards.query(List.of(new ShardQuery(home, "SELECT p FROM " + index + " WHERE " + lookup.entriesMatch(1) + " FOR UPDATE", value))).getFirst()) {
                Row row = rows.next();
                if (row != null) named = ((Number) ValueCodec.decode(row.getValues(0))).intValue();
            }
            if (named == null) continue; // taken over and gone meanwhile? not possible (entries are not deleted), but ask again
            if (named == e.partition()) return;
            boolean live;
            try (RowSource rows = shards.query(List.of(new ShardQuery(named, "SELECT 1 FROM " + quote(table.name()) + " WHERE " + lookup.rowsMatch()
                    + " LIMIT 1 LOCK IN SHARE MODE", value))).getFirst()) {
                live = rows.next() != null;
            }
            if (!live) {
                var params = new ArrayList<Value>();
                params.add(partitionValue(e.partition()));
                params.addAll(value);
                shards.update(List.of(new ShardQuery(home, "UPDATE " + index + " SET p = ? WHERE " + lookup.entriesMatch(1), params)));
                return;
            }
            try {
                shards.update(List.of(new ShardQuery(home, insert.replaceFirst("^INSERT IGNORE", "INSERT"), entry)));
            } catch (SQLException duplicate) {
                throw new SQLException("Duplicate entry '" + e.key() + "' for key '" + lookup.name() + "' (secondary lookup on " + table.name() + "."
                        + lookup.columnList() + ": a row with it is on partition " + named + ")", "23000", 1062, duplicate);
            }
            throw new SQLException("secondary lookup " + lookup.name() + ": the entry of '" + e.key() + "' was not there when re-inserted", "HY000", 0);
        }
        throw new SQLException("secondary lookup " + lookup.name() + ": the entry of '" + e.key() + "' kept changing; statement rolled back, retry it", "40001", 1213);
    }

    /** The partitions whose entries name {@code keys} (normalized, non-null): the only ones that can hold rows with them. */
    public static Set<Integer> partitions(Shards shards, TableDef table, SecondaryLookup lookup, Object[] keys) throws SQLException {
        var byHome = new TreeMap<Integer, List<Object>>();
        for (Object k : keys) byHome.computeIfAbsent(lookup.home(table, k), h -> new ArrayList<>()).add(k);
        var queries = new ArrayList<ShardQuery>();
        for (var e : byHome.entrySet()) {
            var params = new ArrayList<Value>();
            for (Object k : e.getValue()) params.addAll(KeyParams.toValues(k));
            queries.add(new ShardQuery(e.getKey(), "SELECT DISTINCT p FROM " + quote(lookup.indexTable()) + " WHERE " + lookup.entriesMatch(e.getValue().size()), params));
        }
        var out = new java.util.TreeSet<Integer>();
        // the committed entries and the transaction's own: a transaction's snapshot of a value's home may be older than its
        // snapshots of the partitions the entries name (or than the rows a write changes), and would miss newer entries
        for (RowSource answer : shards.committedAndOwn(queries)) {
            try (RowSource rows = answer) {
                Row row;
                while ((row = rows.next()) != null) out.add(((Number) ValueCodec.decode(row.getValues(0))).intValue());
            }
        }
        return out;
    }

    /** The entries' table at each partition: each value column typed exactly as its column (its collation too), so the backend compares as the table does. */
    public static String createSql(SecondaryLookup lookup, List<String> columnTypes) {
        var columns = new ArrayList<String>();
        for (int i = 0; i < columnTypes.size(); i++) columns.add(lookup.valueColumns().get(i) + " " + columnTypes.get(i) + " NOT NULL");
        return "CREATE TABLE " + quote(lookup.indexTable()) + " (" + String.join(", ", columns) + ", p SMALLINT NOT NULL, PRIMARY KEY ("
                + lookup.valueList() + (lookup.unique() ? "" : ", p") + ")) ENGINE=InnoDB";
    }

    /** One entry's parameters: its value's parts, then its partition. */
    private static List<Value> entry(Entry e) {
        var out = new ArrayList<Value>(KeyParams.toValues(e.key()));
        out.add(partitionValue(e.partition()));
        return out;
    }

    /** {@code (?, ?)}: one entry's placeholders, its value's parts and its partition. */
    private static String placeholders(SecondaryLookup lookup) {
        return "(" + String.join(", ", Collections.nCopies(lookup.columns().size() + 1, "?")) + ")";
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    private static Value partitionValue(int p) {
        return Value.newBuilder().setIntValue(p).build();
    }

    /** Entries for rows {@code rows} of each partition: the value of {@code key(row)}, where it is not null. */
    public static List<Entry> entriesOf(Map<Integer, List<Integer>> rowsByPartition, java.util.function.IntFunction<Object> key) {
        var out = new ArrayList<Entry>();
        for (var e : rowsByPartition.entrySet()) {
            for (int row : e.getValue()) {
                Object k = key.apply(row);
                if (k != null) out.add(new Entry(k, e.getKey()));
            }
        }
        return out;
    }
}
