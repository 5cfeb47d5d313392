package org.lutra.exec;

import org.lutra.backend.BackendThreads;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.Partitioning;
import org.lutra.merge.RowSource;
import org.lutra.placement.KeyParams;
import org.lutra.placement.MoveFence;
import org.lutra.placement.PlacementRows;
import org.lutra.placement.Shards;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Where the keys of a read inside a REPEATABLE READ transaction live, proven on the partitions the read uses instead of
 * at the keys' homes: a read of several keys that the router must merge or cannot count ({@code uid IN (...) ORDER BY ...
 * LIMIT}, aggregates, several keys of a SAME AS table) would otherwise lock every key's home row at its home partition,
 * in the transaction, making each home a participant ({@link Target#exact}).
 *
 * <p>On each partition P asked, one statement in the transaction reads the proof ({@link #sql}): the keys' owner rows in
 * the transaction's snapshot of P (a consistent read), and the keys' placement rows at P as last committed, locked shared
 * until the transaction ends ({@code LOCK IN SHARE MODE} on that part of the UNION only: a gap lock where there is none);
 * where the transaction began on P in an earlier statement (its snapshot there may be older than this one), also the
 * group's move-batch count in the snapshot (the first such statement only: the count in the snapshot never changes, and
 * is remembered in the transaction, {@link Shards#snapshotBatches}), compared with the latest committed count, read outside the transaction once
 * that statement has its locks ({@code lutra_move_version}, as {@code placement.TransactionScan} compares them). A key is proven at P when its owner
 * row is in the snapshot, its placement row at P is absent or names P among its partitions, and the counts are equal.
 * Why that is exact:
 * <ul>
 *   <li><b>The snapshot holds all the key's rows.</b> A key's rows, of every table of its group, are whole or absent on
 *       a partition in every committed state of it (a move copies them all to a target in one branch and deletes them
 *       all at a source in another; a row of the key is inserted only where the placement triggers let it): its owner
 *       row in the snapshot means all its rows are there, as of the snapshot;
 *   <li><b>The key lives at P now, and stays until the transaction ends.</b> A move that takes the key off P writes a
 *       placement row there naming where it went (a tombstone, or the home row at its home) and holds it locked until its
 *       branch at P commits; so the locked read of P's placement rows waits for such a move and then sees it, and no later
 *       one can write there before the transaction ends. With the owner row in the snapshot, no placement row (or one
 *       naming P, a replicated key's copy) means the key has not left P since the snapshot, or came back;
 *   <li><b>So the transaction's own writes of the key are at P.</b> Each went where the key lived when it was written,
 *       and holds locks on the rows it wrote there (a replicated key's: on every copy), which a move of the key must read
 *       with a locking read: the key cannot have left that partition since. It lives at P now, so they are at P, and the
 *       transaction's read there sees them. (Without the placement rows, a snapshot of P older than a move of the key to
 *       Q still has the key's rows, and misses the transaction's own insert of a row of the key at Q: the reason the owner
 *       rows alone were not enough.)
 *   <li><b>And the snapshot is no older than the key's stay at P.</b> Equal counts: no batch wrote P since the snapshot,
 *       (read after the placement rows were locked, so also none that moved the key back while the locking read
 *       waited for it), so the key did not leave P and come back meanwhile; the transaction cannot have read the key's newer rows
 *       elsewhere (a read that takes no lock, of the key where it was in between) and then its older ones here.
 * </ul>
 * Each key is read on one partition only, so no copy is counted twice; a key not proven (it moved, it was never there,
 * its owner row was deleted) sends the whole statement to its home rows, as before. The proof depends on no router's
 * cache, which only chooses where to ask, so stale routers are exact too.
 *
 * <p>Not for auto-commit, READ COMMITTED or READ UNCOMMITTED (each statement its own snapshot, and no gap locks), nor
 * locking reads (they read the latest rows, not the snapshot), nor string keys (their equality is the backend's
 * collation), nor on MySQL backends (the statement relies on MariaDB's locking clause per part of a UNION). Cost: one
 * statement on each partition asked and, on those the transaction used before, one more outside it (once the first has
 * answered), in place of one on each home partition (each a participant of the transaction) and the move-batch check
 * (two statements) on each partition read that it used before.
 */
final class OwnerRowsProof {
    private OwnerRowsProof() {}

    /** Whether a read of {@code sql} in this statement reads one snapshot per partition for the whole transaction. */
    static boolean applies(Context ctx, String sql) throws SQLException {
        Shards shards = ctx.shards();
        return shards != null && !ctx.explaining() && shards.transactional() && shards.isolation() == Connection.TRANSACTION_REPEATABLE_READ
                && !shards.lockingRead(sql) && shards.mariaDb(); // MySQL's locking clause in a UNION: not relied on
    }

    /**
     * Where each key is read: where it was proven, or null when one was not proven where it was looked for. A key the
     * cache places on a partition the transaction has not begun on is first looked for on one it has ({@link #preferred}):
     * a replicated key's copy there (one-hop replication keeps a user's rows on its followers' partitions) is read there,
     * with the transaction's other rows, rather than at its primary; the keys not proven there are then looked for where
     * the cache points.
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
        List<Integer> missing = prove(ctx, target, lookup, keys, ask, found);
        if (!missing.isEmpty() && preferred >= 0) {
            var again = new LinkedHashMap<Integer, List<Integer>>();
            for (int i : missing) {
                if (cachedAt[i] == preferred) return null;
                again.computeIfAbsent(cachedAt[i], x -> new ArrayList<>()).add(i);
            }
            missing = prove(ctx, target, lookup, keys, again, found);
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

    /** Proves {@code ask}'s keys on each partition (in parallel), adds those proven to {@code found}; the indexes of the others. */
    private static List<Integer> prove(Context ctx, Target target, Partitioning.LookedUp lookup, Object[] keys, Map<Integer, List<Integer>> ask,
                                       Map<Integer, List<Integer>> found) throws SQLException {
        String group = MoveFence.group(lookup.owner());
        var queries = new ArrayList<ShardQuery>();
        var asked = new ArrayList<List<Integer>>();
        var earlier = new ArrayList<Boolean>();
        var remembered = new ArrayList<OptionalLong>();
        for (var e : ask.entrySet()) {
            var distinct = new LinkedHashSet<Object>();
            for (int i : e.getValue()) distinct.add(keys[i]);
            var params = new ArrayList<Value>(2 * distinct.size() + 1);
            for (Object k : distinct) params.add(KeyParams.toValue(k));
            for (Object k : distinct) params.add(KeyParams.toValue(k));
            // asked before this statement begins the branch; a snapshot that is all the transaction has seen is not checked
            boolean before = ctx.shards().begun(e.getKey()) && !ctx.shards().onlySnapshotOf(e.getKey());
            OptionalLong known = before ? ctx.shards().snapshotBatches(e.getKey(), group) : null;
            boolean readBatches = before && known == null; // the count in the snapshot never changes: read once per transaction
            if (readBatches) params.add(KeyParams.toValue(group));
            queries.add(new ShardQuery(e.getKey(), sql(lookup, distinct.size(), readBatches), params));
            asked.add(e.getValue());
            earlier.add(before);
            remembered.add(known);
        }
        ctx.touched(queries);
        List<RowSource> answers = ctx.shards().query(queries);
        var owned = new ArrayList<Set<Object>>();
        var elsewhere = new ArrayList<Set<Object>>();
        var seenBatches = new ArrayList<OptionalLong>();
        for (int q = 0; q < answers.size(); q++) {
            int partition = queries.get(q).partition();
            owned.add(new HashSet<>());
            elsewhere.add(new HashSet<>());
            OptionalLong seen = OptionalLong.empty(); // no row: no batch counted there
            try (RowSource rows = answers.get(q)) {
                Row row;
                while ((row = rows.next()) != null) {
                    Object first = ValueCodec.decode(row.getValues(0));
                    Object second = ValueCodec.decode(row.getValues(1));
                    if (first == null) {
                        seen = OptionalLong.of(Long.parseLong(second.toString()));
                        continue;
                    }
                    Object key = target.table().key(first);
                    if (second == null) owned.get(q).add(key);
                    else if (!names(ctx.shards(), second.toString(), partition)) elsewhere.get(q).add(key);
                }
            }
            if (remembered.get(q) != null) {
                seen = remembered.get(q);
            } else if (earlier.get(q)) {
                ctx.shards().snapshotBatches(partition, group, seen);
            }
            seenBatches.add(seen);
        }
        // the latest counts, read once the placement rows are locked: a batch that moved a key back to a partition while
        // the locking read waited for it is then counted (read before, its count could still equal the snapshot's)
        var latest = new ArrayList<FutureTask<OptionalLong>>();
        for (int q = 0; q < queries.size(); q++) latest.add(earlier.get(q) ? latestBatches(ctx.shards(), queries.get(q).partition(), group) : null);
        var missing = new ArrayList<Integer>();
        for (int q = 0; q < queries.size(); q++) {
            int partition = queries.get(q).partition();
            boolean sameBatches = latest.get(q) == null || seenBatches.get(q).equals(await(latest.get(q), partition));
            for (int i : asked.get(q)) {
                if (sameBatches && owned.get(q).contains(keys[i]) && !elsewhere.get(q).contains(keys[i])) {
                    found.computeIfAbsent(partition, x -> new ArrayList<>()).add(i);
                } else {
                    missing.add(i);
                }
            }
        }
        return missing;
    }

    /** The group's batch count last committed on {@code partition}, read outside the transaction, on a thread of its own from now. */
    private static FutureTask<OptionalLong> latestBatches(Shards shards, int partition, String group) {
        var task = new FutureTask<>(() -> {
            try (Shards.Scratch s = shards.scratch(partition);
                 RowSource rows = s.query(MoveFence.BATCHES, List.of(Value.newBuilder().setStringValue(group).build()))) {
                Row row = rows.next();
                return row == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(String.valueOf(ValueCodec.decode(row.getValues(0)))));
            }
        });
        BackendThreads.later(task);
        return task;
    }

    private static OptionalLong await(FutureTask<OptionalLong> task, int partition) throws SQLException {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted reading the move count of partition " + partition, "HY000", 0, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException s) throw s;
            throw new SQLException("reading the move count of partition " + partition + " failed", "HY000", 0, e.getCause());
        }
    }

    /** Whether a placement row's {@code partitions} (names, comma-separated) name {@code partition}. */
    private static boolean names(Shards shards, String partitions, int partition) throws SQLException {
        for (String name : partitions.split(",")) if (shards.partitionNamed(name) == partition) return true;
        return false;
    }

    /**
     * The keys' owner rows in the transaction's snapshot (second column NULL) and their placement rows as last committed,
     * locked (second column the partitions they name: never NULL); with {@code batches}, also the group's move-batch count
     * in the snapshot (first column NULL, one row or none). MariaDB reads each part of a UNION with its own locking clause,
     * so the locking part reads the latest rows and the others the snapshot, in one statement.
     */
    static String sql(Partitioning.LookedUp lookup, int n, boolean batches) {
        String marks = "?,".repeat(n - 1) + "?";
        String column = quote(lookup.ownerColumn());
        return "(SELECT " + column + ", NULL FROM " + quote(lookup.owner()) + " WHERE " + column + " IN (" + marks + "))"
                + " UNION ALL (SELECT k, partitions FROM " + quote(PlacementRows.table(lookup.owner())) + " WHERE k IN (" + marks + ") LOCK IN SHARE MODE)"
                + (batches ? " UNION ALL (SELECT NULL, CAST(moves AS CHAR) FROM " + quote(MoveFence.VERSIONS) + " WHERE owner = ?)" : "");
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
