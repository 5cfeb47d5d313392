package org.lutra.exec;

import org.lutra.placement.HomeRows;
import org.lutra.placement.LookupValidation;
import org.lutra.placement.MoveFence;
import org.lutra.placement.ReplicaLocks;
import org.lutra.placement.SecondaryEntries;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.sql.KeyMatch;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a statement on one table goes, decided per execution from the parameter values: the
 * partitions its routing keys live on (and which IN items each gets), every partition when the
 * WHERE clause does not pin the routing column, one replica for a replicated table.
 *
 * <p>Hash and range placement is exact. A lookup table is a cache, so its answer is a guess;
 * {@link #exact} replaces the guess by what the keys' home rows on the backends say, under a lock
 * ({@link HomeRows}) — the durable form of the paper's validation (Fig. 2). SAME AS rows whose
 * owner row is gone are found too: the home row names where the group lives, not the owner row.
 */
public final class Target {
    /**
     * The partitions a statement runs on: partition → the indexes of its keys (empty: the whole statement).
     *
     * @param copies some of the keys are replicated (their home rows, locked, name several partitions): a statement sent whole
     *               to a partition (a range's) must leave out the copies kept there for another primary ({@link org.lutra.placement.ReplicaScans})
     */
    public record Resolution(Map<Integer, List<Integer>> byPartition, Object[] keys, boolean copies) {
        public Resolution(Map<Integer, List<Integer>> byPartition, Object[] keys) {
            this(byPartition, keys, false);
        }

        public int size() {
            return byPartition.size();
        }

        public int[] partitions() {
            return byPartition.keySet().stream().mapToInt(Integer::intValue).toArray();
        }
    }

    private final TableDef table;
    private final KeyMatch keys;
    private final org.lutra.exec.Plan.SecondaryMatch secondary;
    private final Map<String, String> groupColumns;
    private final ReplicaLocks replicaLocks;

    public Target(TableDef table, KeyMatch keys) {
        this(table, keys, null, Map.of());
    }

    /**
     * @param secondary a secondary lookup's column the WHERE clause pins, used when the routing column's keys do not route the statement
     * @param groupColumns the routing column of every table of {@code table}'s lookup group, by lower-case name (empty for other
     *                     placements): where a scan leaves out the copies of replicated keys ({@link org.lutra.placement.ReplicaScans})
     */
    public Target(TableDef table, KeyMatch keys, org.lutra.exec.Plan.SecondaryMatch secondary, Map<String, String> groupColumns) {
        this(table, table.partitioning() instanceof Partitioning.Replicated ? null : keys, secondary, groupColumns, ReplicaLocks.NONE);
    }

    private Target(TableDef table, KeyMatch keys, org.lutra.exec.Plan.SecondaryMatch secondary, Map<String, String> groupColumns,
                   ReplicaLocks replicaLocks) {
        this.table = table;
        this.groupColumns = groupColumns;
        this.keys = keys;
        this.secondary = keys instanceof KeyMatch.Range || table.partitioning() instanceof Partitioning.Replicated ? null : secondary;
        this.replicaLocks = replicaLocks;
    }

    /** This target for a statement that reads the REPLICATED tables {@code locks} names: a locking read of them is checked ({@link Route}). */
    public Target withReplicaLocks(ReplicaLocks locks) {
        return new Target(table, keys, secondary, groupColumns, locks);
    }

    ReplicaLocks replicaLocks() {
        return replicaLocks;
    }

    public TableDef table() {
        return table;
    }

    Map<String, String> groupColumns() {
        return groupColumns.isEmpty() ? Map.of(table.name().toLowerCase(java.util.Locale.ROOT), table.partitioning().column()) : groupColumns;
    }

    public KeyMatch keys() {
        return keys;
    }

    /** Whether this target's partitions may be a lookup table's guess that needs checking. */
    public boolean guesses() {
        return keys != null && table.partitioning().needsValidation();
    }

    /**
     * The lookup group whose rows {@code r} reads on several partitions without naming their keys
     * (a scan, or the partitions a secondary lookup names), which must see each moving row once
     * ({@link MoveFence}); null when the keys are named (their home rows pin them, {@link HomeRows})
     * or one partition is read.
     */
    String scannedGroup(Resolution r) {
        if (r == null || r.keys() != null || r.size() < 2) return null;
        return table.partitioning() instanceof Partitioning.LookedUp lookup ? lookup.owner() : null;
    }

    /**
     * The lookup group of a read this target routes through a secondary lookup's entries (the routing
     * column's keys are not named), which must hold the group's move fence while it reads them; else null.
     */
    String secondaryGroup(List<Value> params) {
        if (secondary == null || keyValues(params) != null) return null;
        return table.partitioning() instanceof Partitioning.LookedUp lookup ? lookup.owner() : null;
    }

    /**
     * The one value of a {@code UNIQUE} secondary lookup by which this execution is routed (the routing column's keys
     * not named), normalized as its entries hold it; null otherwise (no such lookup, several values, NULL).
     */
    Object uniqueSecondaryValue(Context ctx) {
        if (secondary == null || keyValues(ctx.params()) != null) return null;
        return uniqueSecondaryValue(ctx, table, secondary);
    }

    /** The one value of {@code secondary}, a {@code UNIQUE} lookup's, in this execution, normalized; null otherwise. */
    static Object uniqueSecondaryValue(Context ctx, TableDef table, org.lutra.exec.Plan.SecondaryMatch secondary) {
        if (!secondary.lookup().unique()) return null;
        Object[] values = secondaryValues(ctx, table, secondary);
        return values.length == 1 ? values[0] : null;
    }

    /** The secondary lookup the WHERE clause pins, or null. */
    org.lutra.catalog.SecondaryLookup secondaryLookup() {
        return secondary == null ? null : secondary.lookup();
    }

    /** Integer ranges up to this many keys on a hash or lookup column are routed as the list of their keys. */
    static final int MAX_RANGE_KEYS = 256;
    private static final Object[] NO_KEYS = new Object[0];

    /**
     * The routing keys of this execution, normalized; null when the statement goes everywhere;
     * empty when no row can match (a range whose low end is above its high end).
     */
    public Object[] keyValues(List<Value> params) {
        if (keys == null) return null;
        if (keys instanceof KeyMatch.Range range) return rangeKeys(range, params);
        var refs = keys instanceof KeyMatch.Equals eq ? List.of(eq.value()) : ((KeyMatch.In) keys).values();
        var raw = new Object[refs.size()];
        for (int i = 0; i < raw.length; i++) raw[i] = refs.get(i).resolve(params, ValueCodec::decode);
        Object[] out = table.keys(raw); // one backend round trip at most, for values a collation's cache lacks
        for (Object k : out) if (k == null) return null; // NULL matches no row; a value that is not a clean key may match several
        return out;
    }

    private Object[] rangeKeys(KeyMatch.Range range, List<Value> params) {
        if (range.low() == null || range.high() == null || table.keyType() != org.lutra.catalog.KeyType.LONG) return null;
        Object low = KeyValues.normalize(range.low().resolve(params, ValueCodec::decode), table.keyType());
        Object high = KeyValues.normalize(range.high().resolve(params, ValueCodec::decode), table.keyType());
        if (low == null || high == null) return null;
        long from = (Long) low + (range.lowInclusive() ? 0 : 1);
        long to = (Long) high - (range.highInclusive() ? 0 : 1);
        if (to < from) return NO_KEYS;
        if (to - from >= MAX_RANGE_KEYS) return null;
        var out = new Object[(int) (to - from + 1)];
        for (int i = 0; i < out.length; i++) out[i] = from + i;
        return out;
    }

    /** Range partitioning and a range predicate: the partitions whose key interval meets the predicate's. */
    private Resolution rangePartitions(Partitioning.Ranged ranged, KeyMatch.Range range, List<Value> params) {
        Object low = range.low() == null ? null : KeyValues.normalize(range.low().resolve(params, ValueCodec::decode), table.keyType());
        Object high = range.high() == null ? null : KeyValues.normalize(range.high().resolve(params, ValueCodec::decode), table.keyType());
        if (range.low() != null && low == null || range.high() != null && high == null) return everywhere();
        var out = new LinkedHashMap<Integer, List<Integer>>();
        Object from = null; // partition i holds [upperBounds[i-1], upperBounds[i])
        for (int i = 0; i < ranged.partitions().length; i++) {
            Object to = ranged.upperBounds().get(i);
            boolean belowHigh = high == null || from == null || (range.highInclusive() ? KeyValues.compare(high, from) >= 0 : KeyValues.compare(high, from) > 0);
            boolean aboveLow = low == null || to == null || KeyValues.compare(low, to) < 0;
            if (belowHigh && aboveLow) out.put(ranged.partitions()[i], List.of());
            from = to;
            if (to == null) break;
        }
        return out.isEmpty() ? nowhere(NO_KEYS) : new Resolution(out, null);
    }

    /** Where the keys are according to the placement rule or the lookup cache (unchecked for lookups). */
    public Resolution guess(Context ctx) {
        var partitioning = table.partitioning();
        if (partitioning instanceof Partitioning.Replicated r) {
            return new Resolution(Map.of(r.partitions()[0], List.of()), null);
        }
        if (partitioning instanceof Partitioning.Ranged ranged && keys instanceof KeyMatch.Range range) {
            return rangePartitions(ranged, range, ctx.params());
        }
        Object[] values = keyValues(ctx.params());
        if (values == null) {
            ctx.stats().broadcast(partitioning);
            return everywhere();
        }
        ctx.trace().read(table.name(), values);
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int i = 0; i < values.length; i++) {
            int p = ctx.stats().locate(partitioning, values[i]);
            if (p != Partitioning.NONE) out.computeIfAbsent(p, k -> new ArrayList<>()).add(i);
        }
        return out.isEmpty() ? nowhere(values) : new Resolution(out, values);
    }

    /**
     * Where the keys really are: {@link #guess} for exact placements; for lookups, where the keys'
     * home rows say, read under a lock the statement holds until its rows are read ({@link HomeRows}),
     * so that no move of the keys can take their rows away before the statement has read them.
     */
    public Resolution exact(Context ctx) throws SQLException {
        return exact(ctx, null);
    }

    /** As {@link #exact(Context)}, from {@code guessed} ({@link #guess} of this execution) when the caller made it already, else null. */
    Resolution exact(Context ctx, Resolution guessed) throws SQLException {
        if (secondary != null && keyValues(ctx.params()) == null) {
            // the entries, then the rows they point at: the group's fence, held shared from before the entries until the
            // rows' snapshots exist (Route, FencedScan), keeps every move's commit (entries and rows move together) out
            // of that window, so no moved row is missed or read twice
            String group = secondaryGroup(ctx.params());
            // inside a transaction the same, with the latest committed entries (and the transaction's own) read under the
            // fence (SecondaryEntries.partitions), and the partitions they name read as a scan of the group inside a
            // transaction reads them (TransactionScan, with this fence): each of those snapshots checked to have every move
            // batch of the group committed there (40001 if not), or started under the fence. The entries name every
            // partition that holds rows with the values now (UNIQUE: with the partitions of older snapshots, olderSnapshots),
            // and no batch commits until the snapshots exist, so each moved row is in exactly one of them. READ UNCOMMITTED
            // would see a moving batch's rows before its entries commit: there the read goes to every partition, as a scan
            // of the group (refused over several partitions)
            if (group != null && ctx.shards() != null && ctx.shards().transactional()
                    && ctx.shards().isolation() == java.sql.Connection.TRANSACTION_READ_UNCOMMITTED) return everywhere();
            Object[] values = secondaryValues(ctx, table, secondary); // weighed once (a collation may ask a backend)
            if (group != null && ctx.locks() != null) ctx.locks().holdFence(group, fencePartition(table, secondary, values));
            Resolution bySecondary = viaSecondary(ctx, table, secondary, values, secondary.lookup().unique() ? olderSnapshots(ctx, table) : Set.of());
            if (bySecondary != null) return bySecondary;
        }
        Resolution guess = guessed != null ? guessed : guess(ctx);
        if (!guesses() || guess.keys() == null || guess.keys().length == 0) return guess;
        Object[] values = guess.keys();
        // the validation protocol's second half alone: the locks are the statement's, held until its rows are read
        return new LookupValidation(ctx.shards(), ctx.stats(), table, values, guess.byPartition(), LookupValidation.Kind.READ)
                .whereHomeRowsSay(ctx.locks(), (located, home) -> new Resolution(located, values, home.anyReplicated(values)));
    }

    /**
     * The partitions a secondary lookup's entries name for the statement's values ({@link SecondaryEntries}): a
     * superset of those holding matching rows. None: the statement runs on one partition, where it matches
     * nothing (the client gets MySQL's columns and empty aggregates). Null when a value cannot be looked up
     * exactly (NULL, a value the column would compare otherwise): the statement goes everywhere.
     */
    static Resolution viaSecondary(Context ctx, TableDef table, org.lutra.exec.Plan.SecondaryMatch secondary) throws SQLException {
        return viaSecondary(ctx, table, secondary, secondaryValues(ctx, table, secondary), Set.of());
    }

    /**
     * The partitions of the table where the statement's REPEATABLE READ transaction began before this statement, whose
     * snapshots may be older than the latest entries; empty elsewhere. A UNIQUE value's entry is keyed by the value alone
     * and taken over when stale (SecondaryEntries#claim): after another transaction deleted the row of v on p and gave v to
     * a new row on q, the entry names q alone, yet the transaction's older snapshot of p still shows the deleted row (one
     * MariaDB answers it). So a read by a UNIQUE value inside such a transaction also reads these partitions: a row with v
     * that a snapshot older than this statement shows is on one of them; on every other partition the snapshot starts
     * under the fence after the entries are read, and there the latest entries name every committed row with v (the
     * entries are a superset). Non-UNIQUE entries are only ever added, never rewritten: they need no more. Writes by the
     * column read the latest committed rows, which the latest entries name: they use {@link #viaSecondary} alone (a locking
     * read, which reads them too, reads these partitions as well: more than it needs, never fewer).
     */
    private static Set<Integer> olderSnapshots(Context ctx, TableDef table) {
        var shards = ctx.shards();
        if (shards == null || !shards.transactional() || shards.isolation() != java.sql.Connection.TRANSACTION_REPEATABLE_READ) return Set.of();
        var out = new java.util.TreeSet<Integer>();
        for (int p : table.partitioning().partitions()) if (shards.begun(p)) out.add(p);
        return out;
    }

    /** {@link #viaSecondary(Context, TableDef, org.lutra.exec.Plan.SecondaryMatch)} for the statement's values, normalized already. */
    private static Resolution viaSecondary(Context ctx, TableDef table, org.lutra.exec.Plan.SecondaryMatch secondary, Object[] values,
                                           Set<Integer> olderSnapshots) throws SQLException {
        for (Object v : values) if (v == null) return null;
        var partitions = SecondaryEntries.partitions(ctx.shards(), table, secondary.lookup(), values);
        org.lutra.placement.FailPoints.reach(org.lutra.placement.FailPoints.SECONDARY_ENTRIES_READ);
        ctx.stats().secondary(partitions.size());
        // a UNIQUE value's one entry: where its row is, as of the entries read; a guess for the next read by it (SecondaryGuesses)
        if (values.length == 1 && partitions.size() == 1) ctx.stats().secondaryGuesses().learn(secondary.lookup(), values[0], partitions.iterator().next());
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int p : table.partitioning().partitions()) {
            if (partitions.contains(p) || olderSnapshots.contains(p)) out.put(p, List.of());
        }
        if (out.isEmpty()) out.put(table.partitioning().partitions()[0], List.of());
        return new Resolution(out, null);
    }

    /** The statement's values of the secondary lookup's column, normalized as its entries hold them (null: not looked up exactly). */
    private static Object[] secondaryValues(Context ctx, TableDef table, org.lutra.exec.Plan.SecondaryMatch secondary) {
        Object[][] raw;
        if (secondary.keys().size() == 1) {
            KeyMatch keys = secondary.keys().getFirst();
            var refs = keys instanceof KeyMatch.Equals eq ? List.of(eq.value()) : ((KeyMatch.In) keys).values();
            raw = new Object[refs.size()][];
            for (int i = 0; i < raw.length; i++) raw[i] = new Object[] {refs.get(i).resolve(ctx.params(), ValueCodec::decode)};
        } else {
            var tuple = new Object[secondary.keys().size()]; // several columns: each pinned to one value (Planner#secondaryMatch)
            for (int c = 0; c < tuple.length; c++) tuple[c] = ((KeyMatch.Equals) secondary.keys().get(c)).value().resolve(ctx.params(), ValueCodec::decode);
            raw = new Object[][] {tuple};
        }
        return secondary.lookup().keys(table, raw);
    }

    /**
     * Where a statement through a secondary lookup takes its group's fence ({@link MoveFence#readerPartition}): the home of
     * its first value's entries, which it reads there anyway, so that the fences spread over the partitions as the values
     * do; any of the table's partitions when the values are not looked up.
     */
    static int fencePartition(Context ctx, TableDef table, org.lutra.exec.Plan.SecondaryMatch secondary) {
        return fencePartition(table, secondary, secondary == null ? null : secondaryValues(ctx, table, secondary));
    }

    private static int fencePartition(TableDef table, org.lutra.exec.Plan.SecondaryMatch secondary, Object[] values) {
        if (secondary != null && values.length > 0 && values[0] != null) return secondary.lookup().home(table, values[0]);
        return MoveFence.readerPartition(table.partitioning().partitions());
    }

    private Resolution everywhere() {
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int p : table.partitioning().partitions()) out.put(p, List.of());
        return new Resolution(out, null);
    }

    /**
     * No partition can hold these keys (beyond every range): the statement still runs on one
     * partition, where it matches nothing, so that the client gets the result's columns (and an
     * aggregate's empty-set answer) from MySQL itself.
     */
    private Resolution nowhere(Object[] values) {
        var all = new ArrayList<Integer>();
        for (int i = 0; i < values.length; i++) all.add(i);
        return new Resolution(Map.of(table.partitioning().partitions()[0], all), values.length == 0 ? null : values);
    }

    /** The sub-query for each resolved partition: the whole statement, or its IN list cut to that partition's items. */
    public List<ShardQuery> cut(Resolution r, String sql, org.lutra.sql.SqlTemplate template, List<Value> params) {
        var out = new ArrayList<ShardQuery>(r.size());
        for (var e : r.byPartition().entrySet()) {
            if (template != null && keys instanceof KeyMatch.In && !e.getValue().isEmpty()) {
                int[] items = e.getValue().stream().mapToInt(Integer::intValue).toArray();
                out.add(new ShardQuery(e.getKey(), template.render(items), template.params(params, items)));
            } else {
                out.add(new ShardQuery(e.getKey(), sql, params));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        var p = table.partitioning();
        String how = p instanceof Partitioning.Replicated ? "one replica" : keys == null ? "all partitions"
 : (keys instanceof KeyMatch.In ? "IN" : keys instanceof KeyMatch.Range ? "range" : "=") + " on " + table.name() + "." + p.column()
                + (guesses() ? " (lookup, validated)" : "");
        if (secondary != null) {
            var columns = new ArrayList<String>();
            for (String c : secondary.lookup().columns()) columns.add(table.name() + "." + c);
            how += "; by secondary lookup " + secondary.lookup().name() + " (" + (secondary.keys().getFirst() instanceof KeyMatch.In ? "IN" : "=") + " on "
                    + String.join(", ", columns) + "): the partitions its entries name, read at each value's home partition";
        }
        return table.name() + ": " + how;
    }
}
