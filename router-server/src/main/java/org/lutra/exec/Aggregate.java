package org.lutra.exec;

import org.lutra.merge.RowOrder;
import org.lutra.merge.RowSource;
import org.lutra.merge.SortKey;
import org.lutra.merge.Values;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Combines per-partition partial aggregates into MySQL's answer. The input is sorted by the
 * group keys (a merge of the shards' {@code GROUP BY ... ORDER BY ...} results), so a group
 * ends when the keys change and the operator streams, holding one group at a time. Without
 * group keys the whole input is one group, and an empty input still yields one row (COUNT 0,
 * the rest NULL), as MySQL's scalar aggregates do.
 *
 * <p>The output row has the input's layout; each aggregate's column holds the final value
 * (an AVG's in its SUM column). Partial columns the client did not ask for are dropped by a
 * {@link Project} above.
 *
 * <p>WITH ROLLUP: after the last group of each run of equal leading keys comes that run's
 * super-aggregate row, the rolled-up keys NULL, down to the grand total — MySQL's order, since
 * the input is sorted by the keys. Every input row feeds its group and each enclosing run.
 *
 * <p>A DISTINCT aggregate (COUNT/SUM/AVG(DISTINCT x)) needs the shards to group by x as well:
 * then x is the last of the input's sort keys but not a group key, equal x values arrive
 * together, and each is counted once. Grouped by x, the shards return no row where no row
 * matches; for scalar aggregates the planner then gives a {@code noRows} plan, the shards'
 * partials over no rows, whose row stands for the empty input (its x set to NULL): MySQL computes
 * the other select items over a row of NULLs ({@code SELECT -71, SUM(DISTINCT c)}: -71).
 *
 * <p>A group's columns that are no aggregate (a select item outside aggregates) come from its first
 * input row. Without group keys, a partition where no row matches still answers one row, its items
 * computed over a row of NULLs; with a {@code rowCount} column (a partial COUNT(*)) they come from
 * the first input row that counts rows instead, as they would on one MySQL.
 */
public final class Aggregate implements Operator {
    /** How one output column is combined. */
    public enum Kind { COUNT, SUM, MIN, MAX, AVG, COUNT_DISTINCT, SUM_DISTINCT, AVG_DISTINCT, BIT_AND, BIT_OR, BIT_XOR, GROUP_CONCAT }

    /**
     * @param column      the partial's column (COUNT/SUM/MIN/MAX/BIT_*; AVG: the partial SUM), or x for a DISTINCT kind
     * @param countColumn AVG: the partial COUNT's column; GROUP_CONCAT: the column with the shards' group_concat_max_len; else -1
     * @param weight      MIN/MAX and DISTINCT kinds on text: the column with the value's weight string; else -1
     * @param separator   GROUP_CONCAT's separator; else null
     * @param exact       SUM/AVG: the column with the partial sum with all its digits ({@link ExactSum}); else -1
     */
    public record Aggregation(Kind kind, int column, int countColumn, int weight, String separator, int exact) {
        public Aggregation(Kind kind, int column, int countColumn, int weight) {
            this(kind, column, countColumn, weight, null);
        }

        public Aggregation(Kind kind, int column, int countColumn, int weight, String separator) {
            this(kind, column, countColumn, weight, separator, -1);
        }

        @Override
        public String toString() {
            return kind + "(#" + column + (countColumn >= 0 ? " / #" + countColumn : "") + (weight >= 0 ? ", weight #" + weight : "")
                    + (exact >= 0 ? ", exact #" + exact : "") + ")";
        }
    }

    private final Operator input;
    private final List<SortKey> groupKeys;
    private final List<Aggregation> aggregations;
    private final SortKey distinctKey;
    private final boolean rollup;
    private final Operator noRows;
    private final int rowCount;

    /** @param distinctKey the DISTINCT aggregates' argument x (with its weight column), or null */
    public Aggregate(Operator input, List<SortKey> groupKeys, List<Aggregation> aggregations, SortKey distinctKey) {
        this(input, groupKeys, aggregations, distinctKey, false, null, -1);
    }

    /**
     * As the constructor, and WITH ROLLUP's super-aggregate rows added (not with DISTINCT aggregates or GROUP_CONCAT: the planner
     * refuses those).
     */
    public static Aggregate withRollup(Operator input, List<SortKey> groupKeys, List<Aggregation> aggregations, SortKey distinctKey) {
        return new Aggregate(input, groupKeys, aggregations, distinctKey, true, null, -1);
    }

    /**
     * Aggregates without group keys: one row, whatever the input.
     *
     * @param noRows   one row of the input's layout that stands for an empty input (the shards' partials over
     *                 no rows), or null for NULLs (COUNT 0)
     * @param rowCount the column of a partial COUNT(*), or -1: the non-aggregated columns then come from the
     *                 first input row that counts rows
     */
    public static Aggregate scalar(Operator input, List<Aggregation> aggregations, SortKey distinctKey, Operator noRows, int rowCount) {
        return new Aggregate(input, List.of(), aggregations, distinctKey, false, noRows, rowCount);
    }

    private Aggregate(Operator input, List<SortKey> groupKeys, List<Aggregation> aggregations, SortKey distinctKey, boolean rollup,
                      Operator noRows, int rowCount) {
        this.noRows = noRows;
        this.rowCount = rowCount;
        this.input = input;
        this.groupKeys = List.copyOf(groupKeys);
        this.aggregations = List.copyOf(aggregations);
        this.distinctKey = distinctKey;
        this.rollup = rollup;
        if (rollup && (distinctKey != null || aggregations.stream().anyMatch(a -> a.kind() == Kind.GROUP_CONCAT))) {
            throw new IllegalArgumentException("WITH ROLLUP with DISTINCT aggregates or GROUP_CONCAT");
        }
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        RowSource rows = input.open(ctx);
        try {
            var columns = rows.columns();
            var groups = RowOrder.of(groupKeys, columns, "GROUP BY");
            var distinct = distinctKey == null ? null : RowOrder.of(List.of(distinctKey), columns, "DISTINCT aggregates");
            // MIN/MAX compare by weight string only where the value is text: a numeric expression's weight is NULL
            var effective = new ArrayList<Aggregation>(aggregations.size());
            for (var a : aggregations) {
                if (a.kind() == Kind.MIN || a.kind() == Kind.MAX) {
                    RowOrder.of(List.of(new SortKey(a.column(), false, a.weight())), columns, a.kind().name());
                    if (a.weight() >= 0 && !Values.needsWeight(columns.get(a.column()))) a = new Aggregation(a.kind(), a.column(), a.countColumn(), -1, null);
                }
                // the exact partial sums matter for DECIMAL sums only: a DOUBLE's sum stays a double
                if (a.exact() >= 0 && !isDecimal(columns.get(a.column()))) a = new Aggregation(a.kind(), a.column(), a.countColumn(), a.weight(), a.separator());
                effective.add(a);
            }
            var prefixes = new ArrayList<RowOrder>();
            if (rollup) {
                for (int k = 0; k < groupKeys.size(); k++) prefixes.add(RowOrder.of(groupKeys.subList(0, k), columns, "GROUP BY"));
            }
            return new Grouped(ctx, rows, outputColumns(columns), groups, distinct, effective, prefixes);
        } catch (SQLException | RuntimeException e) {
            rows.close();
            throw e;
        }
    }

    private List<Column> outputColumns(List<Column> in) {
        var out = new ArrayList<>(in);
        for (var a : aggregations) {
            Column c = in.get(a.column());
            switch (a.kind()) {
                case COUNT, COUNT_DISTINCT -> out.set(a.column(), c.toBuilder().setJdbcType(Types.BIGINT).setTypeName("BIGINT")
                        .setSigned(true).setScale(0).setPrecision(21).setDisplaySize(21).setNativeType("BIGINT").build());
                // MariaDB's SUM of integers is a DECIMAL (the argument's digits + 22)
                case SUM_DISTINCT -> out.set(a.column(), !isInteger(c) ? c : c.toBuilder().setJdbcType(Types.DECIMAL).setTypeName("DECIMAL")
                        .setSigned(true).setScale(0).setPrecision(c.getPrecision() + 22).setNativeType("DECIMAL").build());
                case AVG, AVG_DISTINCT -> out.set(a.column(), isApproximate(c) ? c
                        : c.toBuilder().setJdbcType(Types.DECIMAL).setTypeName("DECIMAL").setScale(c.getScale() + 4)
                          .setPrecision(c.getPrecision() + 4).build());
                default -> { }
            }
        }
        return out;
    }

    private static boolean isInteger(Column c) {
        return switch (c.getJdbcType()) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> true;
            default -> false;
        };
    }

    private static boolean isDecimal(Column c) {
        return c.getJdbcType() == Types.DECIMAL || c.getJdbcType() == Types.NUMERIC;
    }

    private static boolean isApproximate(Column c) {
        return switch (c.getJdbcType()) {
            case Types.DOUBLE, Types.FLOAT, Types.REAL -> true;
            default -> false;
        };
    }

    @Override
    public String describe() {
        return "Aggregate group by " + groupKeys + (rollup ? " with rollup" : "") + " " + aggregations
                + (distinctKey == null ? "" : " distinct " + distinctKey) + (rowCount < 0 ? "" : " items from a row counting #" + rowCount);
    }

    @Override
    public List<Operator> inputs() {
        return noRows == null ? List.of(input) : List.of(input, noRows);
    }

    private final class Grouped implements RowSource {
        private final Context ctx;
        private final RowSource input;
        private final List<Column> columns;
        private final RowOrder groups;
        private final RowOrder distinct;
        private final List<Aggregation> aggregations;
        /** WITH ROLLUP: for k = 0 .. keys-1, the order of the first k keys, and the run of rows sharing them. */
        private final List<RowOrder> prefixes;
        private final AggregateGroup[] runs;
        private final java.util.ArrayDeque<Row> ready = new java.util.ArrayDeque<>();
        private Row pending;
        private boolean started;
        private boolean emittedAny;
        private boolean done;

        Grouped(Context ctx, RowSource input, List<Column> columns, RowOrder groups, RowOrder distinct, List<Aggregation> aggregations,
                List<RowOrder> prefixes) {
            this.ctx = ctx;
            this.prefixes = prefixes;
            this.runs = new AggregateGroup[prefixes.size()];
            this.aggregations = aggregations;
            this.input = input;
            this.columns = columns;
            this.groups = groups;
            this.distinct = distinct;
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        @Override
        public Row next() throws SQLException {
            if (!ready.isEmpty()) return ready.poll();
            if (done) return null;
            if (!started) {
                started = true;
                pending = input.next();
            }
            if (pending == null) {
                done = true;
                if (!emittedAny && groupKeys.isEmpty()) {
                    emittedAny = true;
                    return noRows == null ? emptyScalarRow() : group(rowForNoRows()).finish();
                }
                return null;
            }
            var state = group(pending);
            feedRuns(pending);
            Row row;
            while ((row = input.next()) != null && groups.same(pending, row)) {
                state.add(row);
                feedRuns(row);
            }
            pending = row;
            emittedAny = true;
            Row group = state.finish();
            // the runs that end here, innermost first: each is one super-aggregate row
            for (int k = runs.length - 1; k >= 0 && (pending == null || !prefixes.get(k).same(runs[k].first(), pending)); k--) {
                ready.add(rolledUp(runs[k].finish(), k));
                runs[k] = null;
            }
            return group;
        }

        private AggregateGroup group(Row first) {
            return new AggregateGroup(first, aggregations, columns, distinct, distinctKey, rowCount);
        }

        private void feedRuns(Row row) {
            for (int k = 0; k < runs.length; k++) {
                if (runs[k] == null) runs[k] = group(row);
                else runs[k].add(row);
            }
        }

        /** A run's row: the keys after the first {@code k} (and their weights) are NULL. */
        private Row rolledUp(Row row, int k) {
            var out = row.toBuilder();
            for (SortKey key : groupKeys.subList(k, groupKeys.size())) {
                out.setValues(key.column(), NULL);
                if (key.weightColumn() >= 0) out.setValues(key.weightColumn(), NULL);
            }
            return out.build();
        }

        /** The {@code noRows} plan's row, its DISTINCT argument NULL (a value of no row is counted by no DISTINCT aggregate). */
        private Row rowForNoRows() throws SQLException {
            try (RowSource rows = noRows.open(ctx)) {
                Row row = rows.next();
                if (row == null) throw new SQLException("the shards' aggregates over no rows returned no row", "HY000");
                var out = row.toBuilder();
                if (distinctKey != null) {
                    out.setValues(distinctKey.column(), NULL);
                    if (distinctKey.weightColumn() >= 0) out.setValues(distinctKey.weightColumn(), NULL);
                }
                return out.build();
            }
        }

        private Row emptyScalarRow() {
            var out = new ArrayList<Value>();
            for (int i = 0; i < columns.size(); i++) out.add(NULL);
            for (var a : aggregations) {
                if (a.kind() == Kind.COUNT || a.kind() == Kind.COUNT_DISTINCT) out.set(a.column(), Value.newBuilder().setIntValue(0).build());
            }
            return Row.newBuilder().addAllValues(out).build();
        }

        @Override
        public void close() {
            input.close();
        }
    }

    private static final Value NULL = AggregateGroup.NULL;
}
