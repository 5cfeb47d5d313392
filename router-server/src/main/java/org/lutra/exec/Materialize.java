package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.plan.ParamCounter;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Derived tables and common table expressions over several partitions: each one's rows come
 * from its own plan (the router's answer to that SELECT), are written into a temporary table on
 * one partition, and the outer statement — which reads only those tables — runs there. MySQL
 * itself then evaluates the outer query, so its ORDER BY, GROUP BY, window functions and
 * expressions are MySQL's own. The temporary table's columns are the types MySQL gives the
 * derived table: it is created from the derived SELECT with {@code LIMIT 0} on that partition.
 *
 * <p>Parameters: the statement's are laid out as its text has them — first each CTE's, then the
 * outer text's, a derived table's in its place among them.
 */
public final class Materialize implements Operator {
    /** Rows written into one temporary table at most; beyond, the statement is refused. */
    public static final int MAX_ROWS = 1_000_000;
    private static final int ROWS_PER_INSERT = 500;

    /**
     * One derived table or CTE reference.
     *
     * @param plan        the router's plan of its SELECT
     * @param sql         its SELECT's text, parameters numbered from its first
     * @param params      how many parameters it takes
     * @param cteOffset   a CTE's: where its parameters start among the statement's; a derived table's: -1 (in place)
     * @param table       the temporary table's name
     */
    public record Derived(Operator plan, String sql, int params, int cteOffset, String table) {}

    private final int partition;
    private final List<Object> parts; // String (outer text) or Derived (its table's name in the outer text), in text order
    private final int cteParams;

    public Materialize(int partition, List<Object> parts, int cteParams) {
        this.partition = partition;
        this.parts = List.copyOf(parts);
        this.cteParams = cteParams;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        Shards.Scratch scratch = ctx.shards().scratch(partition);
        var created = new ArrayList<String>();
        try {
            var sql = new StringBuilder();
            var outerParams = new ArrayList<Value>();
            int next = cteParams;
            for (Object part : parts) {
                if (part instanceof String text) {
                    int n = ParamCounter.countOf(text);
                    outerParams.addAll(ctx.params().subList(next, next + n));
                    next += n;
                    sql.append(text);
                    continue;
                }
                var d = (Derived) part;
                int from = d.cteOffset() >= 0 ? d.cteOffset() : next;
                List<Value> own = ctx.params().subList(from, from + d.params());
                if (d.cteOffset() < 0) next += d.params();
                fill(scratch, d, own, ctx);
                created.add(d.table());
                if (d.cteOffset() < 0) sql.append('`').append(d.table()).append('`');
            }
            RowSource rows = scratch.query(sql.toString(), outerParams);
            ctx.touched(partition);
            return new Dropping(rows, scratch, created);
        } catch (SQLException | RuntimeException e) {
            drop(scratch, created);
            scratch.close();
            throw e;
        }
    }

    private static void fill(Shards.Scratch scratch, Derived d, List<Value> params, Context ctx) throws SQLException {
        scratch.execute("CREATE TEMPORARY TABLE `" + d.table() + "` AS SELECT * FROM (" + d.sql() + ") AS lutra_types LIMIT 0", params);
        try (RowSource rows = d.plan().open(new Context(params, ctx.shards(), ctx.stats()))) {
            int width = rows.columns().size();
            var batch = new ArrayList<Value>();
            int inBatch = 0;
            long total = 0;
            Row row;
            while ((row = rows.next()) != null) {
                batch.addAll(row.getValuesList());
                inBatch++;
                if (++total > MAX_ROWS) {
                    throw new SQLException("Lutra does not support derived tables or common table expressions of more than " + MAX_ROWS
                            + " rows over several partitions yet", "0A000", 1235);
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
        var text = new StringBuilder();
        for (Object p : parts) {
            if (p instanceof String s) text.append(s);
            else if (((Derived) p).cteOffset() < 0) text.append('`').append(((Derived) p).table()).append('`');
        }
        return "Materialize " + derived().stream().map(Derived::table).toList() + " on partition " + partition + ", then: " + text;
    }

    private List<Derived> derived() {
        return parts.stream().filter(p -> p instanceof Derived).map(p -> (Derived) p).toList();
    }

    @Override
    public List<Operator> inputs() {
        return derived().stream().map(Derived::plan).toList();
    }
}
