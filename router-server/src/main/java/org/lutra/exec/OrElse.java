package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.List;

/**
 * A plan and a slower one that answers the same statement: the first runs; if it refuses when it
 * opens (a {@link Refusal}), the second runs instead. Opening reads no rows for the client, so
 * nothing is answered twice.
 *
 * <p>Why at run time and not when planned: the first plan is a {@link Union} the router merges, and what it refuses is
 * known only once its branches have run. The types of a union's columns are what MySQL derives from each branch's
 * expressions over the tables' columns, sent with each branch's result columns (the catalog knows the columns as declared,
 * not the types of expressions such as {@code IF(a, b, 'x')} or {@code b + 0.5}); whether text mixes collations MySQL
 * would refuse, a backend's probe answers when the union runs ({@code UnionProbes}). Deciding it when planned would mean
 * deriving types and collations as MySQL does, for every expression it takes.
 */
public final class OrElse implements Operator {
    private final Operator first;
    private final Operator second;

    public OrElse(Operator first, Operator second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        try {
            return first.open(ctx);
        } catch (SQLException e) {
            if (!Refusal.is(e)) throw e;
            return second.open(ctx);
        }
    }

    @Override
    public String describe() {
        return "OrElse (the second where the first refuses)";
    }

    @Override
    public List<Operator> inputs() {
        return List.of(first, second);
    }
}
