package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the keys of a read inside a REPEATABLE READ transaction live, proven in the snapshots the read uses: on each
 * partition the router's cache points at, the keys' owner rows are read in the transaction (one indexed read of the
 * owner table); if every key's owner row is there, the statement's rows of those keys are there too, in that snapshot,
 * and the statement runs where the cache points — without the keys' home rows, whose shared locks would make every
 * key's hash home a participant of the transaction.
 *
 * <p>Why the owner row proves it. A key's rows, of every table of its group, are on one partition in every committed
 * state (a replicated key's on each copy, whole): a move copies them all to its target and deletes them all at its
 * source, each in one branch, and a row of the key is inserted only where its partition's placement row lets it
 * ({@code lutra_place_*} triggers). At REPEATABLE READ the transaction reads a partition in one snapshot, taken at its
 * first read there (the probe, if nothing before it), so the probe and the statement's read see the same committed state
 * plus the transaction's own writes: the owner row of the key there means all the key's rows are there, as they were
 * when the snapshot was taken — what one database with that snapshot answers (as {@link SelectPlan}'s read of one key
 * proven by its rows). Each key is read on one partition only, so no copy is counted twice. A key without its owner row
 * there (it moved, it was never there, its owner row was deleted) is not proven: the statement resolves every key by its
 * home rows instead ({@link Target#exact}).
 *
 * <p>Not for auto-commit, READ COMMITTED or READ UNCOMMITTED (each statement its own snapshot: the rows could move
 * between the probe and the read) nor locking reads (they read the latest rows, not the snapshot).
 */
final class OwnerRowsProbe {
    private OwnerRowsProbe() {}

    /** Whether a read of {@code sql} in this statement reads one snapshot per partition for the whole transaction. */
    static boolean applies(Context ctx, String sql) {
        Shards shards = ctx.shards();
        return shards != null && !ctx.explaining() && shards.transactional() && shards.isolation() == Connection.TRANSACTION_REPEATABLE_READ
                && !shards.lockingRead(sql);
    }

    /**
     * Where each key is read: where its owner row was found in the transaction's snapshot, or null when one was found
     * nowhere it was looked for. A key the cache places on a partition the transaction has not begun on is first looked
     * for on one it has ({@link #preferred}): a replicated key's copy there (one-hop replication keeps a user's rows on
     * its followers' partitions) is read there, with the transaction's other rows, rather than at its primary; the keys
     * not found there are then looked for where the cache points.
     */
    static Target.Resolution proven(Context ctx, Target target, Target.Resolution guess) throws SQLException {
        Object[] keys = guess.keys();
        if (keys == null || keys.length == 0) return null;
        for (Object k : keys) if (!(k instanceof Number)) return null; // a string's equality is the backend's collation: left to the home rows
        var lookup = (Partitioning.LookedUp) target.table().partitioning();
        int preferred = preferred(ctx.shards(), lookup, guess);
        var cachedAt = new int[keys.length];
        var ask = new LinkedHashMap<Integer, List<Integer>>();
        for (var e : guess.byPartition().entrySet()) {
            for (int i : e.getValue()) {
                cachedAt[i] = e.getKey();
                int p = preferred >= 0 && !ctx.shards().begun(e.getKey()) ? preferred : e.getKey();
                ask.computeIfAbsent(p, x -> new ArrayList<>()).add(i);
            }
        }
        var found = new LinkedHashMap<Integer, List<Integer>>();
        List<Integer> missing = probe(ctx, target, lookup, keys, ask, found);
        if (!missing.isEmpty() && preferred >= 0) {
            var again = new LinkedHashMap<Integer, List<Integer>>();
            for (int i : missing) {
                if (cachedAt[i] == preferred) return null;
                again.computeIfAbsent(cachedAt[i], x -> new ArrayList<>()).add(i);
            }
            missing = probe(ctx, target, lookup, keys, again, found);
        }
        return missing.isEmpty() ? new Target.Resolution(found, keys) : null;
    }

    /**
     * A partition of the group the transaction has begun on, where keys the cache places elsewhere are looked for first:
     * of those the guess reads, the one with the most keys; else the first of the group's; -1 when it has begun on none.
     */
    private static int preferred(Shards shards, Partitioning.LookedUp lookup, Target.Resolution guess) {
        int best = -1;
        int most = -1;
        for (var e : guess.byPartition().entrySet()) {
            if (shards.begun(e.getKey()) && e.getValue().size() > most) {
                best = e.getKey();
                most = e.getValue().size();
            }
        }
        if (best >= 0) return best;
        for (int p : lookup.partitions()) if (shards.begun(p)) return p;
        return -1;
    }

    /** Reads the owner rows of {@code ask}'s keys on each partition, adds the keys found to {@code found}; the indexes of those not found. */
    private static List<Integer> probe(Context ctx, Target target, Partitioning.LookedUp lookup, Object[] keys, Map<Integer, List<Integer>> ask,
                                       Map<Integer, List<Integer>> found) throws SQLException {
        var queries = new ArrayList<ShardQuery>();
        var asked = new ArrayList<List<Integer>>();
        for (var e : ask.entrySet()) {
            var distinct = new LinkedHashSet<Object>();
            for (int i : e.getValue()) distinct.add(keys[i]);
            var params = new ArrayList<Value>(distinct.size());
            for (Object k : distinct) params.add(KeyParams.toValue(k));
            queries.add(new ShardQuery(e.getKey(), sql(lookup, distinct.size()), params));
            asked.add(e.getValue());
        }
        ctx.touched(queries);
        List<RowSource> answers = ctx.shards().query(queries);
        var missing = new ArrayList<Integer>();
        for (int q = 0; q < answers.size(); q++) {
            var there = new HashSet<Object>();
            try (RowSource rows = answers.get(q)) {
                Row row;
                while ((row = rows.next()) != null) there.add(target.table().key(ValueCodec.decode(row.getValues(0))));
            }
            for (int i : asked.get(q)) {
                if (there.contains(keys[i])) found.computeIfAbsent(queries.get(q).partition(), x -> new ArrayList<>()).add(i);
                else missing.add(i);
            }
        }
        return missing;
    }

    private static String sql(Partitioning.LookedUp lookup, int n) {
        String column = SecondaryEntries.quote(lookup.ownerColumn());
        return "SELECT DISTINCT " + column + " FROM " + SecondaryEntries.quote(lookup.owner()) + " WHERE " + column + " IN (" + "?,".repeat(n - 1) + "?)";
    }
}
