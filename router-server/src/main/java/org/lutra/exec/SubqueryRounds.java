package org.lutra.exec;

import org.lutra.merge.RowSource;
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
 * IN — {@code left IN (?, ?, ...)}, or {@code 1 IN (0)} / {@code 1 NOT IN (0)} when the subquery
 * returned nothing (false / true whatever the left side is, as SQL says); EXISTS — TRUE or FALSE;
 * scalar — one {@code ?} (NULL for no row; more than one row is MySQL's error 1242).
 */
public final class SubqueryRounds implements Operator {
    /** At most this many values are bound from one subquery; beyond, the statement is refused. */
    public static final int MAX_VALUES = 10_000;

    public enum Kind { IN, NOT_IN, EXISTS, NOT_EXISTS, SCALAR }

    /**
     * @param plan       the subquery's own plan
     * @param params     how many of the statement's parameters (at this point in the text) the subquery takes
     * @param leftText   IN: the left operand's SQL text; else null
     */
    public record Subquery(Kind kind, Operator plan, int params, String leftText) {}

    /** Plans the outer statement's text once its subqueries became values. */
    public interface OuterPlanner {
        Operator plan(String sql) throws SQLException;
    }

    private final List<String> pieces;       // pieces.size() == subqueries.size() + 1
    private final List<Subquery> subqueries;
    private final OuterPlanner planner;

    public SubqueryRounds(List<String> pieces, List<Subquery> subqueries, OuterPlanner planner) {
        this.pieces = List.copyOf(pieces);
        this.subqueries = List.copyOf(subqueries);
        this.planner = planner;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        var sql = new StringBuilder();
        var params = new ArrayList<Value>();
        int next = 0; // the next of the statement's parameters
        for (int i = 0; i < subqueries.size(); i++) {
            String piece = pieces.get(i);
            int n = org.lutra.plan.ParamCounter.countOf(piece);
            params.addAll(ctx.params().subList(next, next + n));
            next += n;
            sql.append(piece);
            Subquery sub = subqueries.get(i);
            List<Value> values = values(sub, ctx.params().subList(next, next + sub.params()), ctx);
            next += sub.params();
            switch (sub.kind()) {
                case IN, NOT_IN -> {
                    String not = sub.kind() == Kind.NOT_IN ? " NOT" : "";
                    if (values.isEmpty()) {
                        sql.append("1").append(not).append(" IN (0)");
                    } else {
                        sql.append(sub.leftText()).append(not).append(" IN (").append(String.join(", ", Collections.nCopies(values.size(), "?"))).append(')');
                        params.addAll(values);
                    }
                }
                case EXISTS -> sql.append(values.isEmpty() ? "FALSE" : "TRUE");
                case NOT_EXISTS -> sql.append(values.isEmpty() ? "TRUE" : "FALSE");
                case SCALAR -> {
                    if (values.size() > 1) throw new SQLException("Subquery returns more than 1 row", "21000", 1242);
                    sql.append('?');
                    params.add(values.isEmpty() ? Value.newBuilder().setIsNull(true).build() : values.getFirst());
                }
            }
        }
        String last = pieces.getLast();
        int n = org.lutra.plan.ParamCounter.countOf(last);
        params.addAll(ctx.params().subList(next, next + n));
        sql.append(last);
        Operator outer = planner.plan(sql.toString());
        return outer.open(ctx.with(params));
    }

    private static List<Value> values(Subquery sub, List<Value> params, Context ctx) throws SQLException {
        try (RowSource rows = sub.plan().open(ctx.with(params))) {
            if (rows.columns().size() != 1 && sub.kind() != Kind.EXISTS && sub.kind() != Kind.NOT_EXISTS) {
                throw new SQLException("Operand should contain 1 column(s)", "21000", 1241);
            }
            var out = new ArrayList<Value>();
            Row r;
            while ((r = rows.next()) != null) {
                out.add(r.getValues(0));
                if (sub.kind() == Kind.EXISTS || sub.kind() == Kind.NOT_EXISTS || sub.kind() == Kind.SCALAR && out.size() > 1) break;
                if (out.size() > MAX_VALUES) {
                    throw new SQLException("Lutra does not support binding more than " + MAX_VALUES
                            + " values from a subquery over several partitions yet", "0A000", 1235);
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
