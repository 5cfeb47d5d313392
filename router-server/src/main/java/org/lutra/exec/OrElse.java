package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.List;

/**
 * A plan and a slower one that answers the same statement: the first runs; if it refuses when it
 * opens (a {@link Refusal}, a fact the planner could not see, such as branches of a UNION whose
 * column types differ), the second runs instead. Opening reads no rows for the client, so
 * nothing is answered twice.
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
