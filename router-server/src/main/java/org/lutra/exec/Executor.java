package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.backend.InsertIdReading;
import org.lutra.backend.Warnings;
import org.lutra.backend.WrittenPartitions;
import org.lutra.placement.IdBlocks;
import org.lutra.placement.SecondaryEntries;
import org.lutra.placement.Shards;
import org.lutra.backend.Backends;
import org.lutra.backend.SessionState;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

/**
 * Runs plans: a dispatcher. A read's plan is a tree of {@link Operator}s it opens; a write's plan a tree of {@link Write}s
 * ({@link Plan.Writing}) it runs; both with one {@link Context} per execution, through which the operators reach the
 * statement's connections and the router's {@link Services}. Lookup tables are caches (docs/architecture.md, "The validation
 * protocol").
 */
public final class Executor {
    private final Backends backends;
    private final FanOut fanOut;
    private final Stats stats;
    private final RouterMetrics metrics;
    private final PlacementReport placementReport;
    private final Services services;

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
        this.services = new Services(stats, backends, fanOut, this);
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
            case Plan.Query query -> {
                var ctx = new Context(params, services, connections);
                org.lutra.merge.RowSource rows;
                try {
                    rows = ctx.releasing(query.root().open(ctx));
                } catch (SQLException | RuntimeException e) {
                    ctx.release();
                    throw e;
                }
                yield new Result.Rows(rows, ctx.partitionsTouched());
            }
            case Plan.Writing write -> {
                var ctx = new Context(params, services, connections);
                try {
                    yield write.run(ctx);
                } finally {
                    ctx.release();
                }
            }
            case Plan.Explain explain -> ExplainStatement.run(this, explain, params, connections);
            case Plan.NoOp noOp -> new Result.Count(0, 0);
            case Plan.Rows rows -> ExplainStatement.textRows(rows.labels(), rows.rows());
            // the backend's part; the session puts in the values it keeps itself
            case Plan.SessionVariables v -> execute(new Plan.OnePartition(backends.catalog().partitions().getFirst().id(), v.sql()), params, connections);
            case Plan.OnePartition one -> {
                var queries = List.of(new ShardQuery(one.partition(), one.sql(), List.of()));
                Writes.record(stats, queries);
                yield new Result.Rows(fanOut.query(queries, connections).getFirst(), 1);
            }
        };
    }

    /** The shards as operators see them, over this statement's connections. */
    Shards shards(Connections connections) {
        return services.shards(connections);
    }

    /**
     * The entries a move must write for rows it copied to {@code to} (Mover's hook, inside the move's transaction):
     * every secondary lookup of {@code table}, the values of its column in {@code rows}.
     */
    public void moved(Connections t, TableDef table, String[] columns, List<Object[]> rows, int to) throws SQLException {
        SecondaryKeys.moved(shards(t), backends.catalog(), table, columns, rows, to);
    }
}
