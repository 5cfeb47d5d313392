package org.lutra.placement;

import org.lutra.backend.ValueCodec;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where keys of a lookup group live, read from their home rows ({@link PlacementRows}) under a
 * shared lock held until its {@link Locks} are closed: the exact answer for a statement that did not find a key
 * where its router's cache pointed.
 *
 * <p>Why the lock makes the answer exact. A move ({@code maintain.Mover}) holds its keys' home
 * rows with an exclusive lock from before it deletes anything until its home branch commits, and
 * its target commits before that. So once the shared lock is granted, a move of the key has
 * committed at its target, and the partition the home row names (no row: the home) holds the
 * key's rows; while the lock is held, no later move of the key gets as far as deleting them. A
 * read of that partition while the lock is held therefore sees the key's rows once, never none.
 *
 * <p>A key at home has no home row, and a read of a missing row locks it only through a gap lock: a
 * move that starts after the read must not write the key's home row (and take its rows away) before the
 * statement has read them. So the lock lives where gap locks are taken: in auto-commit, and inside a
 * transaction below REPEATABLE READ (which takes none), in a short REPEATABLE READ transaction of a
 * locking-pool connection of each home partition, until the statement's rows are read or written; inside
 * a REPEATABLE READ or SERIALIZABLE transaction (the session's, or the statement's own), in that
 * transaction, until it ends.
 *
 * <p>The home rows are the truth for placement: a key without a home row whose rows are not at
 * home was written to the shards behind the routers' backs (docs/architecture.md), and is not looked for
 * elsewhere.
 */
public final class HomeRows {
    /** Keys that live away from home, or on several partitions: the partitions their home row names (the first: the primary). */
    private final Map<Object, int[]> away;
    private final Partitioning.LookedUp lookup;

    private HomeRows(Partitioning.LookedUp lookup, Map<Object, int[]> away) {
        this.lookup = lookup;
        this.away = away;
    }

    /**
     * The locking connections of one statement, one per partition however many home rows it
     * locks there (a statement's operators resolve their keys one after another); closing it
     * releases every lock.
     */
    public static final class Locks implements AutoCloseable {
        private final Shards shards;
        private final boolean untilTransactionEnds;
        private final Map<Integer, Shards.Scratch> open = new HashMap<>();
        /** Move fences the statement holds shared (a read through a secondary lookup), by group. */
        private final Map<String, MoveFence.Held> fences = new HashMap<>();

        /**
         * Locks held until closed ({@link Shards#locking}): with gap locks, so that a key without a home row (at home)
         * gets none written, by a move that starts meanwhile, before the statement has read or written its rows there —
         * below REPEATABLE READ in a transaction of their own, since the statement's takes no gap locks.
         */
        public Locks(Shards shards) {
            this(shards, false);
        }

        private Locks(Shards shards, boolean untilTransactionEnds) {
            this.shards = shards;
            this.untilTransactionEnds = untilTransactionEnds;
        }

        /**
         * Locks in the statement's transaction, held until it ends (never closed): for keys that have home rows (replicated
         * ones), whose set of partitions must stay as the transaction's writes found it.
         */
        public static Locks untilTransactionEnds(Shards shards) {
            return new Locks(shards, true);
        }

        Shards.Scratch at(int partition) throws SQLException {
            Shards.Scratch s = open.get(partition);
            if (s == null) {
                s = untilTransactionEnds ? shards.inTransaction(partition) : shards.locking(partition);
                open.put(partition, s);
            }
            return s;
        }

        /** Lookup group {@code group}'s fence, held shared on partition {@code at} by this statement from now until it ends (or its scan releases it). */
        public void holdFence(String group, int at) throws SQLException {
            if (fences.containsKey(group)) return;
            MoveFence.Held held = shards.holdFence(group, at);
            if (held != null) fences.put(group, held);
        }

        /** Lookup group {@code group}'s locking fence ({@link MoveFence#LOCKING}), held shared by this statement from now until it ends. */
        public void holdLockingFence(String group, int at) throws SQLException {
            String key = "locking " + group;
            if (fences.containsKey(key)) return;
            MoveFence.Held held = shards.holdLockingFence(group, at);
            if (held != null) fences.put(key, held);
        }

        /** The fence of {@code group} this statement holds, or null. */
        public MoveFence.Held fence(String group) {
            return fences.get(group);
        }

        @Override
        public void close() {
            open.values().forEach(Shards.Scratch::close);
            open.clear();
            fences.values().forEach(MoveFence.Held::close);
            fences.clear();
        }
    }

    /** Reads the home rows of {@code keys} (values of {@code table}'s routing column) under {@code locks}, one statement per home partition. */
    public static HomeRows lock(Locks locks, Shards shards, TableDef table, Partitioning.LookedUp lookup, Object[] keys) throws SQLException {
        var byHome = new LinkedHashMap<Integer, List<Object>>();
        for (Object k : keys) {
            if (k != null) byHome.computeIfAbsent(lookup.placeNew(k), h -> new ArrayList<>()).add(k);
        }
        var away = new HashMap<Object, int[]>();
        for (var home : byHome.entrySet()) {
            var distinct = home.getValue().stream().distinct().toList();
            String sql = PlacementRows.resolveSql(lookup.owner(), distinct.size()) + " LOCK IN SHARE MODE";
            try (RowSource rows = locks.at(home.getKey()).query(sql, distinct.stream().map(KeyParams::toValue).toList())) {
                Row row;
                while ((row = rows.next()) != null) {
                    Object key = table.key(ValueCodec.decode(row.getValues(0)));
                    String[] names = row.getValues(1).getStringValue().split(",");
                    int[] partitions = new int[names.length];
                    for (int i = 0; i < names.length; i++) partitions[i] = shards.partitionNamed(names[i]);
                    away.put(key, partitions);
                }
            }
        }
        FailPoints.reach(FailPoints.HOME_ROWS_LOCKED);
        return new HomeRows(lookup, away);
    }

    /** The partition that holds {@code key}'s rows while this is open (a replicated key's primary). */
    public int partitionOf(Object key) {
        int[] p = away.get(key);
        return p != null ? p[0] : lookup.placeNew(key);
    }

    /** Every partition that holds {@code key}'s rows while this is open (several for a replicated key). */
    public int[] replicasOf(Object key) {
        int[] p = away.get(key);
        return p != null ? p : new int[] {lookup.placeNew(key)};
    }

    /** Whether one of {@code keys} lives on several partitions. */
    public boolean anyReplicated(Object[] keys) {
        for (Object k : keys) if (k != null && replicasOf(k).length > 1) return true;
        return false;
    }

    /**
     * For each partition, the indexes of the {@code keys} that live there; a replicated key is read at its primary,
     * the first partition of its set: a move that adds partitions to the set commits there first (it coordinates),
     * the others may commit after the home row's lock is released, so only the primary is sure to have the rows.
     */
    public Map<Integer, List<Integer>> byPartition(Object[] keys) {
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) out.computeIfAbsent(partitionOf(keys[i]), p -> new ArrayList<>()).add(i);
        }
        return out;
    }

    /**
     * The indexes of {@code keys} by the partitions that hold their rows (several for a replicated key, its primary first):
     * the keys of one group have the same rows on each of its partitions, so a write of them must count and warn alike there.
     */
    public Map<List<Integer>, List<Integer>> byReplicaSet(Object[] keys) {
        var out = new LinkedHashMap<List<Integer>, List<Integer>>();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == null) continue;
            var set = java.util.Arrays.stream(replicasOf(keys[i])).boxed().toList();
            out.computeIfAbsent(set, p -> new ArrayList<>()).add(i);
        }
        return out;
    }

    /** For each partition, the indexes of the replicated {@code keys} whose copies there {@link #byPartition} does not read. */
    public Map<Integer, List<Integer>> otherReplicas(Object[] keys, Map<Integer, List<Integer>> read) {
        var out = new LinkedHashMap<Integer, List<Integer>>();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == null) continue;
            for (int p : replicasOf(keys[i])) {
                if (!read.getOrDefault(p, List.of()).contains(i)) out.computeIfAbsent(p, x -> new ArrayList<>()).add(i);
            }
        }
        return out;
    }

    /**
     * Sets the router's cache to what the home rows say (the cache stays a guess: a later move may
     * change it again). A key at home without an entry gets none: the DEFAULT NEW rule already
     * points there, and reads of keys that do not exist must not fill the table.
     */
    public void learn(Object[] keys, ValidationCounters counters) {
        for (Object k : keys) {
            if (k == null) continue;
            int p = partitionOf(k);
            int cached = lookup.table().get(k);
            if (cached != p && (cached != org.lutra.lookup.LookupTable.MISSING || away.containsKey(k)) && !contains(replicasOf(k), cached)) {
                lookup.table().put(k, p);
                counters.learn(lookup);
            }
        }
    }

    private static boolean contains(int[] partitions, int p) {
        for (int q : partitions) if (q == p) return true;
        return false;
    }
}
