package org.lutra.exec;

import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;
import org.lutra.plan.KeyMatch;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Where a statement on one table goes, decided per execution from the parameter values: the
 * partitions its routing keys live on (and which IN items each gets), every partition when the
 * WHERE clause does not pin the routing column, one replica for a replicated table.
 *
 * <p>Hash and range placement is exact. A lookup table is a cache, so its answer is a guess;
 * {@link #exact} checks the guess the way the paper's validation protocol does (Fig. 2): ask the
 * guessed partition whether the key's owner row is there, ask the other partitions about the
 * keys that were not found, learn the answers. A key whose owner row exists nowhere is placed
 * where a new key would go (where its SAME AS rows were put).
 */
public final class Target {
    /** The partitions a statement runs on: partition → the indexes of its keys (empty: the whole statement). */
    public record Resolution(Map<Integer, List<Integer>> byPartition, Object[] keys) {
        public int size() {
            return byPartition.size();
        }

        public int[] partitions() {
            return byPartition.keySet().stream().mapToInt(Integer::intValue).toArray();
        }
    }

    private final TableDef table;
    private final KeyMatch keys;
    private final org.lutra.plan.Plan.SecondaryMatch secondary;

    public Target(TableDef table, KeyMatch keys) {
        this(table, keys, null);
    }

    /** @param secondary a secondary lookup's column the WHERE clause pins, used when the routing column's keys do not route the statement */
    public Target(TableDef table, KeyMatch keys, org.lutra.plan.Plan.SecondaryMatch secondary) {
        this.table = table;
        this.keys = table.partitioning() instanceof Partitioning.Replicated ? null : keys;
        this.secondary = this.keys instanceof KeyMatch.Range || table.partitioning() instanceof Partitioning.Replicated ? null : secondary;
    }

    public TableDef table() {
        return table;
    }

    public KeyMatch keys() {
        return keys;
    }

    /** Whether this target's partitions may be a lookup table's guess that needs checking. */
    public boolean guesses() {
        return keys != null && table.partitioning().needsValidation();
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
        var out = new Object[refs.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = table.key(refs.get(i).resolve(params, ValueCodec::decode));
            if (out[i] == null) return null; // NULL matches no row; a value that is not a clean key may match several
        }
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
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int i = 0; i < values.length; i++) {
            int p = ctx.stats().locate(partitioning, values[i]);
            if (p != Partitioning.NONE) out.computeIfAbsent(p, k -> new ArrayList<>()).add(i);
        }
        return out.isEmpty() ? nowhere(values) : new Resolution(out, values);
    }

    /** Where the keys really are: {@link #guess} for exact placements, checked against the shards for lookups. */
    public Resolution exact(Context ctx) throws SQLException {
        if (secondary != null && keyValues(ctx.params()) == null) {
            Resolution bySecondary = viaSecondary(ctx, table, secondary);
            if (bySecondary != null) return bySecondary;
        }
        Resolution guess = guess(ctx);
        if (!guesses() || guess.keys() == null || guess.keys().length == 0) return guess;
        var lookup = (Partitioning.LookedUp) table.partitioning();
        Object[] values = guess.keys();
        var located = new LinkedHashMap<Object, Integer>();
        var unknown = new LinkedHashSet<Object>(Arrays.asList(values));
        // round 1: the guessed partitions
        var firstRound = new LinkedHashMap<Integer, List<Object>>();
        for (var e : guess.byPartition().entrySet()) {
            for (int i : e.getValue()) firstRound.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(values[i]);
        }
        probe(ctx, lookup, firstRound, located, unknown, false);
        if (!unknown.isEmpty()) {
            // round 2: every other partition, for the keys not found where the cache pointed
            var secondRound = new LinkedHashMap<Integer, List<Object>>();
            for (int p : lookup.partitions()) {
                var rest = new ArrayList<Object>();
                for (Object key : unknown) {
                    if (!firstRound.getOrDefault(p, List.of()).contains(key)) rest.add(key);
                }
                if (!rest.isEmpty()) secondRound.put(p, rest);
            }
            ctx.stats().fallback(lookup, secondRound.keySet().stream().mapToInt(Integer::intValue).toArray());
            probe(ctx, lookup, secondRound, located, unknown, true);
        }
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int i = 0; i < values.length; i++) {
            Integer p = located.get(values[i]);
            out.computeIfAbsent(p != null ? p : lookup.placeNew(values[i]), k -> new ArrayList<>()).add(i);
        }
        return new Resolution(out, values);
    }

    /**
     * The partitions a secondary lookup's entries name for the statement's values ({@link SecondaryEntries}): a
     * superset of those holding matching rows. None: the statement runs on one partition, where it matches
     * nothing (the client gets MySQL's columns and empty aggregates). Null when a value cannot be looked up
     * exactly (NULL, a value the column would compare otherwise): the statement goes everywhere.
     */
    static Resolution viaSecondary(Context ctx, TableDef table, org.lutra.plan.Plan.SecondaryMatch secondary) throws SQLException {
        var refs = secondary.keys() instanceof KeyMatch.Equals eq ? List.of(eq.value()) : ((KeyMatch.In) secondary.keys()).values();
        var values = new Object[refs.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = secondary.lookup().key(table, refs.get(i).resolve(ctx.params(), ValueCodec::decode));
            if (values[i] == null) return null;
        }
        var partitions = SecondaryEntries.partitions(ctx.shards(), table, secondary.lookup(), values);
        ctx.stats().secondary(partitions.size());
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int p : table.partitioning().partitions()) {
            if (partitions.contains(p)) out.put(p, List.of());
        }
        if (out.isEmpty()) out.put(table.partitioning().partitions()[0], List.of());
        return new Resolution(out, null);
    }

    /**
     * The keys whose owner row (the SAME AS group's root, or the row itself) is on the partition
     * {@code byPartition} asked about them, by one query per partition. Rows placed by a lookup
     * live with their owner row, so such a key has no rows anywhere else: a read or write that
     * found fewer rows than keys there need not ask the other partitions about it.
     */
    public static java.util.Set<Object> ownersWhereAsked(Shards shards, TableDef table, Map<Integer, List<Integer>> byPartition, Object[] keys)
            throws SQLException {
        var lookup = (Partitioning.LookedUp) table.partitioning();
        var queries = new ArrayList<ShardQuery>();
        for (var e : byPartition.entrySet()) {
            if (e.getValue().isEmpty()) continue;
            var asked = e.getValue().stream().map(i -> keys[i]).toList();
            queries.add(ownerQuery(lookup, e.getKey(), asked));
        }
        var found = new java.util.HashSet<Object>();
        for (RowSource answer : shards.query(queries)) {
            try (RowSource rows = answer) {
                Row row;
                while ((row = rows.next()) != null) {
                    Object key = table.key(ValueCodec.decode(row.getValues(0)));
                    if (key != null) found.add(key);
                }
            }
        }
        return found;
    }

    private static ShardQuery ownerQuery(Partitioning.LookedUp lookup, int partition, List<Object> keys) {
        var params = keys.stream().map(KeyParams::toValue).toList();
        String marks = String.join(", ", java.util.Collections.nCopies(params.size(), "?"));
        return new ShardQuery(partition, "SELECT `" + lookup.ownerColumn() + "` FROM `" + lookup.owner() + "` WHERE `"
                + lookup.ownerColumn() + "` IN (" + marks + ")", params);
    }

    private void probe(Context ctx, Partitioning.LookedUp lookup, Map<Integer, List<Object>> ask, Map<Object, Integer> located,
                       java.util.Set<Object> unknown, boolean learn) throws SQLException {
        if (ask.isEmpty()) return;
        var queries = new ArrayList<ShardQuery>();
        for (var e : ask.entrySet()) queries.add(ownerQuery(lookup, e.getKey(), e.getValue()));
        List<RowSource> answers = ctx.shards().query(queries);
        for (int i = 0; i < answers.size(); i++) {
            int partition = queries.get(i).partition();
            try (RowSource rows = answers.get(i)) {
                Row row;
                while ((row = rows.next()) != null) {
                    Object key = table.key(ValueCodec.decode(row.getValues(0)));
                    if (key == null || located.containsKey(key)) continue;
                    located.put(key, partition);
                    unknown.remove(key);
                    if (learn) {
                        lookup.table().put(key, partition);
                        ctx.stats().learn(lookup);
                    }
                }
            }
        }
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
    public List<ShardQuery> cut(Resolution r, String sql, org.lutra.plan.SqlTemplate template, List<Value> params) {
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
            how += "; by secondary lookup " + secondary.lookup().name() + " (" + (secondary.keys() instanceof KeyMatch.In ? "IN" : "=") + " on "
                    + table.name() + "." + secondary.lookup().column() + "): the partitions its entries name, read at each value's home partition";
        }
        return table.name() + ": " + how;
    }
}
