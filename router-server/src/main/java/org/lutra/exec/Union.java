package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.merge.Values;
import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * UNION ALL / UNION of SELECTs, each planned on its own: the branches' rows one branch after the
 * other, duplicates removed for UNION. Column names come from the first branch, as in MySQL.
 * MySQL converts values when branches' column types differ (an INT branch under a VARCHAR one
 * answers text); the router does not, so such unions are refused. For UNION each branch also
 * returns a weight string per column, so text compares in its collation.
 */
public final class Union implements Operator {
    public static final int MAX_DISTINCT_ROWS = 1_000_000;

    private final List<Operator> branches;
    private final int[] paramCounts;
    private final boolean distinct;
    private final int visible;
    private final UnionCollations collations;

    /** UNION's duplicate rows: removed (UNION, UNION DISTINCT) or kept (UNION ALL). */
    public enum Duplicates { REMOVED, KEPT }

    public Union(List<Operator> branches, int[] paramCounts, Duplicates duplicates, int visible) {
        this(branches, paramCounts, duplicates, visible, null);
    }

    /**
     * @param paramCounts how many of the statement's parameters each branch takes, in order
     * @param visible     columns per branch the client sees, or -1 (as many as the first branch has);
     *                    when set, each branch returns as many weight columns after them
     * @param collations  where the weights are compared (visible set): the probe of the union's text collations, or null
     *                    where none can run (a union that compares text is then refused)
     */
    public Union(List<Operator> branches, int[] paramCounts, Duplicates duplicates, int visible, UnionCollations collations) {
        this.branches = List.copyOf(branches);
        this.paramCounts = paramCounts.clone();
        this.distinct = duplicates == Duplicates.REMOVED;
        this.visible = visible;
        this.collations = collations;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        var sources = new ArrayList<RowSource>();
        try {
            int from = 0;
            for (int i = 0; i < branches.size(); i++) {
                var params = ctx.params().subList(from, from + paramCounts[i]);
                from += paramCounts[i];
                sources.add(branches.get(i).open(ctx.with(params)));
            }
            List<Column> columns = new ArrayList<>(sources.getFirst().columns());
            for (int i = 1; i < sources.size(); i++) merge(columns, sources.get(i).columns(), i + 1);
            return new Rows(ctx, sources, columns, reweighing(ctx, columns));
        } catch (SQLException | RuntimeException e) {
            sources.forEach(RowSource::close);
            throw e;
        }
    }

    /**
     * The union's column types: equal types stay; integers of different widths (same signedness)
     * widen to the wider, character columns to VARCHAR of the longer, as MySQL's result does, the
     * values being the same; anything else MySQL would convert, so it is refused.
     */
    private void merge(List<Column> columns, List<Column> other, int branch) throws SQLException {
        if (columns.size() != other.size()) {
            throw new SQLException("The used SELECT statements have a different number of columns", "21000", 1222);
        }
        int n = visible < 0 ? columns.size() : visible;
        for (int c = 0; c < n; c++) {
            Column a = columns.get(c);
            Column b = other.get(c);
            if (a.getJdbcType() == b.getJdbcType() && a.getScale() == b.getScale() && a.getSigned() == b.getSigned()) {
                if (b.getPrecision() > a.getPrecision()) columns.set(c, a.toBuilder().setPrecision(b.getPrecision()).setDisplaySize(b.getDisplaySize()).build());
                if (b.getNullable() && !a.getNullable()) columns.set(c, columns.get(c).toBuilder().setNullable(true).build());
                continue;
            }
            int wa = integerWidth(a.getJdbcType());
            int wb = integerWidth(b.getJdbcType());
            if (wa > 0 && wb > 0 && a.getSigned() == b.getSigned()) {
                Column wider = wb > wa ? b : a;
                columns.set(c, wider.toBuilder().setLabel(a.getLabel()).setName(a.getName())
                        .setPrecision(Math.max(a.getPrecision(), b.getPrecision())).setNullable(a.getNullable() || b.getNullable()).build());
                continue;
            }
            if (Values.needsWeight(a) && Values.needsWeight(b) && !a.getTypeName().matches("(?i)ENUM|SET") && !b.getTypeName().matches("(?i)ENUM|SET")) {
                columns.set(c, a.toBuilder().setJdbcType(java.sql.Types.VARCHAR).setTypeName("VARCHAR")
                        .setPrecision(Math.max(a.getPrecision(), b.getPrecision())).setDisplaySize(Math.max(a.getDisplaySize(), b.getDisplaySize()))
                        .setNullable(a.getNullable() || b.getNullable()).build());
                continue;
            }
            throw Refusal.of("Lutra does not support a UNION whose branches differ in the type of column " + (c + 1) + " ('"
                    + a.getLabel() + "' is " + a.getTypeName() + ", branch " + branch + " gives " + b.getTypeName()
                    + "): MySQL would convert the values");
        }
    }

    /**
     * For each branch and text column whose item's collation is not the union column's, what weighs its values again in
     * the union column's (null where none is); null where no text is compared. A union of text the backend would refuse
     * for its collations (1271) is refused the same, UNION ALL too.
     */
    private TextWeights[][] reweighing(Context ctx, List<Column> columns) throws SQLException {
        int n = visible < 0 ? columns.size() : visible;
        boolean text = false;
        for (int c = 0; c < n; c++) text |= Values.needsWeight(columns.get(c));
        if (!text) return null;
        if (collations == null) {
            throw Refusal.of("Lutra does not support a UNION of text here: it learns the union's collations (or that MySQL would refuse to mix"
                    + " them) from a backend holding the tables it reads, or copies of them, and cannot for this one");
        }
        var found = collations.probe(ctx, ctx.params(), n);
        if (visible < 0) return null;
        var out = new TextWeights[branches.size()][];
        for (int c = 0; c < visible; c++) {
            if (!Values.needsWeight(columns.get(c))) continue;
            TextWeights weights = null;
            for (int b = 0; b < branches.size(); b++) {
                if (!found.differs(b, c)) continue;
                if (weights == null) weights = collations.weights(found, c);
                if (out[b] == null) out[b] = new TextWeights[visible];
                out[b][c] = weights;
            }
        }
        return out;
    }

    private static int integerWidth(int jdbcType) {
        return switch (jdbcType) {
            case java.sql.Types.TINYINT -> 1;
            case java.sql.Types.SMALLINT -> 2;
            case java.sql.Types.INTEGER -> 4;
            case java.sql.Types.BIGINT -> 8;
            default -> 0;
        };
    }

    @Override
    public String describe() {
        return distinct ? "Union (distinct)" : "Union all";
    }

    @Override
    public List<Operator> inputs() {
        return branches;
    }

    private final class Rows implements RowSource {
        private final Context ctx;
        private final List<RowSource> sources;
        private final List<Column> columns;
        /** Per branch, per column, what weighs its text again, or null (see {@link #reweighing}). */
        private final TextWeights[][] reweigh;
        private final ArrayDeque<Row> ready = new ArrayDeque<>();
        private final Set<String> seen = distinct ? new HashSet<>() : null;
        private int current;

        Rows(Context ctx, List<RowSource> sources, List<Column> columns, TextWeights[][] reweigh) {
            this.ctx = ctx;
            this.sources = sources;
            this.columns = columns;
            this.reweigh = reweigh;
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        @Override
        public Row next() throws SQLException {
            while (current < sources.size()) {
                Row r = nextOfBranch();
                if (r == null) {
                    sources.get(current++).close();
                    continue;
                }
                if (seen == null) return r;
                if (seen.add(key(r))) {
                    if (seen.size() > MAX_DISTINCT_ROWS) {
                        throw new SQLException("UNION over several partitions removes duplicates of at most " + MAX_DISTINCT_ROWS
                                + " distinct rows in the router", "HY001", 1038);
                    }
                    return r;
                }
            }
            return null;
        }

        /** The current branch's next row, its text weighed again where it must be, a batch of rows at a time. */
        private Row nextOfBranch() throws SQLException {
            if (!ready.isEmpty()) return ready.poll();
            TextWeights[] weights = reweigh == null ? null : reweigh[current];
            RowSource source = sources.get(current);
            if (weights == null) return source.next();
            var batch = new ArrayList<Row>();
            for (Row r; batch.size() < TextWeights.BATCH && (r = source.next()) != null; ) batch.add(r);
            for (int c = 0; c < weights.length; c++) {
                if (weights[c] == null) continue;
                var values = new ArrayList<String>(batch.size());
                for (Row r : batch) values.add(text(r.getValues(c)));
                weights[c].weigh(ctx, values);
            }
            for (Row r : batch) {
                var b = r.toBuilder();
                for (int c = 0; c < weights.length; c++) {
                    String v = weights[c] == null ? null : text(r.getValues(c));
                    if (v != null) b.setValues(visible + c, Value.newBuilder().setBytesValue(weights[c].weight(v)).build());
                }
                ready.add(b.build());
            }
            return ready.poll();
        }

        /** A text value as the router holds it, or null. */
        private static String text(Value v) throws SQLException {
            if (v.getKindCase() == Value.KindCase.STRING_VALUE) return v.getStringValue();
            if (Values.isNull(v)) return null;
            throw Refusal.of("Lutra does not support a UNION whose text column holds " + v.getKindCase() + " values to compare");
        }

        /** Equal rows (by MySQL's equality: numbers by value, text by weight) have equal keys. */
        private String key(Row r) {
            var sb = new StringBuilder();
            int n = visible < 0 ? columns.size() : visible;
            for (int c = 0; c < n; c++) {
                Value v = r.getValues(c);
                if (Values.isNull(v)) sb.append('N');
                else if (Values.needsWeight(columns.get(c)) && visible >= 0) sb.append('W').append(HexFormat.of().formatHex(r.getValues(n + c).getBytesValue().toByteArray()));
                else if (Values.isNumeric(v)) sb.append('D').append(Values.decimal(v).stripTrailingZeros().toPlainString());
                else if (v.getKindCase() == Value.KindCase.BYTES_VALUE) sb.append('B').append(HexFormat.of().formatHex(v.getBytesValue().toByteArray()));
                else sb.append('S').append(v.toString());
                sb.append('\u0001');
            }
            return sb.toString();
        }

        @Override
        public void close() {
            sources.forEach(RowSource::close);
        }
    }
}
