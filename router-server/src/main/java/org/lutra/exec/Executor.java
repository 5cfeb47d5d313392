package org.lutra.exec;

import org.lutra.placement.IdBlocks;
import org.lutra.placement.SecondaryEntries;
import org.lutra.placement.Shards;
import org.lutra.backend.Backends;
import org.lutra.backend.SessionState;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs plans: a dispatcher. A read's plan is an operator tree ({@link Operator}) it opens; a write's plan goes to the write
 * operator of its kind: {@link KeyedWrite} (the rows' routing keys named: validated as the paper's §3.2 protocol says),
 * {@link UnkeyedWrite} (no keys: a secondary lookup's partitions, or every partition), {@link ReplicaWrite} (every copy of
 * replicated rows), {@link InsertWrite} (INSERT with placement), {@link InsertSelectWrite}, {@link ReferentialWrite},
 * {@link CopyLockReads}.
 * Lookup tables are caches (docs/architecture.md, "The validation protocol").
 */
public final class Executor {
    private final Backends backends;
    private final FanOut fanOut;
    private final Stats stats;
    private final RouterMetrics metrics;
    private final PlacementReport placementReport;
    private final ReplicaWrite replicas;
    private final KeyedWrite keyed;
    private final UnkeyedWrite unkeyed;
    private final InsertWrite inserts;
    private final InsertSelectWrite insertSelects;

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
        this.replicas = new ReplicaWrite(stats, backends, fanOut);
        this.keyed = new KeyedWrite(stats, replicas);
        this.unkeyed = new UnkeyedWrite(stats, replicas);
        this.inserts = new InsertWrite(stats, backends, replicas, new AutoIncrement(new IdBlocks(backends)),
                (plan, params, c) -> ForeignKeyChecks.insert(this, plan, params, c), this::shards);
        this.insertSelects = new InsertSelectWrite(stats, inserts, this::shards);
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
            case Plan.Insert insert -> inserts.run(insert, params, connections);
            case Plan.Routed routed when routed.references() != null -> ReferentialWrite.run(this, routed, params, connections);
            case Plan.Routed routed when routed.setsInsertId() -> settingInsertId(routed, params, connections);
            case Plan.InsertSelect insertSelect -> insertSelects.run(insertSelect, params, connections);
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
    static Object written(TableDef table, org.lutra.catalog.SecondaryLookup lookup, Object raw) {
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

    static Object secondaryKey(TableDef table, org.lutra.catalog.SecondaryLookup lookup, Object raw, Object key) throws SQLException {
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
        if (plan.table().partitioning() instanceof Partitioning.Replicated r) return replicas.onReplicatedTable(plan, r, params, c);
        Shards shards = shards(c);
        Object[] keys = Routes.keys(plan, params);
        c.trace().write(plan.table().name(), keys);
        if (keys == null) return unkeyed.run(plan, params, shards, c);
        return keyed.run(plan, keys, params, shards, c);
    }

    // ---- INSERT ---------------------------------------------------------------------------------

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
            bound = SubqueryRounds.bind(plan.pieces(), subqueries, ctx, SubqueryRounds.SeveralRows.IN_PLACE /* in a write */);
        } finally {
            ctx.release();
        }
        return execute(plan.writes().write(bound.sql()), bound.params(), c);
    }

    /** Runs {@code queries}, one statement on each copy of a REPLICATED table, alike everywhere ({@link SameEffect}); the rows one copy counts. */
    /** {@link ReplicaWrites#runSplit}, at one time for every copy where {@code sql} reads the clock. */
    // ---- helpers --------------------------------------------------------------------------------

    private void record(List<ShardQuery> queries) {
        Writes.record(stats, queries);
    }


}
