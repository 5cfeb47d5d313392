package org.lutra.exec;

import org.lutra.placement.HomeRows;
import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.placement.CopySplit;
import org.lutra.placement.PlacementRows;
import org.lutra.placement.Shards;
import org.lutra.backend.Backends;
import org.lutra.backend.ShardQuery;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;
import org.lutra.sql.KeyMatch;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes of rows that have several copies — a REPLICATED table's, or a replicated key's (SET PARTITION = (p1, p2)): every
 * copy runs the write alike ({@link SameOnEveryCopy}, {@link SameEffect}), in the statement's transaction, with the partitions
 * that hold copies marked ({@link ReplicaWrites}), and the rows are counted once.
 */
final class ReplicaWrite {
    private final Stats stats;
    private final Backends backends;
    private final FanOut fanOut;

    ReplicaWrite(Stats stats, Backends backends, FanOut fanOut) {
        this.stats = stats;
        this.backends = backends;
        this.fanOut = fanOut;
    }

    /** An UPDATE or DELETE of a REPLICATED table: on every partition, each changing the same rows; counted once. */
    Result.Count onReplicatedTable(Plan.Routed plan, Partitioning.Replicated r, List<Value> params, Connections c) throws SQLException {
        var queries = onEveryCopy(plan.table(), plan.sql(), Routes.wholeOn(plan, r.partitions(), params));
        Writes.record(stats, queries);
        return new Result.Count(copiesAlike(plan.table(), queries, c), queries.size()); // every replica changes the same rows
    }

    /**
     * The partitions of {@code lookup}'s group that hold rows of a replicated key (a copy, or the primary), as {@code shards}
     * read them (inside a REPEATABLE READ transaction, its snapshot: one committed since is caught by the placement
     * triggers, and the write refused).
     */
    java.util.Set<Integer> holdingCopies(Partitioning.LookedUp lookup, Shards shards) throws SQLException {
        if (shards.noReplicatedKeys(lookup.owner())) return java.util.Set.of(); // nothing to ask: the group has a secondary lookup
        var checks = new ArrayList<ShardQuery>();
        for (int p : lookup.partitions()) {
            checks.add(new ShardQuery(p, PlacementRows.anyReplicatedSql(lookup.owner(), shards.partitionName(p)), List.of()));
        }
        var holding = new java.util.TreeSet<Integer>();
        var answers = shards.query(checks);
        for (int i = 0; i < answers.size(); i++) {
            try (RowSource rows = answers.get(i)) {
                if (rows.next() != null) holding.add(checks.get(i).partition());
            }
        }
        return holding;
    }

    /**
     * An UPDATE or DELETE that names no keys while keys of its group are replicated ({@code holding}: the partitions with
     * their rows): split there into the rows counted and the copies kept for another primary ({@link CopySplit}), in the
     * statement's transaction with those partitions marked ({@link ReplicaWrites}), at one time for every copy
     * ({@link SameOnEveryCopy}); as written on the other partitions, which hold no such rows.
     */
    Result.Count onEveryCopyUnkeyed(Plan.Routed plan, Partitioning.LookedUp lookup, java.util.Set<Integer> holding, List<Value> params,
                                    Connections c) throws SQLException {
        if (plan.mergeNeed() != null) throw Writes.mergeRefusal(plan, lookup.partitions().length);
        SameOnEveryCopy.check(plan.sql(), plan.table(), backends.mariaDb());
        return splitOnEveryPartition(plan, lookup, holding, params, c);
    }

    /** {@link #onEveryCopyUnkeyed} once the statement is checked (ORDER BY/LIMIT, {@link SameOnEveryCopy}). */
    private Result.Count splitOnEveryPartition(Plan.Routed plan, Partitioning.LookedUp lookup, java.util.Set<Integer> holding, List<Value> params,
                                               Connections c) throws SQLException {
        if (plan.setsInsertId() || !plan.sets().isEmpty()) {
            throw Refusal.of("Lutra does not support " + (plan.setsInsertId() ? "LAST_INSERT_ID(expr)" : "setting a secondary lookup's column")
                    + " in an UPDATE of " + plan.table().name() + " over several partitions while keys of " + lookup.owner() + " are replicated");
        }
        if (Writes.IGNORING.matcher(plan.sql()).lookingAt()) {
            // each partition runs it on different keys' rows (those counted there, and copies kept for other primaries): a row one
            // copy skips and another changes could not be told
            throw Refusal.of("Lutra does not support UPDATE IGNORE or DELETE IGNORE of " + plan.table().name() + " rows over several partitions"
                    + " while keys of " + lookup.owner() + " are replicated (SET PARTITION = (p1, p2)): each partition writes other keys' rows"
                    + " besides the copies, so whether the copies skip the same rows could not be told; name the keys, or leave IGNORE out");
        }
        var plain = new ArrayList<ShardQuery>();
        var counting = new ArrayList<ShardQuery>();
        var copies = new ArrayList<ShardQuery>();
        for (int p : lookup.partitions()) {
            if (!holding.contains(p)) { // no rows of a replicated key here: no mark, no split (a mark makes the partition a writer)
                plain.add(Routes.whole(plan, p, params));
                continue;
            }
            String name = backends.catalog().partition(p).name();
            counting.add(new ShardQuery(p, CopySplit.ownRows(plan.sql(), lookup.owner(), lookup.column(), name), params));
            copies.add(new ShardQuery(p, CopySplit.copiedRows(plan.sql(), lookup.owner(), lookup.column(), name), params));
        }
        c.atomic();
        stats.broadcast(plan.table().partitioning());
        Writes.record(stats, plain);
        Writes.record(stats, counting);
        Writes.record(stats, copies);
        long rows = 0;
        try {
            if (!plain.isEmpty()) {
                rows += Writes.sum(fanOut.update(SameOnEveryCopy.readsClock(plan.sql(), plan.table()) && backends.mariaDb()
                        ? SameOnEveryCopy.atOneTime(plain, SameOnEveryCopy.nowMicros()) : plain, c));
            }
            if (!counting.isEmpty()) rows += Writes.sum(splitOnEveryCopy(plan.table(), plan.sql(), counting, copies, c));
        } catch (SQLException e) {
            throw Writes.copiesRefusal(plan, e); // a partition that held no copies in the statement's snapshot holds some now
        }
        return new Result.Count(rows, plain.size() + counting.size() + copies.size());
    }

    /**
     * A write of keys of which one (or more) lives on several partitions: on all of them, in the statement's
     * transaction, with the home rows locked in it until it ends ({@link ReplicaWrites}). The count is the rows
     * matched at one partition per key, as one database would count them. {@code shards} run over {@code c}.
     */
    Result.Count onEveryReplica(Plan.Routed plan, Partitioning.LookedUp lookup, Object[] keys, List<Value> params, Shards shards, Connections c)
            throws SQLException {
        if (plan.mergeNeed() != null) {
            throw new SQLException("Lutra does not support " + plan.mergeNeed() + " in a write of " + plan.table().name() + " rows whose key is"
                    + " replicated (SET PARTITION = (p1, p2)): the copies could pick different rows", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
        }
        SameOnEveryCopy.check(plan.sql(), plan.table(), backends.mariaDb());
        requireSameSkips(plan, lookup);
        shards.atomic(); // transactional now: the locks below last until the statement's transaction ends
        var locks = HomeRows.Locks.untilTransactionEnds(shards);
        HomeRows home = HomeRows.lock(locks, shards, plan.table(), lookup, keys);
        // a range's statement goes whole to each partition, where it would also match copies kept for other keys' primaries:
        // split there instead, or an UPDATE ... WHERE id BETWEEN would run twice on a copy (once for its own key, once as the copy)
        if (plan.keys() instanceof KeyMatch.Range) return splitOnEveryPartition(plan, lookup, holdingCopies(lookup, shards), params, c);
        var sets = bySet(home, keys, (p, indexes) -> Routes.cut(plan, Map.of(p, indexes), params).getFirst());
        int statements = 0;
        for (var set : sets) {
            Writes.record(stats, set.queries());
            statements += set.queries().size();
        }
        return new Result.Count(ReplicaWrites.sum(runOnEveryCopy(plan.table(), plan.sql(), sets, c)), statements);
    }

    /**
     * {@code queries}, one statement {@code sql} for each partition of a REPLICATED table, as every copy must run it
     * ({@link SameOnEveryCopy}): refused where the copies would differ, else at one time for all.
     */
    List<ShardQuery> onEveryCopy(TableDef table, String sql, List<ShardQuery> queries) throws SQLException {
        if (queries.size() < 2) return queries;
        boolean mariaDb = backends.mariaDb();
        SameOnEveryCopy.check(sql, table, mariaDb);
        return mariaDb && SameOnEveryCopy.readsClock(sql, table) ? SameOnEveryCopy.atOneTime(queries, SameOnEveryCopy.nowMicros()) : queries;
    }

    /** Runs {@code queries}, one statement on each copy of a REPLICATED table, alike everywhere ({@link SameEffect}); the rows one copy counts. */
    long copiesAlike(TableDef table, List<ShardQuery> queries, Connections c) throws SQLException {
        if (queries.size() < 2) return fanOut.update(queries, c)[0];
        c.atomic();
        return SameEffect.run(fanOut, c, table, List.of(new SameEffect.Copies(queries)))[0];
    }

    /** {@link ReplicaWrites#runSplit}, at one time for every copy where {@code sql} reads the clock. */
    private long[] splitOnEveryCopy(TableDef table, String sql, List<ShardQuery> counting, List<ShardQuery> copies, Connections c) throws SQLException {
        if (!backends.mariaDb() || !SameOnEveryCopy.readsClock(sql, table)) return ReplicaWrites.runSplit(fanOut, c, counting, copies);
        long now = SameOnEveryCopy.nowMicros();
        return ReplicaWrites.runSplit(fanOut, c, SameOnEveryCopy.atOneTime(counting, now), SameOnEveryCopy.atOneTime(copies, now));
    }

    /**
     * {@link ReplicaWrites#run} of {@code sets}, at one time for every copy where {@code sql} reads the clock ({@link SameOnEveryCopy};
     * the statement was checked before).
     */
    long[] runOnEveryCopy(TableDef table, String sql, List<SameEffect.Copies> sets, Connections c) throws SQLException {
        if (!backends.mariaDb() || !SameOnEveryCopy.readsClock(sql, table)) return ReplicaWrites.run(fanOut, c, table, sets);
        long now = SameOnEveryCopy.nowMicros();
        var timed = new ArrayList<SameEffect.Copies>();
        for (var set : sets) timed.add(new SameEffect.Copies(SameOnEveryCopy.atOneTime(set.queries(), now)));
        return ReplicaWrites.run(fanOut, c, table, timed);
    }

    /**
     * The statements of a write of {@code keys} where their home rows say they live: for the keys of each set of partitions
     * (one for a key that is not replicated), the statement on each partition of the set, the primary's first ({@link SameEffect}).
     */
    static List<SameEffect.Copies> bySet(HomeRows home, Object[] keys, java.util.function.BiFunction<Integer, List<Integer>, ShardQuery> statement) {
        var sets = new ArrayList<SameEffect.Copies>();
        for (var e : home.byReplicaSet(keys).entrySet()) {
            var queries = new ArrayList<ShardQuery>();
            for (int p : e.getKey()) queries.add(statement.apply(p, e.getValue()));
            sets.add(new SameEffect.Copies(queries));
        }
        return sets;
    }

    /**
     * Refuses an UPDATE IGNORE of a replicated key's rows on a table with a unique key that does not hold the routing column:
     * on one copy the new value may meet another key's row that only that partition holds, and MariaDB then skips the row
     * without a warning, counting it as found — the copies would differ with nothing to tell ({@link SameEffect}).
     */
    private static void requireSameSkips(Plan.Routed plan, Partitioning.LookedUp lookup) throws SQLException {
        if (!Writes.IGNORING.matcher(plan.sql()).lookingAt() || !plan.sql().stripLeading().regionMatches(true, 0, "UPDATE", 0, 6)) return;
        for (var key : org.lutra.catalog.UniqueKeys.of(plan.table())) {
            if (!key.holds(lookup.column())) {
                throw Refusal.of("UPDATE IGNORE of " + plan.table().name() + " rows whose key is replicated (SET PARTITION = (p1, p2)), with the unique key ("
                        + String.join(", ", key.parts()) + "): a copy could skip a row another copy changes, and the copies must stay identical;"
                        + " leave IGNORE out");
            }
        }
    }
}
