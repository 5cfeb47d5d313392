package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

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
    /** Rows written into a statement's temporary tables at most; beyond, the statement is refused. */
    public static final int MAX_ROWS = 1_000_000;
    private static final int ROWS_PER_INSERT = 500;
    /**
     * Rows of the outer statement read when it opens: a result this small gives its scratch connection back at once, so
     * that operators holding several such results open together (a union's branches) do not hold a connection each.
     */
    private static final int READ_AHEAD_ROWS = 1_000;

    /**
     * One temporary table.
     *
     * @param plan       the router's plan of its SELECT
     * @param sql        that SELECT's text
     * @param params     for each '?' in {@code sql}, the statement's parameter (0-based)
     * @param table      the temporary table's name
     * @param definition the CREATE TEMPORARY TABLE statement that makes it (a table's copy: the table's own definition), or
     *                   null: made from {@code sql} on the partition ({@code CREATE ... IGNORE AS SELECT ... LIMIT 0}, a derived
     *                   table's types as MySQL gives them)
     * @param columns    the columns the rows fill, as a list for INSERT (the SELECT's, in order), or null for all of them
     * @param copies     more temporary tables with the same rows, made from this one where it is (each use of a table in a
     *                   statement reads a table of its own: MySQL 8 cannot open one temporary table twice in a statement)
     */
    public record Derived(Operator plan, String sql, int[] params, String table, String definition, String columns, List<String> copies) {
        public Derived(Operator plan, String sql, int[] params, String table) {
            this(plan, sql, params, table, null, null, List.of());
        }

        public Derived {
            copies = List.copyOf(copies);
        }

        private List<String> tables() {
            var all = new ArrayList<String>(copies.size() + 1);
            all.add(table);
            all.addAll(copies);
            return all;
        }
    }

    /**
     * The column types of a set operation, which each branch's table is made like ({@code CREATE ... LIKE}): MySQL stores
     * every branch's rows into one table of the union's types, converting each value into them.
     *
     * @param table  the temporary table holding the types (no rows)
     * @param sql    a SELECT over the tables the branches read whose columns have those types ({@code LIMIT 0} is added)
     * @param params for each '?' in {@code sql}, the statement's parameter (0-based)
     */
    public record Types(String table, String sql, int[] params) {}

    private final int partition;
    private final Types types;
    private final List<Derived> derived;
    private final String outer;
    private final int[] outerParams;
    private final Map<String, String> shownAs;
    private final long maxRows;

    public Materialize(int partition, List<Derived> derived, String outer, int[] outerParams) {
        this(partition, derived, outer, outerParams, Map.of());
    }

    /**
     * @param shownAs for temporary tables that copy a table, that table's name: the result's columns name it as their table
     *                (MySQL's original table, which Connector/J's getTableName reports), not the copy
     */
    public Materialize(int partition, List<Derived> derived, String outer, int[] outerParams, Map<String, String> shownAs) {
        this(partition, derived, outer, outerParams, shownAs, MAX_ROWS);
    }

    /** @param maxRows the rows the statement's temporary tables may hold, {@link #MAX_ROWS} but in tests */
    Materialize(int partition, List<Derived> derived, String outer, int[] outerParams, Map<String, String> shownAs, long maxRows) {
        this(partition, null, derived, outer, outerParams, shownAs, maxRows);
    }

    private Materialize(int partition, Types types, List<Derived> derived, String outer, int[] outerParams, Map<String, String> shownAs, long maxRows) {
        this.partition = partition;
        this.types = types;
        this.derived = List.copyOf(derived);
        this.outer = outer;
        this.outerParams = outerParams.clone();
        this.shownAs = Map.copyOf(shownAs);
        this.maxRows = maxRows;
    }

    /**
     * A set operation over its branches' rows: each branch's table made like {@code types}' (the values converted into the
     * set operation's types as MySQL converts them), {@code outer} reading the tables by position; the result is labelled
     * as the first branch's rows are.
     */
    public static Materialize setOperation(int partition, Types types, List<Derived> branches, String outer, int[] outerParams) {
        return new Materialize(partition, types, branches, outer, outerParams, Map.of(), MAX_ROWS);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        Shards.Scratch scratch = ctx.shards().scratch(partition);
        var created = new ArrayList<String>();
        Dropping result;
        try {
            List<Column> typed = null;
            if (types != null) {
                created.add(types.table());
                scratch.execute("CREATE TEMPORARY TABLE `" + types.table() + "` IGNORE AS " + types.sql() + " LIMIT 0", pick(ctx.params(), types.params()));
                try (RowSource none = scratch.query("SELECT * FROM `" + types.table() + "`", List.of())) {
                    typed = none.columns();
                }
            }
            long[] total = {0};
            List<Column> first = null;
            for (Derived d : derived) {
                created.addAll(d.tables());
                var columns = fill(scratch, d, pick(ctx.params(), d.params()), ctx, total, maxRows, typed);
                if (first == null) first = columns;
                copy(scratch, d);
            }
            RowSource rows = scratch.query(outer, pick(ctx.params(), outerParams));
            ctx.touched(partition);
            result = new Dropping(rows, scratch, created, shownAs, types == null ? null : first);
        } catch (SQLException | RuntimeException e) {
            drop(scratch, created);
            scratch.close();
            throw e;
        }
        try {
            result.readAhead(READ_AHEAD_ROWS);
        } catch (SQLException | RuntimeException e) {
            result.close();
            throw e;
        }
        return result;
    }

    private static List<Value> pick(List<Value> params, int[] which) {
        var out = new ArrayList<Value>(which.length);
        for (int i : which) out.add(params.get(i));
        return out;
    }

    /**
     * @param total the rows the statement's temporary tables hold so far, counted on
     * @return the columns of {@code d}'s rows, as its plan gave them
     */
    private List<Column> fill(Shards.Scratch scratch, Derived d, List<Value> params, Context ctx, long[] total, long maxRows, List<Column> typed)
            throws SQLException {
        if (d.definition() != null) {
            scratch.execute(d.definition(), List.of());
        } else {
            // IGNORE: no row is stored, only the types taken; a conversion the optimizer meets while it evaluates a subquery
            // (a warning to the client's SELECT) is an error to a strict CREATE ... SELECT, not to one with IGNORE
            scratch.execute("CREATE TEMPORARY TABLE `" + d.table() + "` IGNORE AS SELECT * FROM (" + d.sql() + ") AS lutra_types LIMIT 0", params);
        }
        // a set operation stores each branch's values into its columns as MariaDB's own union does: out-of-range values
        // clamped, not refused (SELECT -3.1 UNION SELECT 58 answers 9.9 in the union's DECIMAL(2,1)), as INSERT IGNORE does
        String into = "INSERT " + (types == null ? "" : "IGNORE ") + "INTO `" + d.table() + "`" + (d.columns() == null ? "" : " (" + d.columns() + ")") + " VALUES ";
        try (RowSource rows = d.plan().open(ctx.with(params))) {
            int width = rows.columns().size();
            String placeholders = null;
            var batch = new ArrayList<Value>();
            int inBatch = 0;
            Row row;
            while ((row = rows.next()) != null) {
                if (placeholders == null) {
                    // at the first row: a value the router computed over merged groups tells its type
                    if (typed != null) convertible(rows.columns(), row, typed, d.sql());
                    placeholders = types == null ? placeholders(width) : typedPlaceholders(rows.columns());
                }
                batch.addAll(row.getValuesList());
                inBatch++;
                if (++total[0] > maxRows) {
                    throw Refusal.of("Lutra does not support copying more than " + maxRows + " rows into temporary tables for one statement"
                            + " over several partitions yet (" + d.sql() + " reached the bound): narrow what it reads, or run it on one partition");
                }
                if (inBatch == ROWS_PER_INSERT) {
                    insert(scratch, into, placeholders, inBatch, batch);
                    batch.clear();
                    inBatch = 0;
                }
            }
            if (inBatch > 0) insert(scratch, into, placeholders, inBatch, batch);
            return rows.columns();
        }
    }

    /**
     * Refuses a branch whose values MySQL would convert into the set operation's columns from more digits than its rows
     * show: a DECIMAL expression keeps its quotient's hidden digits (AVG(k) stored as text is 28.062500000, shown 28.0625),
     * a DOUBLE with fixed decimals is shown rounded to them. Stored into a column of the same type and scale, the value is
     * rounded as it is shown; a table's column has no hidden digits.
     */
    private static void convertible(List<Column> branch, Row first, List<Column> typed, String sql) throws SQLException {
        for (int i = 0; i < Math.min(branch.size(), typed.size()); i++) {
            Column b = branch.get(i);
            Column t = typed.get(i);
            boolean decimal = b.getJdbcType() == java.sql.Types.DECIMAL || b.getJdbcType() == java.sql.Types.NUMERIC;
            // a decimal the router computed over merged groups (COUNT(k) / SUM(k)) in a column typed by no shard: the
            // quotient's hidden digits are MariaDB's as they are an expression's
            boolean computed = !decimal && first.getValues(i).getKindCase() == Value.KindCase.DECIMAL_VALUE;
            int type = computed ? java.sql.Types.DECIMAL : b.getJdbcType();
            int scale = computed ? new java.math.BigDecimal(first.getValues(i).getDecimalValue()).scale() : b.getScale();
            if (t.getJdbcType() == type && t.getScale() == scale) continue;
            var field = org.lutra.backend.MysqlFields.current(b);
            boolean expression = computed || field == null || field.getOrgTable().isEmpty();
            decimal |= computed;
            boolean fixedDouble = (b.getJdbcType() == java.sql.Types.DOUBLE || b.getJdbcType() == java.sql.Types.FLOAT
                    || b.getJdbcType() == java.sql.Types.REAL) && b.getScale() > 0 && b.getScale() < 31;
            if (decimal && expression || fixedDouble) {
                throw Refusal.of("Lutra does not support a set operation whose column " + (i + 1) + " ('" + b.getLabel() + "', " + b.getTypeName()
                        + " in " + sql + ") MySQL converts to " + t.getTypeName() + " from digits its rows do not show, over several partitions yet");
            }
        }
    }

    private static String placeholders(int width) {
        return "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
    }

    /**
     * A row's placeholders with temporal values cast to their columns' types: they travel as text, and a set operation's
     * column of another type (a DATE under a VARCHAR) must get MySQL's conversion of the date, not the router's text.
     */
    private static String typedPlaceholders(List<Column> columns) {
        var out = new ArrayList<String>(columns.size());
        for (Column c : columns) {
            var field = org.lutra.backend.MysqlFields.current(c);
            int digits = field != null ? field.getDecimals() : c.getScale();
            // fractional digits past 6 are MySQL's "not fixed" (an expression's): the column's own text then
            out.add(digits < 0 || digits > 6 ? "?" : switch (c.getJdbcType()) {
                case java.sql.Types.DATE -> "CAST(? AS DATE)";
                case java.sql.Types.TIME -> "CAST(? AS TIME(" + digits + "))";
                case java.sql.Types.TIMESTAMP -> "CAST(? AS DATETIME(" + digits + "))";
                default -> "?";
            });
        }
        return "(" + String.join(", ", out) + ")";
    }

    private static void insert(Shards.Scratch scratch, String into, String row, int rows, List<Value> values) throws SQLException {
        scratch.execute(into + String.join(", ", Collections.nCopies(rows, row)), values);
    }

    /** The copies of {@code d}'s table, each made like it and filled from it on the partition: no row crosses the network again. */
    private static void copy(Shards.Scratch scratch, Derived d) throws SQLException {
        String columns = d.columns() == null ? "*" : d.columns();
        for (String c : d.copies()) {
            scratch.execute("CREATE TEMPORARY TABLE `" + c + "` LIKE `" + d.table() + "`", List.of());
            scratch.execute("INSERT INTO `" + c + "`" + (d.columns() == null ? "" : " (" + columns + ")") + " SELECT " + columns + " FROM `" + d.table() + "`", List.of());
        }
    }

    private static void drop(Shards.Scratch scratch, List<String> tables) {
        if (tables.isEmpty()) return;
        try {
            scratch.execute("DROP TEMPORARY TABLE IF EXISTS " + String.join(", ", tables.stream().map(t -> "`" + t + "`").toList()), List.of());
        } catch (SQLException ignored) {
            // the connection is evicted on failure, and its temporary tables go with it
        }
    }

    /** The outer rows; closing them drops the temporary tables and gives the connection back. */
    private static final class Dropping implements RowSource {
        private final RowSource rows;
        private final Shards.Scratch scratch;
        private final List<String> tables;
        private final List<Column> columns;
        private final java.util.ArrayDeque<Row> ahead = new java.util.ArrayDeque<>();
        private boolean closed;

        /** @param labels the columns whose labels the result's take, by position; null: the outer statement's own */
        Dropping(RowSource rows, Shards.Scratch scratch, List<String> tables, Map<String, String> shownAs, List<Column> labels) {
            this.rows = rows;
            this.scratch = scratch;
            this.tables = tables;
            var columns = new ArrayList<Column>();
            for (Column c : rows.columns()) {
                if (shownAs.containsKey(c.getTable())) c = c.toBuilder().setTable(shownAs.get(c.getTable())).build();
                if (labels != null && columns.size() < labels.size()) {
                    String label = labels.get(columns.size()).getLabel();
                    c = c.getName().equals(c.getLabel()) ? c.toBuilder().setLabel(label).setName(label).build() : c.toBuilder().setLabel(label).build();
                }
                columns.add(c);
            }
            this.columns = List.copyOf(columns);
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        /** Reads up to {@code most} rows ahead; where the result ends sooner, closes it (tables dropped, connection given back). */
        void readAhead(int most) throws SQLException {
            while (ahead.size() < most) {
                Row r = rows.next();
                if (r == null) {
                    close();
                    return;
                }
                ahead.add(r);
            }
        }

        @Override
        public Row next() throws SQLException {
            if (!ahead.isEmpty()) return ahead.poll();
            if (closed) return null;
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
        return "Materialize " + (types == null ? "" : "in the set operation's types ") + derived.stream().map(d -> d.copies().isEmpty() ? d.table() : d.table() + " (copied to " + String.join(", ", d.copies()) + ")").toList()
                + " on partition " + partition + ", then: " + outer;
    }

    @Override
    public List<Operator> inputs() {
        return derived.stream().map(Derived::plan).toList();
    }
}
