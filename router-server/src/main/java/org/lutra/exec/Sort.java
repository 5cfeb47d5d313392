package org.lutra.exec;

import org.lutra.merge.ListRows;
import org.lutra.merge.RowOrder;
import org.lutra.merge.RowSource;
import org.lutra.merge.SortKey;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Sorts rows the router computed itself (aggregated groups ordered by an aggregate, say) in
 * memory, up to a bound; past it the statement fails as MySQL does when it runs out of sort
 * memory, rather than taking the router's heap.
 */
public final class Sort implements Operator {
    public static final int MAX_ROWS = 1_000_000;

    private final Operator input;
    private final List<SortKey> keys;

    public Sort(Operator input, List<SortKey> keys) {
        this.input = input;
        this.keys = List.copyOf(keys);
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        try (RowSource rows = input.open(ctx)) {
            var order = RowOrder.of(keys, rows.columns(), "ORDER BY");
            var all = new ArrayList<Row>();
            Row r;
            while ((r = rows.next()) != null) {
                if (all.size() >= MAX_ROWS) {
                    throw new SQLException("Out of sort memory: the router sorts at most " + MAX_ROWS
                            + " rows of a statement over several partitions; add a WHERE clause or LIMIT", "HY001", 1038);
                }
                all.add(r);
            }
            all.sort(order); // stable: ties keep the order the groups came in
            return new ListRows(rows.columns(), all);
        }
    }

    @Override
    public String describe() {
        return "Sort " + keys;
    }

    @Override
    public List<Operator> inputs() {
        return List.of(input);
    }
}
