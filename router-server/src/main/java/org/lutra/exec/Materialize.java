package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Derived tables, common table expressions and tables of a join the router cannot merge, over
 * several partitions: each one's rows come from its own plan (the router's answer to that
 * SELECT), are written into a temporary table on one partition, and the outer statement — which
 * reads only those tables — runs there. MySQL itself then evaluates the outer query, so its
 * joins, ORDER BY, GROUP BY, window functions and expressions are MySQL's own. A temporary
 * table's columns are the types MySQL gives the derived table: it is created from the derived
 * SELECT with {@code LIMIT 0} on that partition.
 *
 * <p>Parameters: each SELECT names the statement's parameters it takes, in its own order (a
 * WHERE condition copied into a table's SELECT takes its parameters again).
 */
public final class Materialize implements Operator {
    /** Rows written into one temporary table at most; beyond, the statement is refused. */
    public static final int MAX_ROWS = 1_000_000;
    private static final int ROWS_PER_INSERT = 500;

    /**
     * One temporary table.
     *
     * @param plan   the router's plan of its SELECT
     * @param sql    that SELECT's text
     * @param params for each '?' in {@code sql}, the statement's parameter (0-based)
     * @param table  the temporary table's name
     */
    public record Derived(Operator plan, String sql, int[] params, String table) {}

    private final int partition;
    private final List<Derived> derived;
    private final String outer;
    private final int[] outerParams;

    public Materialize(int partition, List<Derived> derived, String outer, int[] outerParams) {
        this.partition = partition;
        this.derived = List.copyOf(derived);
        this.outer = outer;
        this.outerParams = outerParams.clone();
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        Shards.Scratch scratch = ctx.shards().scratch(partition);
        var created = new ArrayList<String>();
        try {
            for (Derived d : derived) {
                created.add(d.table());
                fill(scratch, d, pick(ctx.params(), d.params()), ctx);
            }
            RowSource rows = scratch.query(outer, pick(ctx.params(), outerParams));
            ctx.touched(partition);
            return new Dropping(rows, scratch, created);
        } catch (SQLException | RuntimeException e) {
            drop(scratch, created);
            scratch.close();
            throw e;
        }
    }

    private static List<Value> pick(List<Value> params, int[] which) {
        var out = new ArrayList<Value>(which.length);
        for (int i : which) out.add(params.get(i));
        return out;
    }

    private static void fill(Shards.Scratch scratch, Derived d, List<Value> params, Context ctx) throws SQLException {
        scratch.execute("CREATE TEMPORARY TABLE `" + d.table() + "` AS SELECT * FROM (" + d.sql() + ") AS lutra_types LIMIT 0", params);
        try (RowSource rows = d.plan().open(ctx.with(params))) {
            int width = rows.columns().size();
            var batch = new ArrayList<Value>();
            int inBatch = 0;
            long total = 0;
            Row row;
            while ((row = rows.next()) != null) {
                batch.addAll(row.getValuesList());
                inBatch++;
                if (++total > MAX_ROWS) {
                    throw Refusal.of("Lutra does not support materializing more than " + MAX_ROWS + " rows of a derived table, CTE or "
                            + "joined table over several partitions yet");
                }
                if (inBatch == ROWS_PER_INSERT) {
                    insert(scratch, d.table(), width, inBatch, batch);
                    batch.clear();
                    inBatch = 0;
                }
            }
            if (inBatch > 0) insert(scratch, d.table(), width, inBatch, batch);
        }
    }

    private static void insert(Shards.Scratch scratch, String table, int width, int rows, List<Value> values) throws SQLException {
        String row = "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
        scratch.execute("INSERT INTO `" + table + "` VALUES " + String.join(", ", Collections.nCopies(rows, row)), values);
    }

    private static void drop(Shards.Scratch scratch, List<String> tables) {
        for (String t : tables) {
            try {
                scratch.execute("DROP TEMPORARY TABLE IF EXISTS `" + t + "`", List.of());
            } catch (SQLException ignored) {
                // the connection is evicted on failure, and its temporary tables go with it
            }
        }
    }

    /** The outer rows; closing them drops the temporary tables and gives the connection back. */
    private static final class Dropping implements RowSource {
        private final RowSource rows;
        private final Shards.Scratch scratch;
        private final List<String> tables;
        private boolean closed;

        Dropping(RowSource rows, Shards.Scratch scratch, List<String> tables) {
            this.rows = rows;
            this.scratch = scratch;
            this.tables = tables;
        }

        @Override
        public List<Column> columns() {
            return rows.columns();
        }

        @Override
        public Row next() throws SQLException {
            Row r = rows.next();
            if (r == null) close();
            return r;
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            rows.close();
            drop(scratch, tables);
            scratch.close();
        }
    }

    @Override
    public String describe() {
        return "Materialize " + derived.stream().map(Derived::table).toList() + " on partition " + partition + ", then: " + outer;
    }

    @Override
    public List<Operator> inputs() {
        return derived.stream().map(Derived::plan).toList();
    }
}
