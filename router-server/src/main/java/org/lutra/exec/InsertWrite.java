package org.lutra.exec;

import org.lutra.placement.HomeRows;
import org.lutra.backend.Connections;
import org.lutra.placement.KeyParams;
import org.lutra.placement.PlacementRows;
import org.lutra.placement.SecondaryEntries;
import org.lutra.placement.Shards;
import org.lutra.backend.Backends;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.lookup.LookupTable;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * INSERT ... VALUES (and REPLACE) of rows with placement: AUTO_INCREMENT ids filled in first ({@link AutoIncrement}), since
 * rows route by them; each row sent where its routing key lives — where the lookup table points, or, for a key it does not
 * hold, where new keys go ({@code DEFAULT NEW}); a SAME AS row where its owner row is. The placement trigger on every
 * partition refuses a row whose key lives elsewhere ({@link Shards#MISPLACED}): those rows are sent again where the keys'
 * home rows say they live, a few times at most (keys moving meanwhile), and a key that is replicated is written on every
 * copy ({@link ReplicaWrite}). A secondary lookup's entries are written for the partitions the rows landed on; foreign
 * keys the router enforces are checked first ({@link ForeignKeyChecks}). REPLICATED tables get the rows on every copy.
 */
final class InsertWrite {
    private InsertWrite() {}

    /** Runs {@code plan} with the client's parameters, those of {@code ctx}. */
    static Result.Count run(Plan.Insert plan, Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        Shards shards = ctx.shards();
        var ids = ctx.services().autoIncrement().fill(plan, ctx.params()); // AUTO_INCREMENT ids into the parameters: rows route by them
        List<Value> params = ids.params();
        TableDef table = plan.table();
        var partitioning = table.partitioning();
        int rowCount = plan.rows().itemCount();
        var secondaryKeys = new ArrayList<Object[]>();
        for (var sv : plan.secondaries()) {
            var raw = new Object[rowCount][];
            for (int row = 0; row < rowCount; row++) {
                var refs = sv.perRow().get(row);
                var values = new Object[refs.size()];
                for (int c = 0; c < values.length; c++) values[c] = refs.get(c).resolve(params, ValueCodec::decode);
                raw[row] = SecondaryKeys.written(table, sv.lookup(), values);
            }
            Object[] perRow = sv.lookup().keys(table, raw); // the values a collation's cache lacks weighed in one round trip per column
            for (int row = 0; row < rowCount; row++) perRow[row] = SecondaryKeys.of(table, sv.lookup(), raw[row], perRow[row]);
            secondaryKeys.add(perRow);
        }
        boolean[] skip = new boolean[rowCount];
        if (plan.references() != null) {
            shards.atomic(); // the parent rows read in share mode, and the rows that reference them, commit together
            skip = ForeignKeyChecks.insert(ctx.services().executor(), plan, params, ctx.connections());
            // the router checked what the shards would check on their own partition only
            ctx = ctx.over(ForeignKeyChecks.checksOff(ctx.connections()));
            shards = ctx.shards();
        }
        if (partitioning instanceof Partitioning.Replicated r) {
            int[] all = kept(skip);
            if (all.length == 0) return ids.result(0, 0);
            var queries = new ArrayList<ShardQuery>();
            for (int p : r.partitions()) queries.add(new ShardQuery(p, plan.rows().render(all), plan.rows().params(params, all)));
            var replicas = ctx.services().replicas();
            queries = new ArrayList<>(replicas.onEveryCopy(table, plan.rows().render(all), queries));
            Writes.record(stats, queries);
            return ids.result(replicas.copiesAlike(table, queries, ctx.connections()), queries.size());
        }
        // the rows in a transaction: their entries, committed aside or in it (SecondaryEntries.writeForWrittenRows), name
        // their partitions while the rows are written and not yet committed
        if (!secondaryKeys.isEmpty()) shards.atomic();
        Map<Integer, List<Integer>> byPartition = new LinkedHashMap<>();
        var raws = new Object[rowCount]; // each row's value of the routing column as the column will hold it
        for (int row = 0; row < rowCount; row++) raws[row] = inserted(table, partitioning.column(), plan.keyPerRow().get(row).resolve(params, ValueCodec::decode));
        Object[] keyed = table.keys(raws); // the values a collation's cache lacks weighed in one round trip
        var keys = new Object[rowCount];
        for (int row = 0; row < rowCount; row++) {
            if (skip[row]) continue;
            Object raw = raws[row];
            if (raw == null) {
                // MySQL's own partitioning puts NULL in the first partition; reads of IS NULL go everywhere
                byPartition.computeIfAbsent(partitioning.partitions()[0], p -> new ArrayList<>()).add(row);
                continue;
            }
            keys[row] = keyed[row];
            if (keys[row] == null) throw unroutable(table, partitioning.column(), raw, raws[row]);
            byPartition.computeIfAbsent(placeRow(partitioning, table, keys[row], ctx), p -> new ArrayList<>()).add(row);
        }
        shards.trace().write(table.name(), keys);
        long count = 0;
        var touched = new java.util.HashSet<Integer>();
        var landed = new LinkedHashMap<Integer, List<Integer>>(); // partition → the rows inserted there
        for (int attempt = 1; ; attempt++) {
            var queries = new ArrayList<ShardQuery>();
            var rowsOf = new ArrayList<List<Integer>>();
            for (var e : byPartition.entrySet()) {
                int[] rows = e.getValue().stream().mapToInt(Integer::intValue).toArray();
                queries.add(new ShardQuery(e.getKey(), plan.rows().render(rows), plan.rows().params(params, rows)));
                rowsOf.add(e.getValue());
            }
            Writes.record(stats, queries);
            queries.forEach(q -> touched.add(q.partition()));
            if (queries.size() > 1 || attempt > 1) shards.atomic();
            long[] counts = shards.insert(queries);
            var misplaced = new ArrayList<Integer>();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == Shards.MISPLACED) {
                    misplaced.addAll(rowsOf.get(i));
                } else {
                    count += counts[i];
                    learnInserted(table, keys, queries.get(i).partition(), rowsOf.get(i));
                    landed.computeIfAbsent(queries.get(i).partition(), p -> new ArrayList<>()).addAll(rowsOf.get(i));
                }
            }
            if (misplaced.isEmpty()) break;
            // A key lives elsewhere than this router's cache (or the DEFAULT NEW rule) said: ask the
            // keys' homes where they are, and send those rows there. A key that moves again meanwhile
            // is refused again; a few tries, then the statement fails (nothing of it stays).
            if (attempt == MAX_PLACEMENT_TRIES) {
                throw new SQLException("the placement of " + table.name() + " rows changed " + attempt + " times while inserting them"
                        + " (rows being moved): statement rolled back, retry it", "40001", 1213);
            }
            var lookup = (Partitioning.LookedUp) partitioning;
            var replicated = resolve(lookup, table, misplaced.stream().map(r -> keys[r]).distinct().toList(), ctx);
            if (!replicated.isEmpty()) {
                var copied = misplaced.stream().filter(r -> replicated.contains(keys[r])).toList();
                misplaced.removeAll(copied);
                count += insertOnEveryReplica(plan, params, lookup, keys, copied, touched, ctx);
            }
            byPartition = new LinkedHashMap<>();
            for (int row : misplaced) {
                byPartition.computeIfAbsent(placeRow(partitioning, table, keys[row], ctx), p -> new ArrayList<>()).add(row);
            }
            if (byPartition.isEmpty()) break;
        }
        for (int i = 0; i < secondaryKeys.size(); i++) {
            Object[] values = secondaryKeys.get(i);
            var lookup = plan.secondaries().get(i).lookup();
            var entries = SecondaryEntries.entriesOf(landed, row -> values[row]);
            SecondaryEntries.writeForWrittenRows(shards, table, lookup, entries);
            // where a UNIQUE value's row was written: a guess for reads by it (checked by each read's rows: UniqueValueGuess)
            for (var e : entries) stats.secondaryGuesses().learn(lookup, e.key(), e.partition());
        }
        return ids.result(count, touched.size());
    }

    /**
     * The value {@code column} holds once {@code raw} is written into it ({@link org.lutra.catalog.StoredValue}: {@code 12.6}
     * into an INT column is 13, {@code 'abcdef'} into a VARCHAR(4) {@code 'abcd'}): the row is routed by the value it has; a
     * value strict mode refuses routes by the value it would have, and its partition raises MariaDB's error. A value whose
     * stored form the router does not model is taken as written.
     */
    static Object inserted(TableDef table, String column, Object raw) {
        var stored = raw == null ? null : table.stored(column, raw);
        return stored == null ? raw : stored.value();
    }

    /** Why {@code value} ({@code raw} as the column holds it) cannot route: no routing key (BIGINT UNSIGNED above 2^63 - 1), or not one the router can tell. */
    private static SQLException unroutable(TableDef table, String column, Object raw, Object value) {
        if (value instanceof java.math.BigInteger big) {
            return Refusal.of("Lutra does not support routing " + table.name() + "." + column + " (" + table.column(column).typeName() + ") on "
                    + big + ": BIGINT UNSIGNED routing keys go up to 9223372036854775807");
        }
        return new SQLException("cannot route " + table.name() + "." + column + " = " + raw + ": not a valid " + table.keyType().name().toLowerCase()
                + " key", "22007", 1292);
    }

    /**
     * Rows whose key is replicated: inserted on every partition of the key's set, with the home rows locked in
     * the statement's transaction ({@link ReplicaWrites}); counted once. Returns the rows inserted.
     */
    private static long insertOnEveryReplica(Plan.Insert plan, List<Value> params, Partitioning.LookedUp lookup, Object[] keys, List<Integer> rows,
                                             java.util.Set<Integer> touched, Context ctx) throws SQLException {
        Shards shards = ctx.shards();
        var replicas = ctx.services().replicas();
        if (!plan.secondaries().isEmpty()) {
            throw new SQLException("Lutra does not support secondary lookups on " + plan.table().name() + " with replicated keys", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
        }
        String text = plan.rows().render(rows.stream().mapToInt(Integer::intValue).toArray());
        SameOnEveryCopy.check(text, plan.table(), ctx.services().backends().mariaDb());
        shards.atomic();
        var rowKeys = new Object[rows.size()];
        for (int i = 0; i < rowKeys.length; i++) rowKeys[i] = keys[rows.get(i)];
        HomeRows home = HomeRows.lock(HomeRows.Locks.untilTransactionEnds(shards), shards, plan.table(), lookup, rowKeys);
        var sets = ReplicaWrite.bySet(home, rowKeys, (p, indexes) -> insertOf(plan, params, p, rows, indexes));
        for (var set : sets) {
            Writes.record(ctx.stats(), set.queries());
            set.queries().forEach(q -> touched.add(q.partition()));
        }
        return Writes.sum(replicas.runOnEveryCopy(plan.table(), text, sets, ctx.connections()));
    }

    private static ShardQuery insertOf(Plan.Insert plan, List<Value> params, int partition, List<Integer> rows, List<Integer> indexes) {
        int[] chosen = indexes.stream().mapToInt(rows::get).toArray();
        return new ShardQuery(partition, plan.rows().render(chosen), plan.rows().params(params, chosen));
    }

    /**
     * Finds the partition that holds {@code key}'s owner row: where the lookup table points if the
     * row is there, else where the key's home row says (learned), else where a new key would go.
     */
    private static int probe(Partitioning.LookedUp lookup, Object key, Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        Shards shards = ctx.shards();
        int guess = stats.locate(lookup, key);
        String sql = "SELECT 1 FROM `" + lookup.owner() + "` WHERE `" + lookup.ownerColumn() + "` = ? LIMIT 1";
        List<Value> params = List.of(KeyParams.toValue(key));
        if (shards.exists(List.of(new ShardQuery(guess, sql, params)))[0]) {
            return guess;
        }
        // not where the cache (or DEFAULT NEW) points: the key's home row says where it lives (no broadcast); the
        // placement trigger checks the insert there again
        stats.fallback(lookup, new int[0]);
        resolve(lookup, ctx.services().backends().catalog().table(lookup.owner()), List.of(key), ctx);
        int learned = lookup.table().get(key);
        return learned == LookupTable.MISSING ? lookup.placeNew(key) : learned;
    }

    /** Tries of an insert whose rows the placement trigger keeps redirecting (keys moving meanwhile). */
    private static final int MAX_PLACEMENT_TRIES = 4;

    private static void learnInserted(TableDef table, Object[] keys, int partition, List<Integer> rows) {
        if (table.partitioning() instanceof Partitioning.LookedUp lookup && lookup.owner().equalsIgnoreCase(table.name())) {
            for (int row : rows) {
                if (keys[row] != null) lookup.table().put(keys[row], partition);
            }
        }
    }

    /**
     * Sets the cache entries of {@code keys} to where the backends say they live: a key's home row
     * names its partitions when it lives away from home ({@link PlacementRows}); no row, at home.
     */
    private static java.util.Set<Object> resolve(Partitioning.LookedUp lookup, TableDef table, List<Object> keys, Context ctx) throws SQLException {
        Shards shards = ctx.shards();
        var byHome = new LinkedHashMap<Integer, List<Object>>();
        for (Object k : keys) byHome.computeIfAbsent(lookup.placeNew(k), h -> new ArrayList<>()).add(k);
        var queries = new ArrayList<ShardQuery>();
        for (var e : byHome.entrySet()) {
            queries.add(new ShardQuery(e.getKey(), PlacementRows.resolveSql(lookup.owner(), e.getValue().size()),
                    e.getValue().stream().map(KeyParams::toValue).toList()));
        }
        var away = new java.util.HashMap<Object, Integer>();
        var replicated = new java.util.HashSet<Object>();
        for (RowSource answer : shards.query(queries)) {
            try (RowSource rows = answer) {
                org.lutra.protocol.Row row;
                while ((row = rows.next()) != null) {
                    Object key = table.key(ValueCodec.decode(row.getValues(0)));
                    String partitions = row.getValues(1).getStringValue();
                    away.put(key, shards.partitionNamed(partitions.split(",")[0]));
                    if (PlacementRows.replicated(partitions)) replicated.add(key);
                }
            }
        }
        for (Object k : keys) {
            lookup.table().put(k, away.getOrDefault(k, lookup.placeNew(k)));
            ctx.stats().learn(lookup);
        }
        return replicated;
    }

    private static int placeRow(Partitioning partitioning, TableDef table, Object key, Context ctx) throws SQLException {
        Stats stats = ctx.stats();
        if (partitioning instanceof Partitioning.LookedUp lookup) {
            int cached = lookup.table().get(key);
            if (cached != LookupTable.MISSING) {
                stats.hit(lookup, key);
                return cached;
            }
            // A new owner key goes where every router puts new keys; a SAME AS row goes to its owner (the probe counts the miss).
            if (!lookup.owner().equalsIgnoreCase(table.name())) return probe(lookup, key, ctx);
            stats.missed(lookup, key);
            return lookup.placeNew(key);
        }
        int p = partitioning.placeNew(key);
        if (p == Partitioning.NONE) {
            throw new SQLException("Table has no partition for value " + key + " (" + table.name() + "." + partitioning.column() + ")", "HY000", 1526);
        }
        return p;
    }

    /** The rows not left out. */
    private static int[] kept(boolean[] skip) {
        int n = 0;
        for (boolean b : skip) if (!b) n++;
        int[] out = new int[n];
        for (int i = 0, k = 0; i < skip.length; i++) if (!skip[i]) out[k++] = i;
        return out;
    }
}
