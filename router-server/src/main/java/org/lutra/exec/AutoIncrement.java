package org.lutra.exec;

import org.lutra.placement.IdBlocks;
import org.lutra.backend.ValueCodec;
import org.lutra.sql.AutoFill;
import org.lutra.sql.ValueRef;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts the ids of an INSERT's AUTO_INCREMENT column into its parameters before the executor
 * routes the rows ({@link AutoFill} says where): a new id from {@link IdBlocks} where the row
 * has none (or NULL or 0), the explicit one otherwise, which moves the counter past it. A row is
 * then routed by its id like any other, and every replica of a replicated table gets the same id.
 */
final class AutoIncrement {
    private static final long[] NONE = new long[0];

    private final IdBlocks blocks;

    AutoIncrement(IdBlocks blocks) {
        this.blocks = blocks;
    }

    /**
     * An INSERT's parameters with its ids in, and each row's id.
     *
     * @param params    the parameters as sent to partitions
     * @param rowIds    the column's value in each row, in row order
     * @param generated the ids the router made, in row order
     */
    record Filled(Plan.Insert plan, List<Value> params, long[] rowIds, long[] generated) {
        /** The statement's result: its count and, where it is known which rows went in, their ids. */
        Result.Count result(long count, int partitions) {
            if (plan.auto() == null) return new Result.Count(count, partitions);
            int rows = rowIds.length;
            // INSERT IGNORE may skip rows, ON DUPLICATE KEY UPDATE may update instead (counting 2 or 0): then which rows hold
            // which id is known only when every row went in (IGNORE: as many as rows; upsert: one row that counted 1)
            boolean allIn = plan.auto().upsert() ? rows == 1 && count == 1 : !plan.auto().ignore() || count == rows;
            return allIn ? new Result.Count(count, partitions, rowIds, generated) : new Result.Count(count, partitions);
        }
    }

    Filled fill(Plan.Insert plan, List<Value> clientParams) throws SQLException {
        AutoFill auto = plan.auto();
        if (auto == null) return new Filled(plan, clientParams, NONE, NONE);
        var params = new ArrayList<Value>(auto.sentParams(clientParams.size()));
        int client = 0;
        for (int i = 0, a = 0; i < auto.sentParams(clientParams.size()); i++) {
            if (a < auto.added().length && auto.added()[a] == i) {
                params.add(null); // filled below
                a++;
            } else {
                params.add(clientParams.get(client++));
            }
        }
        int rows = auto.perRow().size();
        long[] rowIds = new long[rows];
        boolean[] needs = new boolean[rows];
        int wanted = 0;
        long highestExplicit = Long.MIN_VALUE;
        for (int r = 0; r < rows; r++) {
            ValueRef ref = auto.perRow().get(r);
            Object value = ref instanceof ValueRef.Param p && params.get(p.index()) == null ? null : ref.resolve(params, ValueCodec::decode);
            if (value == null || isZero(value)) {
                needs[r] = true;
                wanted++;
            } else {
                rowIds[r] = explicitId(plan, value);
                highestExplicit = Math.max(highestExplicit, rowIds[r]);
            }
        }
        if (wanted > 0 && (auto.upsert() || auto.ignore() && rows > 1)) {
            // the planner refuses these when the text shows it; here a NULL or 0 came as a parameter
            throw Refusal.of((auto.upsert() ? "INSERT ... ON DUPLICATE KEY UPDATE" : "INSERT IGNORE of several rows") + " into "
                    + plan.table().name() + " with ids the router generates (" + auto.column() + " is AUTO_INCREMENT) is not supported; give the ids");
        }
        if (highestExplicit != Long.MIN_VALUE) blocks.written(plan.table(), auto.column(), highestExplicit);
        long[] generated = wanted == 0 ? NONE : blocks.next(plan.table(), auto.column(), wanted);
        for (int r = 0, g = 0; r < rows; r++) {
            if (!needs[r]) continue;
            rowIds[r] = generated[g++];
            params.set(((ValueRef.Param) auto.perRow().get(r)).index(), Value.newBuilder().setIntValue(rowIds[r]).build());
        }
        return new Filled(plan, params, rowIds, generated);
    }

    private static boolean isZero(Object value) {
        return value instanceof Number n && new BigDecimal(n.toString()).signum() == 0;
    }

    /** An explicit id as the column stores it ({@code 12.6} is 13); one that converts to 0 would ask the backend's own counter: refused. */
    private static long explicitId(Plan.Insert plan, Object value) throws SQLException {
        var stored = plan.table().stored(plan.auto().column(), value);
        if (stored != null && stored.value() instanceof Long id && !stored.refusedWhenStrict()) {
            if (id == 0) {
                throw Refusal.of("an id that " + plan.table().name() + "." + plan.auto().column() + " stores as 0 (" + value + "): MariaDB would take"
                        + " the next id of the partition's own counter, not the router's; give NULL for a generated id, or the id");
            }
            return id;
        }
        throw new SQLException("Incorrect integer value: '" + value + "' for column '" + plan.auto().column() + "' of table "
                + plan.table().name() + " (the router reports the ids of AUTO_INCREMENT columns, so it takes integers there)", "22007", 1366);
    }
}
