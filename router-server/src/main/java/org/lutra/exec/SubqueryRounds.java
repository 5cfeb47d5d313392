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
 * Uncorrelated subqueries in rounds: each subquery runs first, through its own plan; its values
 * are then bound into the outer statement as parameters (never spliced into the text), and the
 * outer statement is planned for that shape (cached per number of values) and run. An IN over
 * the routing column then routes like a literal IN list.
 *
 * <p>The outer text is kept as pieces around one slot per subquery. A slot becomes, per kind:
 * IN — {@code left IN (?, ?, ...)}, or a nullable false / true when the subquery returned nothing
 * (whatever the left side is, as SQL says: {@code ((left) IN (NULL) AND FALSE)}, the left side still named); EXISTS — TRUE or FALSE;
 * scalar — one {@code ?} (NULL for no row; more than one row is MySQL's error 1242), cast to the
 * subquery's temporal type where it has one ({@code CAST(? AS DATE)}: a date compares and
 * computes as a date, not as the text it travels as).
 *
 * <p>A scalar subquery that is a select item of its own fills its column with the subquery's
 * value and the subquery's column type (nullable), as MySQL types {@code (SELECT ...)} by its
 * inner item; the outer statement's column keeps its label.
 */
public final class SubqueryRounds implements Operator {
    /** At most this many values are bound from one subquery; beyond, the statement is refused. */
    public static final int MAX_VALUES = 10_000;

    public enum Kind { IN, NOT_IN, EXISTS, NOT_EXISTS, SCALAR }

    /**
     * @param plan       the subquery's own plan
     * @param params     how many of the statement's parameters (at this point in the text) the subquery takes
     * @param leftText   IN: the left operand's SQL text; else null
     * @param column     scalar: the result column the subquery fills as a whole select item; else -1
     * @param perRow     in the select list or HAVING: MySQL evaluates it for each row or group, so a scalar's
     *                   error 1242 (several rows) comes only with the first row
     * @param inHaving   in HAVING: MySQL evaluates it for each group, whether or not the group passes
     */
    public record Subquery(Kind kind, Operator plan, int params, String leftText, int column, boolean perRow, boolean inHaving) {}

    /** Plans the outer statement's text once its subqueries became values. */
    public interface OuterPlanner {
        Operator plan(String sql) throws SQLException;
    }

    private final List<String> pieces;       // pieces.size() == subqueries.size() + 1
    private final List<Subquery> subqueries;
    private final OuterPlanner planner;
    private final SeveralRows severalRows;

    /**
     * What a scalar subquery of several rows becomes (one not evaluated per row or group: those fail with the first row).
     */
    public enum SeveralRows {
        /** MySQL's error 1242 now. */
        FAIL,
        /**
         * {@link #SEVERAL_ROWS} in its place, for an UPDATE's or DELETE's, or a query run inside each partition: each
         * partition raises 1242 exactly where one MariaDB would.
         */
        IN_PLACE
    }

    /** @param severalRows {@link SeveralRows#IN_PLACE} where the outer statement runs inside each partition */
    public SubqueryRounds(List<String> pieces, List<Subquery> subqueries, OuterPlanner planner, SeveralRows severalRows) {
        this.pieces = List.copyOf(pieces);
        this.subqueries = List.copyOf(subqueries);
        this.planner = planner;
        this.severalRows = severalRows;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        Bound bound = bind(pieces, subqueries, ctx, severalRows);
        Operator outer = planner.plan(bound.sql());
        RowSource rows = outer.open(ctx.with(bound.params()));
        var filled = bound.filled();
        if (bound.failOnFirstRow()) { // no row, no error; else MySQL's error with the first row
            RowSource outerRows = filled.isEmpty() ? rows : new Filled(rows, filled);
            return new RowSource() {
                @Override
                public List<Column> columns() {
                    return outerRows.columns();
                }

                @Override
                public Row next() throws SQLException {
                    if (outerRows.next() != null) throw tooManyRows();
                    return null;
                }

                @Override
                public void close() {
                    outerRows.close();
                }
            };
        }
        return filled.isEmpty() ? rows : new Filled(rows, filled);
    }

    /**
     * The outer statement once its subqueries ran: its text with each slot filled, and its parameters.
     *
     * @param filled         result column -> the scalar subquery's column and value, for whole select items
     * @param failOnFirstRow a per-row scalar returned several rows: MySQL's 1242 comes with the first row
     */
    public record Bound(String sql, List<Value> params, java.util.SortedMap<Integer, Scalar> filled, boolean failOnFirstRow) {}

    /**
     * A scalar that returned several rows, in a write or a query's WHERE run inside each partition: a subquery of no
     * table that returns two rows, so that each partition raises MySQL's 1242 exactly where one MariaDB evaluates the
     * scalar (only for a row that gets that far: {@code WHERE b = 100 AND a = (SELECT ...)} over no row with b = 100
     * changes nothing, returns nothing and raises nothing; {@code WHERE a = (SELECT ...) AND b = 100} raises it).
     */
    public static final String SEVERAL_ROWS = "(SELECT 1 UNION ALL SELECT 2)";

    /**
     * Runs each subquery (with its share of {@code ctx}'s parameters) and binds its values into the outer text.
     *
     * @param severalRows what a scalar of several rows (not one evaluated per row or group) becomes
     */
    public static Bound bind(List<String> pieces, List<Subquery> subqueries, Context ctx, SeveralRows severalRows) throws SQLException {
        var sql = new StringBuilder();
        var params = new ArrayList<Value>();
        var filled = new java.util.TreeMap<Integer, Scalar>(); // result column -> the subquery's column and value
        boolean failOnFirstRow = false;
        int next = 0; // the next of the statement's parameters
        for (int i = 0; i < subqueries.size(); i++) {
            String piece = pieces.get(i);
            int n = org.lutra.sql.ParamCounter.countOf(piece);
            params.addAll(ctx.params().subList(next, next + n));
            next += n;
            sql.append(piece);
            Subquery sub = subqueries.get(i);
            var column = new Column[1];
            List<Value> values = values(sub, ctx.params().subList(next, next + sub.params()), ctx, column);
            next += sub.params();
            switch (sub.kind()) {
                case IN, NOT_IN -> {
                    String not = sub.kind() == Kind.NOT_IN ? " NOT" : "";
                    if (values.isEmpty()) {
                        // false (NOT IN: true) whatever the left side is, and nullable as MySQL's IN (subquery) is; the left
                        // side stays, so that a name in it MariaDB cannot resolve is still its error (1054)
                        String left = "(" + sub.leftText() + ") IN (NULL)";
                        sql.append(sub.kind() == Kind.NOT_IN ? "(" + left + " OR TRUE)" : "(" + left + " AND FALSE)");
                    } else {
                        sql.append(sub.leftText()).append(not).append(" IN (").append(String.join(", ", Collections.nCopies(values.size(), "?"))).append(')');
                        params.addAll(values);
                    }
                }
                case EXISTS -> sql.append(values.isEmpty() ? "FALSE" : "TRUE");
                case NOT_EXISTS -> sql.append(values.isEmpty() ? "TRUE" : "FALSE");
                case SCALAR -> {
                    if (values.size() > 1 && severalRows == SeveralRows.IN_PLACE && !sub.perRow()) {
                        sql.append(SEVERAL_ROWS);
                        continue;
                    }
                    if (values.size() > 1 && !sub.perRow()) throw tooManyRows();
                    if (values.size() > 1 && sub.inHaving()) {
                        // one MariaDB raises 1242 at the first group that evaluates it, passing or not (a group the
                        // first value would filter out too), and not where an AND/OR before it decides first:
                        // which groups evaluate it, the router cannot tell from its merged groups
                        throw Refusal.of("Lutra does not support a scalar subquery in HAVING that returns more than 1 row yet"
                                + " (one MySQL answers error 1242 where a group evaluates it)");
                    }
                    if (values.size() > 1) failOnFirstRow = true;
                    Value value = values.isEmpty() ? Value.newBuilder().setIsNull(true).build() : values.getFirst();
                    sql.append(typed(column[0], org.lutra.merge.Values.isNull(value)));
                    params.add(value);
                    if (sub.column() >= 0) filled.put(sub.column(), new Scalar(column[0], value));
                }
            }
        }
        String last = pieces.getLast();
        int n = org.lutra.sql.ParamCounter.countOf(last);
        params.addAll(ctx.params().subList(next, next + n));
        sql.append(last);
        return new Bound(sql.toString(), params, filled, failOnFirstRow);
    }

    private static SQLException tooManyRows() {
        return new SQLException("Subquery returns more than 1 row", "21000", 1242);
    }

    public record Scalar(Column column, Value value) {}

    /**
     * The placeholder for a scalar value of {@code column}'s type: temporal values travel as text,
     * so they are cast back to their type; numbers and text are typed by the parameter itself, but a
     * NULL (no row) is of no type and changes the type of the expression around it, so a NULL of a
     * decimal or double column is cast to it ({@code IFNULL(-63, (SELECT AVG(a) ...))} over no rows
     * is -63.0000 on one MariaDB).
     */
    private static String typed(Column column, boolean isNull) {
        String type = column.getNativeType().isEmpty() ? column.getTypeName() : column.getNativeType();
        int fraction = Math.max(0, Math.min(6, column.getScale()));
        int scale = Math.max(0, Math.min(38, column.getScale()));
        int precision = Math.max(Math.max(1, scale), Math.min(65, column.getPrecision()));
        return switch (type.toUpperCase(java.util.Locale.ROOT)) {
            case "DATE" -> "CAST(? AS DATE)";
            case "DATETIME", "TIMESTAMP" -> "CAST(? AS DATETIME(" + fraction + "))";
            case "TIME" -> "CAST(? AS TIME(" + fraction + "))";
            case "DECIMAL", "NEWDECIMAL" -> isNull ? "CAST(? AS DECIMAL(" + precision + ", " + scale + "))" : "?";
            case "DOUBLE" -> isNull ? "CAST(? AS DOUBLE)" : "?";
            default -> "?";
        };
    }

    /** The outer rows with the columns of whole-item scalar subqueries as the subqueries typed them. */
    private static final class Filled implements RowSource {
        private final RowSource input;
        private final java.util.SortedMap<Integer, Scalar> filled;
        private final List<Column> columns;

        Filled(RowSource input, java.util.SortedMap<Integer, Scalar> filled) {
            this.input = input;
            this.filled = filled;
            var out = new ArrayList<>(input.columns());
            filled.forEach((i, s) -> {
                if (i < out.size()) {
                    var outer = out.get(i);
                    out.set(i, s.column().toBuilder().setName(outer.getName()).setLabel(outer.getLabel()).setTable(outer.getTable())
                            .setNullable(true).build());
                }
            });
            this.columns = List.copyOf(out);
        }

        @Override
        public List<Column> columns() {
            return columns;
        }

        @Override
        public Row next() throws SQLException {
            Row row = input.next();
            if (row == null) return null;
            var out = row.toBuilder();
            filled.forEach((i, s) -> {
                if (i < out.getValuesCount()) out.setValues(i, s.value());
            });
            return out.build();
        }

        @Override
        public void close() {
            input.close();
        }
    }

    private static List<Value> values(Subquery sub, List<Value> params, Context ctx, Column[] column) throws SQLException {
        try (RowSource rows = sub.plan().open(ctx.with(params))) {
            column[0] = rows.columns().isEmpty() ? Column.getDefaultInstance() : rows.columns().getFirst();
            if (rows.columns().size() != 1 && sub.kind() != Kind.EXISTS && sub.kind() != Kind.NOT_EXISTS) {
                throw new SQLException("Operand should contain 1 column(s)", "21000", 1241);
            }
            var out = new ArrayList<Value>();
            Row r;
            while ((r = rows.next()) != null) {
                out.add(r.getValues(0));
                if (sub.kind() == Kind.EXISTS || sub.kind() == Kind.NOT_EXISTS || sub.kind() == Kind.SCALAR && out.size() > 1) break;
                if (out.size() > MAX_VALUES) {
                    throw Refusal.of("Lutra does not support binding more than " + MAX_VALUES
                            + " values from a subquery over several partitions yet");
                }
            }
            return out;
        }
    }

    @Override
    public String describe() {
        return "SubqueryRounds " + subqueries.stream().map(s -> s.kind().name()).toList() + " then: " + String.join(" ? ", pieces);
    }

    @Override
    public List<Operator> inputs() {
        return subqueries.stream().map(Subquery::plan).toList();
    }
}
