package org.lutra.exec;

import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.lookup.LookupTable;
import org.lutra.merge.FallbackRows;
import org.lutra.merge.LimitRows;
import org.lutra.merge.RowSource;
import org.lutra.merge.UnionRows;
import org.lutra.plan.KeyMatch;
import org.lutra.plan.Plan;
import org.lutra.plan.SessionCommand;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs plans: decides the partitions from the parameter values, cuts the SQL per partition, fans
 * the sub-queries out, and composes the results. Lookup tables are caches, so reads and writes
 * routed by a lookup follow the validation protocol (paper §3.2): run where the lookup table
 * points; if fewer rows than keys answer, read the keys' home rows under a shared lock, run again
 * where they say, and learn where the rows really are (docs/architecture.md).
 */
public final class Executor {
    private final Backends backends;
    private final FanOut fanOut;
    private final Stats stats;
    private final RouterMetrics metrics;
    private final PlacementReport placementReport;
    private final AutoIncrement autoIncrement;

    public Executor(Backends backends) {
        this(backends, RouterMetrics.NONE);
    }

    /** {@code metrics}: where routed keys are reported ({@link Stats}). */
    public Executor(Backends backends, RouterMetrics metrics) {
        this.backends = backends;
        this.fanOut = new FanOut(backends);
        this.metrics = metrics;
        this.stats = new Stats(backends.placements().size(), metrics);
        this.placementReport = new PlacementReport(backends, stats);
        this.autoIncrement = new AutoIncrement(new IdBlocks(backends));
    }

    /** SHOW PARTITIONS, SHOW LOOKUP TABLES, SHOW LOOKUP t FOR key: rows from the router's own state, no connection needed. */
    public Result.Rows placement(SessionCommand.ShowPlacement statement, List<Value> params) throws SQLException {
        if (params.size() != statement.paramCount()) {
            throw new SQLException("the statement has " + statement.paramCount() + " parameter(s) but " + params.size() + " were bound", "07001", 0);
        }
        return new Result.Rows(placementReport.answer(statement, params), 0);
    }

    /**
     * A session's SET of variables, checked and evaluated on a pooled connection of the first
     * partition: the session's variables after it ({@link SessionSet}).
     */
    public SessionState set(SessionCommand.SetVariables plan, List<Value> params, SessionState current, int isolation, Warnings warnings)
            throws SQLException {
        return SessionSet.run(backends.placement(0), plan, params, current, isolation, warnings);
    }

    Backends backends() {
        return backends;
    }

    FanOut fanOut() {
        return fanOut;
    }

    public Stats stats() {
        return stats;
    }

    /** Where sessions report their statements (RouterMetrics.NONE unless monitoring is on). */
    public RouterMetrics metrics() {
        return metrics;
    }

    public org.lutra.catalog.Catalog catalog() {
        return backends.catalog();
    }

    /** Whether the backends are MariaDB servers (per-statement variables, {@code SET STATEMENT ... FOR}). */
    boolean mariaDb() throws SQLException {
        return backends.mariaDb();
    }

    /** Runs {@code plan}; sub-queries get their connections from {@code connections} (pool or transaction). */
    public Result execute(Plan plan, List<Value> params, Connections connections) throws SQLException {
        try {
            return run(plan, params, connections);
        } catch (org.lutra.catalog.KeyWeighingException e) {
            throw e.sqlException(); // a backend could not weigh a routing key: the statement fails as on a backend error
        }
    }

    private Result run(Plan plan, List<Value> params, Connections connections) throws SQLException {
        if (params.size() != plan.paramCount()) {
            throw new SQLException("the statement has " + plan.paramCount() + " parameter(s) but " + params.size() + " were bound", "07001", 0);
        }
        return switch (plan) {
            case Plan.Explain explain -> ExplainStatement.run(this, explain, params, connections);
            case Plan.NoOp noOp -> new Result.Count(0, 0);
            case Plan.Rows rows -> ExplainStatement.textRows(rows.labels(), rows.rows());
            // the backend's part; the session puts in the values it keeps itself
            case Plan.SessionVariables v -> execute(new Plan.OnePartition(backends.catalog().partitions().getFirst().id(), v.sql()), params, connections);
            case Plan.OnePartition one -> {
                var queries = List.of(new ShardQuery(one.partition(), one.sql(), List.of()));
                record(queries);
                yield new Result.Rows(fanOut.query(queries, connections).getFirst(), 1);
            }
            case Plan.Query query -> {
                var ctx = new Context(params, shards(connections), stats);
                org.lutra.merge.RowSource rows;
                try {
                    rows = ctx.releasing(query.root().open(ctx));
                } catch (SQLException | RuntimeException e) {
                    ctx.release();
                    throw e;
                }
                yield new Result.Rows(rows, ctx.partitionsTouched());
            }
            case Plan.Insert insert -> insert(insert, params, connections);
            case Plan.Routed routed when routed.references() != null -> ReferentialWrite.run(this, routed, params, connections);
            case Plan.Routed routed when routed.setsInsertId() -> settingInsertId(routed, params, connections);
            case Plan.InsertSelect insertSelect -> insertSelect(insertSelect, params, connections);
            case Plan.RowsMoved moved -> MovedRows.run(this, moved, params, connections);
            case Plan.WriteAfterSubqueries write -> writeAfterSubqueries(write, params, connections);
            case Plan.CopiesLockedFirst write -> CopyLockReads.run(this, write, params, connections);
            case Plan.Routed routed -> routed(routed, params, connections);
        };
    }

    /** The shards as operators see them, over this statement's connections. */
    Shards shards(Connections connections) {
        return new StatementShards(fanOut, backends, connections);
    }

    // ---- SELECT / UPDATE / DELETE ---------------------------------------------------------------

    /**
     * An UPDATE with {@code c = LAST_INSERT_ID(expr)} in its SET, on one partition (or every replica alike):
     * the session's LAST_INSERT_ID() becomes what the OK packet of the backend that matched rows carried.
     */
    private Result settingInsertId(Plan.Routed plan, List<Value> params, Connections c) throws SQLException {
        if (!plan.sets().isEmpty()) {
            // the secondary lookup's entries are written through the same connections: only the UPDATE's own OK packets may count
            throw Refusal.of("Lutra does not support LAST_INSERT_ID(expr) in an UPDATE that also sets a secondary lookup's column of "
                    + plan.table().name());
        }
        var reading = new InsertIdReading(c);
        var done = (Result.Count) routed(plan, params, reading);
        return new Result.Count(done.count(), done.partitions(), done.keys(), done.generated(), reading.value());
    }

    private Result routed(Plan.Routed plan, List<Value> params, Connections c) throws SQLException {
        if (plan.sets().isEmpty()) return routedRows(plan, params, c);
        // UPDATE of a secondary lookup's column: its value's entries, for the partitions where rows now have it, in the same transaction
        var keys = new ArrayList<Object>();
        for (var set : plan.sets()) keys.add(secondaryKey(plan.table(), set.lookup(), written(plan.table(), set.lookup(), set.value().resolve(params, ValueCodec::decode))));
        c.atomic();
        var written = new WrittenPartitions(c);
        Result result = routedRows(plan, params, written);
        for (int i = 0; i < plan.sets().size(); i++) {
            if (keys.get(i) == null) continue;
            var entries = new ArrayList<SecondaryEntries.Entry>();
            for (int p : written.partitions()) entries.add(new SecondaryEntries.Entry(keys.get(i), p));
            SecondaryEntries.write(shards(c), plan.table(), plan.sets().get(i).lookup(), entries);
        }
        return result;
    }

    /** The value a secondary lookup's column holds once {@code raw} is written into it; {@code raw} where the router cannot tell (then refused below if it is no exact key). */
    private static Object written(TableDef table, org.lutra.catalog.SecondaryLookup lookup, Object raw) {
        var stored = table.stored(lookup.column(), raw);
        return stored == null ? raw : stored.value();
    }

    /**
     * The value a secondary lookup's entries hold for {@code raw}; null for NULL (no entry: {@code col = v} never
     * matches it). A value the router cannot index exactly is refused: its row would be missing from the entries.
     */
    private static Object secondaryKey(TableDef table, org.lutra.catalog.SecondaryLookup lookup, Object raw) throws SQLException {
        return secondaryKey(table, lookup, raw, raw == null ? null : lookup.key(table, raw));
    }

    private static Object secondaryKey(TableDef table, org.lutra.catalog.SecondaryLookup lookup, Object raw, Object key) throws SQLException {
        if (raw == null) return null;
        if (key == null) {
            throw new SQLException("cannot index " + table.name() + "." + lookup.column() + " = " + raw + " in secondary lookup " + lookup.name()
                    + ": not a valid " + table.column(lookup.column()).keyType().name().toLowerCase() + " value (give it as the column holds it)", "22007", 1292);
        }
        return key;
    }

    /**
     * The entries a move must write for rows it copied to {@code to} (Mover's hook, inside the move's transaction):
     * every secondary lookup of {@code table}, the values of its column in {@code rows}.
     */
    public void moved(Connections t, TableDef table, String[] columns, List<Object[]> rows, int to) throws SQLException {
        for (var lookup : backends.catalog().secondariesOf(table.name())) {
            int at = -1;
            for (int i = 0; i < columns.length; i++) if (columns[i].equalsIgnoreCase(lookup.column())) at = i;
            if (at < 0) throw new SQLException("move of " + table.name() + ": no column " + lookup.column() + " for secondary lookup " + lookup.name(), "HY000", 0);
            var entries = new ArrayList<SecondaryEntries.Entry>();
            for (Object[] row : rows) {
                Object key = secondaryKey(table, lookup, row[at]);
                if (key != null) entries.add(new SecondaryEntries.Entry(key, to));
            }
            SecondaryEntries.write(shards(t), table, lookup, entries);
        }
    }

    private Result routedRows(Plan.Routed plan, List<Value> params, Connections c) throws SQLException {
        var partitioning = plan.table().partitioning();
        if (partitioning instanceof Partitioning.Replicated r) {
            var queries = onEveryCopy(plan.table(), plan.sql(), Routes.wholeOn(plan, r.partitions(), params));
            record(queries);
            return new Result.Count(copiesAlike(plan.table(), queries, c), queries.size()); // every replica changes the same rows
        }
        Object[] keys = Routes.keys(plan, params);
        c.trace().write(plan.table().name(), keys);
        if (keys == null && partitioning instanceof Partitioning.LookedUp lookup) {
            // it writes the latest rows of every partition it runs on, as a locking scan reads them: the group's locking
            // fence is held until they are written (LockingScan). A secondary lookup's entries are the latest committed ones
            // and the transaction's own (SecondaryEntries.partitions), read under that fence: no move batch commits between
            // them and the write, so they name every partition whose latest rows (or the transaction's) have the values
            try (MoveFence.Held fence = shards(c).holdLockingFence(lookup.owner(), Target.fencePartition(new Context(params, shards(c), stats), plan.table(), plan.secondary()))) {
                // no move batch commits while the fence is held: a replication either is in the answer below or comes after the write
                var holding = holdingCopies(lookup, c);
                if (!holding.isEmpty()) return onEveryCopyUnkeyed(plan, lookup, holding, params, c);
                return unkeyed(plan, params, c, true);
            }
        }
        if (keys == null) return unkeyed(plan, params, c, true);
        var byPartition = Routes.byPartition(stats, partitioning, keys);
        if (!partitioning.needsValidation()) {
            return run(plan, Routes.cut(plan, byPartition, params), c);
        }
        var lookup = (Partitioning.LookedUp) partitioning;
        long distinct = Arrays.stream(keys).distinct().count();
        if (plan.mergeNeed() != null) {
            if (distinct > 1) {
                throw mergeRefusal(plan, lookup.partitions().length);
            }
            return whereHomeRowsSay(plan, lookup, keys, byPartition, params, c);
        }
        if (distinct > 1) {
            // Counting cannot tell which of several keys a first try at the cache's partitions missed
            // (and a key changed there may have moved since): where they live first, under lock.
            c.atomic();
            return whereHomeRowsSay(plan, lookup, keys, byPartition, params, c);
        }
        return validated(plan, lookup, keys, byPartition, lookup.unique() ? distinct : 1, params, c);
    }

    /** A write that names no keys: where a secondary lookup's entries say ({@code bySecondary}), else on every partition. */
    private Result unkeyed(Plan.Routed plan, List<Value> params, Connections c, boolean bySecondary) throws SQLException {
        if (bySecondary && plan.secondary() != null) {
            var partitions = Target.viaSecondary(new Context(params, shards(c), stats), plan.table(), plan.secondary());
            if (partitions != null) return run(plan, Routes.wholeOn(plan, partitions.partitions(), params), c);
        }
        stats.broadcast(plan.table().partitioning());
        return run(plan, Routes.wholeOn(plan, plan.table().partitioning().partitions(), params), c);
    }

    /** Runs the write for {@code keys} where their home rows say they live, while those rows are locked ({@link HomeRows}). */
    private Result.Count whereHomeRowsSay(Plan.Routed plan, Partitioning.LookedUp lookup, Object[] keys, Map<Integer, List<Integer>> guessed,
                                          List<Value> params, Connections c)
            throws SQLException {
        Shards shards = shards(c);
        try (var locks = new HomeRows.Locks(shards)) {
            HomeRows home = HomeRows.lock(locks, shards, plan.table(), lookup, keys);
            home.learn(keys, stats);
            var located = home.byPartition(keys);
            if (!located.equals(guessed)) stats.fallback(lookup, new int[0]); // not where the cache pointed
            if (home.anyReplicated(keys)) return onEveryReplica(plan, lookup, keys, params, c);
            return run(plan, Routes.cut(plan, located, params), c);
        }
    }

    /**
     * The partitions of {@code lookup}'s group that hold rows of a replicated key (a copy, or the primary), as {@code c}
     * reads them (inside a REPEATABLE READ transaction, its snapshot: one committed since is caught by the placement
     * triggers, and the write refused).
     */
    private java.util.Set<Integer> holdingCopies(Partitioning.LookedUp lookup, Connections c) throws SQLException {
        if (backends.noReplicatedKeys(lookup.owner())) return java.util.Set.of(); // nothing to ask: the group has a secondary lookup
        var checks = new ArrayList<ShardQuery>();
        for (int p : lookup.partitions()) {
            checks.add(new ShardQuery(p, PlacementRows.anyReplicatedSql(lookup.owner(), backends.catalog().partition(p).name()), List.of()));
        }
        var holding = new java.util.TreeSet<Integer>();
        var answers = shards(c).query(checks);
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
    private Result.Count onEveryCopyUnkeyed(Plan.Routed plan, Partitioning.LookedUp lookup, java.util.Set<Integer> holding, List<Value> params,
                                            Connections c) throws SQLException {
        if (plan.mergeNeed() != null) throw mergeRefusal(plan, lookup.partitions().length);
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
        if (IGNORING.matcher(plan.sql()).lookingAt()) {
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
            counting.add(new ShardQuery(p, CopySplit.restricted(plan.sql(), lookup.owner(), lookup.column(), name, false), params));
            copies.add(new ShardQuery(p, CopySplit.restricted(plan.sql(), lookup.owner(), lookup.column(), name, true), params));
        }
        c.atomic();
        stats.broadcast(plan.table().partitioning());
        record(plain);
        record(counting);
        record(copies);
        long rows = 0;
        try {
            if (!plain.isEmpty()) {
                rows += sum(fanOut.update(SameOnEveryCopy.readsClock(plan.sql(), plan.table()) && backends.mariaDb()
                        ? SameOnEveryCopy.atOneTime(plain, SameOnEveryCopy.nowMicros()) : plain, c));
            }
            if (!counting.isEmpty()) rows += sum(splitOnEveryCopy(plan.table(), plan.sql(), counting, copies, c));
        } catch (SQLException e) {
            throw copiesRefusal(plan, e); // a partition that held no copies in the statement's snapshot holds some now
        }
        return new Result.Count(rows, plain.size() + counting.size() + copies.size());
    }

    /**
     * A write of keys of which one (or more) lives on several partitions: on all of them, in the statement's
     * transaction, with the home rows locked in it until it ends ({@link ReplicaWrites}). The count is the rows
     * matched at one partition per key, as one database would count them.
     */
    private Result.Count onEveryReplica(Plan.Routed plan, Partitioning.LookedUp lookup, Object[] keys, List<Value> params, Connections c)
            throws SQLException {
        if (plan.mergeNeed() != null) {
            throw new SQLException("Lutra does not support " + plan.mergeNeed() + " in a write of " + plan.table().name() + " rows whose key is"
                    + " replicated (SET PARTITION = (p1, p2)): the copies could pick different rows", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
        }
        SameOnEveryCopy.check(plan.sql(), plan.table(), backends.mariaDb());
        requireSameSkips(plan, lookup);
        c.atomic();
        Shards shards = shards(c); // transactional now: the locks below last until the statement's transaction ends
        var locks = HomeRows.Locks.untilTransactionEnds(shards);
        HomeRows home = HomeRows.lock(locks, shards, plan.table(), lookup, keys);
        // a range's statement goes whole to each partition, where it would also match copies kept for other keys' primaries:
        // split there instead, or an UPDATE ... WHERE id BETWEEN would run twice on a copy (once for its own key, once as the copy)
        if (plan.keys() instanceof KeyMatch.Range) return splitOnEveryPartition(plan, lookup, holdingCopies(lookup, c), params, c);
        var sets = bySet(home, keys, (p, indexes) -> Routes.cut(plan, Map.of(p, indexes), params).getFirst());
        int statements = 0;
        for (var set : sets) {
            record(set.queries());
            statements += set.queries().size();
        }
        return new Result.Count(ReplicaWrites.sum(runOnEveryCopy(plan.table(), plan.sql(), sets, c)), statements);
    }

    /**
     * One key: runs where the lookup table points; if no row matched there (nothing changed), runs
     * again where the key's home row says it lives, under that row's lock ({@link HomeRows}).
     */
    private Result validated(Plan.Routed plan, Partitioning.LookedUp lookup, Object[] keys, Map<Integer, List<Integer>> primary,
                             long expected, List<Value> params, Connections c) throws SQLException {
        var first = Routes.cut(plan, primary, params);
        record(first);
        long count;
        try {
            count = sum(fanOut.update(first, c));
        } catch (SQLException e) {
            if (PlacementRows.misplaced(e) == null) throw e;
            count = -1; // the trigger refused: the key is replicated (its copies change together) — where its home row says
        }
        if (count >= expected) {
            return new Result.Count(count, first.size());
        }
        Result.Count second = whereHomeRowsSay(plan, lookup, keys, primary, params, c);
        return new Result.Count(second.count(), first.size() + second.partitions());
    }

    /**
     * Finds the partition that holds {@code key}'s owner row: where the lookup table points if the
     * row is there, else where the key's home row says (learned), else where a new key would go.
     */
    private int probe(Partitioning.LookedUp lookup, Object key, Connections c) throws SQLException {
        int guess = stats.locate(lookup, key);
        String sql = "SELECT 1 FROM `" + lookup.owner() + "` WHERE `" + lookup.ownerColumn() + "` = ? LIMIT 1";
        List<Value> params = List.of(KeyParams.toValue(key));
        if (fanOut.exists(List.of(new ShardQuery(guess, sql, params)), c)[0]) {
            return guess;
        }
        // not where the cache (or DEFAULT NEW) points: the key's home row says where it lives (no broadcast); the
        // placement trigger checks the insert there again
        stats.fallback(lookup, new int[0]);
        resolve(lookup, backends.catalog().table(lookup.owner()), List.of(key), c);
        int learned = lookup.table().get(key);
        return learned == LookupTable.MISSING ? lookup.placeNew(key) : learned;
    }

    private Result.Count run(Plan.Routed plan, List<ShardQuery> queries, Connections c) throws SQLException {
        if (queries.size() > 1 && plan.mergeNeed() != null) {
            throw mergeRefusal(plan, queries.size());
        }
        if (queries.size() > 1 && plan.setsInsertId()) {
            // MySQL's LAST_INSERT_ID() is the value of the last row it updated: which partition's is last is unknown
            throw Refusal.of("Lutra does not support LAST_INSERT_ID(expr) in an UPDATE over " + queries.size() + " partitions of table "
                    + plan.table().name() + "; pin the routing column '" + plan.table().partitioning().column() + "' to one value");
        }
        record(queries);
        if (queries.size() > 1) c.atomic();
        try {
            return new Result.Count(sum(fanOut.update(queries, c)), queries.size());
        } catch (SQLException e) {
            throw copiesRefusal(plan, e);
        }
    }

    /**
     * {@code e}, or, where the placement triggers refused a write of one copy of a replicated key's rows (a replication
     * committed after the statement's snapshot told it where copies are), the refusal that says so.
     */
    private static SQLException copiesRefusal(Plan.Routed plan, SQLException e) {
        if (PlacementRows.misplaced(e) == null || !(plan.table().partitioning() instanceof Partitioning.LookedUp)) return e;
        return new SQLException("Lutra does not support this UPDATE or DELETE of " + plan.table().name() + " rows of a replicated key"
                + " (SET PARTITION = (p1, p2)) replicated after this transaction's snapshot: run it again in a new transaction ("
                + e.getMessage() + ")", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE, e);
    }

    // ---- INSERT ---------------------------------------------------------------------------------

    private Result insert(Plan.Insert plan, List<Value> clientParams, Connections c) throws SQLException {
        var ids = autoIncrement.fill(plan, clientParams); // AUTO_INCREMENT ids into the parameters: rows route by them
        List<Value> params = ids.params();
        TableDef table = plan.table();
        var partitioning = table.partitioning();
        int rowCount = plan.rows().itemCount();
        var secondaryKeys = new ArrayList<Object[]>();
        for (var sv : plan.secondaries()) {
            var raw = new Object[rowCount];
            for (int row = 0; row < rowCount; row++) raw[row] = written(table, sv.lookup(), sv.perRow().get(row).resolve(params, ValueCodec::decode));
            Object[] perRow = sv.lookup().keys(table, raw); // the values a collation's cache lacks weighed in one round trip
            for (int row = 0; row < rowCount; row++) perRow[row] = secondaryKey(table, sv.lookup(), raw[row], perRow[row]);
            secondaryKeys.add(perRow);
        }
        boolean[] skip = new boolean[rowCount];
        if (plan.references() != null) {
            c.atomic(); // the parent rows read in share mode, and the rows that reference them, commit together
            skip = ForeignKeyChecks.insert(this, plan, params, c);
            c = ForeignKeyChecks.checksOff(c); // the router checked what the shards would check on their own partition only
        }
        if (partitioning instanceof Partitioning.Replicated r) {
            int[] all = kept(skip);
            if (all.length == 0) return ids.result(0, 0);
            var queries = new ArrayList<ShardQuery>();
            for (int p : r.partitions()) queries.add(new ShardQuery(p, plan.rows().render(all), plan.rows().params(params, all)));
            queries = new ArrayList<>(onEveryCopy(table, plan.rows().render(all), queries));
            record(queries);
            return ids.result(copiesAlike(table, queries, c), queries.size());
        }
        if (!secondaryKeys.isEmpty()) c.atomic(); // the rows and their entries (at their values' homes) commit together
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
            byPartition.computeIfAbsent(placeRow(partitioning, table, keys[row], c), p -> new ArrayList<>()).add(row);
        }
        c.trace().write(table.name(), keys);
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
            record(queries);
            queries.forEach(q -> touched.add(q.partition()));
            if (queries.size() > 1 || attempt > 1) c.atomic();
            long[] counts = fanOut.insert(queries, c);
            var misplaced = new ArrayList<Integer>();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == FanOut.MISPLACED) {
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
            var replicated = resolve(lookup, table, misplaced.stream().map(r -> keys[r]).distinct().toList(), c);
            if (!replicated.isEmpty()) {
                var copied = misplaced.stream().filter(r -> replicated.contains(keys[r])).toList();
                misplaced.removeAll(copied);
                count += insertOnEveryReplica(plan, params, lookup, keys, copied, touched, c);
            }
            byPartition = new LinkedHashMap<>();
            for (int row : misplaced) {
                byPartition.computeIfAbsent(placeRow(partitioning, table, keys[row], c), p -> new ArrayList<>()).add(row);
            }
            if (byPartition.isEmpty()) break;
        }
        for (int i = 0; i < secondaryKeys.size(); i++) {
            Object[] values = secondaryKeys.get(i);
            SecondaryEntries.write(shards(c), table, plan.secondaries().get(i).lookup(), SecondaryEntries.entriesOf(landed, row -> values[row]));
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
     * INSERT ... SELECT: one transaction (the session's, or one the router starts) holds the read and
     * every insert; all rows are read before the first goes in (MySQL reads its own target table as
     * before the statement), at most {@link SelectedRows#MAX_ROWS} rows and {@link SelectedRows#MAX_BYTES}.
     */
    private Result insertSelect(Plan.InsertSelect plan, List<Value> params, Connections c) throws SQLException {
        c.atomic();
        int isolation = c.isolation();
        var select = plan.select();
        if (isolation == java.sql.Connection.TRANSACTION_REPEATABLE_READ || isolation == java.sql.Connection.TRANSACTION_SERIALIZABLE) {
            if (plan.locking() == null) {
                throw Refusal.of("Lutra does not support this INSERT ... SELECT into " + plan.table().name() + " at REPEATABLE READ or SERIALIZABLE: InnoDB"
                        + " reads its rows with shared locks, and the router cannot read it as one locking read (" + plan.lockRefusal() + ")");
            }
            select = plan.locking();
        }
        var rows = SelectedRows.read(plan, select, new Context(params, shards(c), stats));
        long count = 0;
        int partitions = 0;
        var keys = new java.util.ArrayList<long[]>();
        var generated = new java.util.ArrayList<long[]>();
        for (int from = 0; from < rows.size(); from += org.lutra.plan.Plan.InsertSelect.BATCH) {
            var batch = rows.subList(from, Math.min(rows.size(), from + org.lutra.plan.Plan.InsertSelect.BATCH));
            var values = new ArrayList<Value>(batch.size() * plan.columns());
            for (var row : batch) values.addAll(row.getValuesList());
            var done = (Result.Count) insert(plan.batches().rows(batch.size()), values, c);
            count += done.count();
            partitions = Math.max(partitions, done.partitions());
            keys.add(done.keys());
            generated.add(done.generated());
        }
        // ON DUPLICATE KEY UPDATE: which rows went in and which updated is not known past one row (as for VALUES, see AutoIncrement)
        if (plan.upsert() && rows.size() != 1) return new Result.Count(count, partitions);
        return new Result.Count(count, partitions, concat(keys), concat(generated));
    }

    /**
     * UPDATE or DELETE whose subqueries run first: one transaction (the session's, or one the router starts) holds the
     * reads and the write. Where InnoDB reads a write's subqueries with shared locks — a DELETE's at every level, an
     * UPDATE's at REPEATABLE READ and SERIALIZABLE — the reads are locking reads: the latest rows, shared-locked until
     * the transaction ends (a writer of them waits, as on one MariaDB); an UPDATE's at READ COMMITTED and below plain
     * reads, which are the latest committed rows there too. A DELETE's subqueries the router cannot read as locking reads
     * (a UNION, nested subqueries) are read plainly below REPEATABLE READ, as before, and refused above.
     */
    private Result writeAfterSubqueries(Plan.WriteAfterSubqueries plan, List<Value> params, Connections c) throws SQLException {
        c.atomic();
        int isolation = c.isolation();
        boolean lockingLevel = isolation == java.sql.Connection.TRANSACTION_REPEATABLE_READ || isolation == java.sql.Connection.TRANSACTION_SERIALIZABLE;
        var subqueries = (lockingLevel || plan.delete()) && plan.locking() != null ? plan.locking() : lockingLevel ? null : plan.plain();
        if (subqueries == null) {
            throw Refusal.of("Lutra does not support this subquery inside UPDATE/DELETE of " + plan.table().name() + " at REPEATABLE READ or"
                    + " SERIALIZABLE yet: InnoDB reads it with shared locks, and the router cannot read it as a locking read (LOCK IN SHARE MODE)");
        }
        var ctx = new Context(params, shards(c), stats);
        SubqueryRounds.Bound bound;
        try {
            bound = SubqueryRounds.bind(plan.pieces(), subqueries, ctx, true /* in a write */);
        } finally {
            ctx.release();
        }
        return execute(plan.writes().write(bound.sql()), bound.params(), c);
    }

    private static long[] concat(List<long[]> parts) {
        return parts.stream().flatMapToLong(java.util.Arrays::stream).toArray();
    }

    /**
     * Rows whose key is replicated: inserted on every partition of the key's set, with the home rows locked in
     * the statement's transaction ({@link ReplicaWrites}); counted once. Returns the rows inserted.
     */
    private long insertOnEveryReplica(Plan.Insert plan, List<Value> params, Partitioning.LookedUp lookup, Object[] keys, List<Integer> rows,
                                      java.util.Set<Integer> touched, Connections c) throws SQLException {
        if (!plan.secondaries().isEmpty()) {
            throw new SQLException("Lutra does not support secondary lookups on " + plan.table().name() + " with replicated keys", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
        }
        String text = plan.rows().render(rows.stream().mapToInt(Integer::intValue).toArray());
        SameOnEveryCopy.check(text, plan.table(), backends.mariaDb());
        c.atomic();
        Shards shards = shards(c);
        var rowKeys = new Object[rows.size()];
        for (int i = 0; i < rowKeys.length; i++) rowKeys[i] = keys[rows.get(i)];
        HomeRows home = HomeRows.lock(HomeRows.Locks.untilTransactionEnds(shards), shards, plan.table(), lookup, rowKeys);
        var sets = bySet(home, rowKeys, (p, indexes) -> insertOf(plan, params, p, rows, indexes));
        for (var set : sets) {
            record(set.queries());
            set.queries().forEach(q -> touched.add(q.partition()));
        }
        return sum(runOnEveryCopy(plan.table(), text, sets, c));
    }

    /**
     * {@code queries}, one statement {@code sql} for each partition of a REPLICATED table, as every copy must run it
     * ({@link SameOnEveryCopy}): refused where the copies would differ, else at one time for all.
     */
    private List<ShardQuery> onEveryCopy(TableDef table, String sql, List<ShardQuery> queries) throws SQLException {
        if (queries.size() < 2) return queries;
        boolean mariaDb = backends.mariaDb();
        SameOnEveryCopy.check(sql, table, mariaDb);
        return mariaDb && SameOnEveryCopy.readsClock(sql, table) ? SameOnEveryCopy.atOneTime(queries, SameOnEveryCopy.nowMicros()) : queries;
    }

    /** Runs {@code queries}, one statement on each copy of a REPLICATED table, alike everywhere ({@link SameEffect}); the rows one copy counts. */
    private long copiesAlike(TableDef table, List<ShardQuery> queries, Connections c) throws SQLException {
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
    private long[] runOnEveryCopy(TableDef table, String sql, List<SameEffect.Copies> sets, Connections c) throws SQLException {
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
    private static List<SameEffect.Copies> bySet(HomeRows home, Object[] keys, java.util.function.BiFunction<Integer, List<Integer>, ShardQuery> statement) {
        var sets = new ArrayList<SameEffect.Copies>();
        for (var e : home.byReplicaSet(keys).entrySet()) {
            var queries = new ArrayList<ShardQuery>();
            for (int p : e.getKey()) queries.add(statement.apply(p, e.getValue()));
            sets.add(new SameEffect.Copies(queries));
        }
        return sets;
    }

    private static ShardQuery insertOf(Plan.Insert plan, List<Value> params, int partition, List<Integer> rows, List<Integer> indexes) {
        int[] chosen = indexes.stream().mapToInt(rows::get).toArray();
        return new ShardQuery(partition, plan.rows().render(chosen), plan.rows().params(params, chosen));
    }

    /**
     * Refuses an UPDATE IGNORE of a replicated key's rows on a table with a unique key that does not hold the routing column:
     * on one copy the new value may meet another key's row that only that partition holds, and MariaDB then skips the row
     * without a warning, counting it as found — the copies would differ with nothing to tell ({@link SameEffect}).
     */
    private static void requireSameSkips(Plan.Routed plan, Partitioning.LookedUp lookup) throws SQLException {
        if (!IGNORING.matcher(plan.sql()).lookingAt() || !plan.sql().stripLeading().regionMatches(true, 0, "UPDATE", 0, 6)) return;
        for (var key : org.lutra.catalog.UniqueKeys.of(plan.table())) {
            if (!key.holds(lookup.column())) {
                throw Refusal.of("UPDATE IGNORE of " + plan.table().name() + " rows whose key is replicated (SET PARTITION = (p1, p2)), with the unique key ("
                        + String.join(", ", key.parts()) + "): a copy could skip a row another copy changes, and the copies must stay identical;"
                        + " leave IGNORE out");
            }
        }
    }

    private static final java.util.regex.Pattern IGNORING = java.util.regex.Pattern.compile(
            "(?is)\\s*(?:UPDATE|DELETE)\\s+(?:LOW_PRIORITY\\s+)?(?:QUICK\\s+)?IGNORE\\b");

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
    private java.util.Set<Object> resolve(Partitioning.LookedUp lookup, TableDef table, List<Object> keys, Connections c) throws SQLException {
        var byHome = new LinkedHashMap<Integer, List<Object>>();
        for (Object k : keys) byHome.computeIfAbsent(lookup.placeNew(k), h -> new ArrayList<>()).add(k);
        var queries = new ArrayList<ShardQuery>();
        for (var e : byHome.entrySet()) {
            queries.add(new ShardQuery(e.getKey(), PlacementRows.resolveSql(lookup.owner(), e.getValue().size()),
                    e.getValue().stream().map(KeyParams::toValue).toList()));
        }
        var away = new java.util.HashMap<Object, Integer>();
        var replicated = new java.util.HashSet<Object>();
        for (RowSource answer : fanOut.query(queries, c)) {
            try (RowSource rows = answer) {
                org.lutra.protocol.Row row;
                while ((row = rows.next()) != null) {
                    Object key = table.key(ValueCodec.decode(row.getValues(0)));
                    String partitions = row.getValues(1).getStringValue();
                    away.put(key, backends.catalog().partitionNamed(partitions.split(",")[0]).id());
                    if (PlacementRows.replicated(partitions)) replicated.add(key);
                }
            }
        }
        for (Object k : keys) {
            lookup.table().put(k, away.getOrDefault(k, lookup.placeNew(k)));
            stats.learn(lookup);
        }
        return replicated;
    }

    private int placeRow(Partitioning partitioning, TableDef table, Object key, Connections c) throws SQLException {
        if (partitioning instanceof Partitioning.LookedUp lookup) {
            int cached = lookup.table().get(key);
            if (cached != LookupTable.MISSING) {
                stats.hit(lookup, key);
                return cached;
            }
            // A new owner key goes where every router puts new keys; a SAME AS row goes to its owner (the probe counts the miss).
            if (!lookup.owner().equalsIgnoreCase(table.name())) return probe(lookup, key, c);
            stats.missed(lookup, key);
            return lookup.placeNew(key);
        }
        int p = partitioning.placeNew(key);
        if (p == Partitioning.NONE) {
            throw new SQLException("Table has no partition for value " + key + " (" + table.name() + "." + partitioning.column() + ")", "HY000", 1526);
        }
        return p;
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static SQLException mergeRefusal(Plan.Routed plan, int partitions) {
        return Refusal.of("Lutra does not support " + plan.mergeNeed() + " over " + partitions + " partitions of table "
                + plan.table().name() + " yet (router-side merging); pin the routing column '" + plan.table().partitioning().column()
                + "' to one value");
    }

    private void record(List<ShardQuery> queries) {
        if (!queries.isEmpty()) stats.statement(ShardQuery.partitions(queries));
    }

    /** The rows not left out. */
    private static int[] kept(boolean[] skip) {
        int n = 0;
        for (boolean b : skip) if (!b) n++;
        int[] out = new int[n];
        for (int i = 0, k = 0; i < skip.length; i++) if (!skip[i]) out[k++] = i;
        return out;
    }

    private static int[] allRows(int n) {
        int[] all = new int[n];
        Arrays.setAll(all, i -> i);
        return all;
    }

    private static long sum(long[] counts) {
        long sum = 0;
        for (long c : counts) sum += c;
        return sum;
    }
}
