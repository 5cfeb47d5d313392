package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.merge.Values;
import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A join of tables that live on different partitions, in rounds: the outer side's rows first
 * (its own plan), a batch at a time; then the inner side with the batch's join keys bound as an
 * IN list, planned for that list (an IN on the inner table's routing column reaches only the
 * partitions holding those keys); the router pairs the rows. Join keys are integers and compare
 * by value; NULL keys match nothing; a LEFT JOIN keeps outer rows without a match, with NULLs.
 * Holds one batch of outer rows and their inner matches at a time.
 */
public final class JoinInRounds implements Operator {
    static final int BATCH = 1000;

    /** Plans the inner side's statement for a given IN-list length. */
    public interface InnerPlanner {
        Operator plan(int keys) throws SQLException;
    }

    /** What an outer row with no inner match gives: nothing (an inner join), or itself with NULLs for the inner columns. */
    public enum Kind { INNER, LEFT }

    /** Where an output column comes from: the outer or the inner row, and which column of it. */
    public record Pick(boolean inner, int column) {}

    private final Operator outer;
    private final int[] outerParams;
    private final int[] innerParams;
    private final int outerKey;
    private final InnerPlanner inner;
    private final int innerKey;
    private final boolean left;
    private final List<Pick> picks;

    /**
     * @param outerParams which of the statement's parameters the outer side takes, in its order
     * @param innerParams which the inner side takes (after its keys)
     */
    public JoinInRounds(Operator outer, int[] outerParams, int outerKey, InnerPlanner inner, int[] innerParams, int innerKey, Kind kind,
                        List<Pick> picks) {
        this.outer = outer;
        this.outerParams = outerParams.clone();
        this.innerParams = innerParams.clone();
        this.outerKey = outerKey;
        this.inner = inner;
        this.innerKey = innerKey;
        this.left = kind == Kind.LEFT;
        this.picks = List.copyOf(picks);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        List<Value> outerParamValues = java.util.Arrays.stream(outerParams).mapToObj(ctx.params()::get).toList();
        List<Value> innerParamValues = java.util.Arrays.stream(innerParams).mapToObj(ctx.params()::get).toList();
        RowSource outerRows = outer.open(ctx.with(outerParamValues));
        try {
            return new Joined(outerRows, innerParamValues, ctx);
        } catch (SQLException | RuntimeException e) {
            outerRows.close();
            throw e;
        }
    }

    @Override
    public String describe() {
        return "JoinInRounds " + (left ? "LEFT " : "") + "outer #" + outerKey + " = inner #" + innerKey + ", batches of " + BATCH;
    }

    @Override
    public List<Operator> inputs() {
        return List.of(outer);
    }

    private final class Joined implements RowSource {
        private final RowSource outerRows;
        private final List<Value> innerParams;
        private final Context ctx;
        private List<Column> columns;
        private final List<Row> pending = new ArrayList<>();
        private int next;
        private boolean outerDone;

        Joined(RowSource outerRows, List<Value> innerParams, Context ctx) throws SQLException {
            this.outerRows = outerRows;
            this.innerParams = innerParams;
            this.ctx = ctx;
            if (!Values.isInteger(outerRows.columns().get(outerKey))) {
                throw Refusal.of("Lutra joins across partitions on integer columns only yet ('" + outerRows.columns().get(outerKey).getLabel()
                        + "' is " + outerRows.columns().get(outerKey).getTypeName() + ")");
            }
            fill(); // the first round also tells the inner side's columns
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        @Override
        public Row next() throws SQLException {
            while (next >= pending.size()) {
                if (outerDone) return null;
                pending.clear();
                next = 0;
                fill();
            }
            return pending.get(next++);
        }

        /** One round: a batch of outer rows, their inner matches, the joined rows. */
        private void fill() throws SQLException {
            var batch = new ArrayList<Row>();
            Row r;
            while (batch.size() < BATCH && (r = outerRows.next()) != null) batch.add(r);
            if (batch.size() < BATCH) outerDone = true;
            var keys = new ArrayList<Value>();
            var seen = new java.util.HashSet<BigDecimal>();
            for (Row o : batch) {
                Value k = o.getValues(outerKey);
                if (!Values.isNull(k) && seen.add(Values.decimal(k).stripTrailingZeros())) keys.add(k);
            }
            Map<BigDecimal, List<Row>> matches = new HashMap<>();
            List<Column> innerColumns = null;
            if (!keys.isEmpty() || columns == null) {
                int size = Integer.highestOneBit(Math.max(1, keys.size()) * 2 - 1); // IN lists padded to a power of two: few plans
                var bound = new ArrayList<Value>(size + innerParams.size());
                bound.addAll(keys.isEmpty() ? List.of(Value.newBuilder().setIsNull(true).build()) : keys);
                while (bound.size() < size) bound.add(bound.getLast());
                bound.addAll(innerParams);
                try (RowSource innerRows = inner.plan(size).open(ctx.with(bound))) {
                    innerColumns = innerRows.columns();
                    Row i;
                    while ((i = innerRows.next()) != null) {
                        Value k = i.getValues(innerKey);
                        if (!Values.isNull(k)) matches.computeIfAbsent(Values.decimal(k).stripTrailingZeros(), x -> new ArrayList<>()).add(i);
                    }
                }
            }
            if (columns == null) columns = columns(outerRows.columns(), innerColumns);
            for (Row o : batch) {
                Value k = o.getValues(outerKey);
                List<Row> found = Values.isNull(k) ? List.of() : matches.getOrDefault(Values.decimal(k).stripTrailingZeros(), List.of());
                for (Row i : found) pending.add(pick(o, i));
                if (found.isEmpty() && left) pending.add(pick(o, null));
            }
        }

        private List<Column> columns(List<Column> outerColumns, List<Column> innerColumns) {
            var out = new ArrayList<Column>();
            for (Pick p : picks) {
                Column c = (p.inner() ? innerColumns : outerColumns).get(p.column());
                out.add(p.inner() && left ? c.toBuilder().setNullable(true).build() : c);
            }
            return Collections.unmodifiableList(out);
        }

        private Row pick(Row o, Row i) {
            var b = Row.newBuilder();
            for (Pick p : picks) {
                if (p.inner()) b.addValues(i == null ? Value.newBuilder().setIsNull(true).build() : i.getValues(p.column()));
                else b.addValues(o.getValues(p.column()));
            }
            return b.build();
        }

        @Override
        public void close() {
            outerRows.close();
        }
    }
}
