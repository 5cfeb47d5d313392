package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.lookup.LookupTable;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs plans: a dispatcher. A read's plan is an operator tree ({@link Operator}) it opens; a write's plan goes to the write
 * operator of its kind: {@link KeyedWrite} (the rows' routing keys named: validated as the paper's §3.2 protocol says),
 * {@link UnkeyedWrite} (no keys: a secondary lookup's partitions, or every partition), {@link ReplicaWrite} (every copy of
 * replicated rows), {@link ReferentialWrite}, {@link CopyLockReads}; INSERT with placement and INSERT ... SELECT are run here.
 * Lookup tables are caches (docs/architecture.md, "The validation protocol").
 */
public final class Executor {
    private final Backends backends;
    private final FanOut fanOut;
    private final Stats stats;
    private final RouterMetrics metrics;
    private final PlacementReport placementReport;
    private final AutoIncrement autoIncrement;
    private final ReplicaWrite replicas;
    private final KeyedWrite keyed;
    private final UnkeyedWrite unkeyed;

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
        this.replicas = new ReplicaWrite(stats, backends, fanOut);
        this.keyed = new KeyedWrite(stats, replicas);
        this.unkeyed = new UnkeyedWrite(stats, replicas);
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

    /** A write that names no keys: where a secondary lookup's entries say ({@code bySecondary}), else on every partition. */
    /** Runs the write for {@code keys} where their home rows say they live, while those rows are locked ({@link HomeRows}). */
    /** {@link #onEveryCopyUnkeyed} once the statement is checked (ORDER BY/LIMIT, {@link SameOnEveryCopy}). */
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

    private Result routedRows(Plan.Routed plan, List<Value> params, Connections c) throws SQLException {
        if (plan.table().partitioning() instanceof Partitioning.Replicated r) return replicas.onReplicatedTable(plan, r, params, c);
        Shards shards = shards(c);
        Object[] keys = Routes.keys(plan, params);
        c.trace().write(plan.table().name(), keys);
        if (keys == null) return unkeyed.run(plan, params, shards, c);
        return keyed.run(plan, keys, params, shards, c);
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
            queries = new ArrayList<>(replicas.onEveryCopy(table, plan.rows().render(all), queries));
            record(queries);
            return ids.result(replicas.copiesAlike(table, queries, c), queries.size());
        }
        // the rows in a transaction: their entries, committed aside or in it (SecondaryEntries.writeForWrittenRows), name
        // their partitions while the rows are written and not yet committed
        if (!secondaryKeys.isEmpty()) c.atomic();
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
            SecondaryEntries.writeForWrittenRows(shards(c), table, plan.secondaries().get(i).lookup(), SecondaryEntries.entriesOf(landed, row -> values[row]));
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
        for (int from = 0; from < rows.size(); from += org.lutra.exec.Plan.InsertSelect.BATCH) {
            var batch = rows.subList(from, Math.min(rows.size(), from + org.lutra.exec.Plan.InsertSelect.BATCH));
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
        var sets = ReplicaWrite.bySet(home, rowKeys, (p, indexes) -> insertOf(plan, params, p, rows, indexes));
        for (var set : sets) {
            record(set.queries());
            set.queries().forEach(q -> touched.add(q.partition()));
        }
        return Writes.sum(replicas.runOnEveryCopy(plan.table(), text, sets, c));
    }

    /** Runs {@code queries}, one statement on each copy of a REPLICATED table, alike everywhere ({@link SameEffect}); the rows one copy counts. */
    /** {@link ReplicaWrites#runSplit}, at one time for every copy where {@code sql} reads the clock. */
    private static ShardQuery insertOf(Plan.Insert plan, List<Value> params, int partition, List<Integer> rows, List<Integer> indexes) {
        int[] chosen = indexes.stream().mapToInt(rows::get).toArray();
        return new ShardQuery(partition, plan.rows().render(chosen), plan.rows().params(params, chosen));
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

    private void record(List<ShardQuery> queries) {
        Writes.record(stats, queries);
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

}
