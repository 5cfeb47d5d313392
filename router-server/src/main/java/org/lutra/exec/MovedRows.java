package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.ValueCodec;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * An UPDATE of the routing column ({@link Plan.RowsMoved}, planned by {@code plan/RoutingUpdate}), in one transaction —
 * the session's, or one the router starts, committed two-phase where it wrote on several backends:
 * <ol>
 *   <li>the matched rows are read with their new values as a locking read: each stays locked until the transaction ends,
 *       so no other writer changes it between the read and its move;</li>
 *   <li>each is deleted by its old routing value and primary key (exactly that row, on the partition its old value
 *       routes to); where foreign keys the router enforces reference the table, with the shards' checks off: their
 *       children keep referencing the row, which the UPDATE keeps;</li>
 *   <li>the new rows are inserted through the INSERT path, which places each where its new value places it.</li>
 * </ol>
 * All deletes come before the first insert: a row whose new place is its old partition is written back there without
 * meeting itself on its primary key. A failure anywhere fails the statement's transaction, leaving nothing.
 */
final class MovedRows {
    private MovedRows() {}

    static Result.Count run(Plan.RowsMoved plan, Context statement) throws SQLException {
        Executor executor = statement.services().executor();
        Connections c = statement.connections();
        c.atomic();
        var ctx = statement.read(statement.params());
        List<Row> rows = SelectedRows.read(plan.read(), plan.columns() + 1 + keyColumns(plan), ctx, "an UPDATE of the routing column",
                "nothing was changed; update in parts (narrower WHERE clauses)");
        if (rows.isEmpty()) return new Result.Count(0, ctx.partitionsTouched());
        var moving = new ArrayList<Row>();
        var staying = new ArrayList<Row>();
        for (Row row : rows) (stays(plan, row) ? staying : moving).add(row);
        int partitions = ctx.partitionsTouched();
        try {
            partitions = Math.max(partitions, write(executor, plan, moving, staying, c));
        } catch (SQLException | RuntimeException e) {
            // rows may be deleted already: whatever failed (a backend, or the router refusing a new row's value), the
            // statement's writes must not commit without the rest — its transaction is failed, the session's or its own
            c.broken(e instanceof SQLException s ? s : new SQLException(e.getMessage(), "HY000", 1105, e));
            throw e;
        }
        return new Result.Count(rows.size(), partitions);
    }

    /** Deletes the moving rows, updates the staying ones in place, inserts the moving ones where they go; the partitions written. */
    private static int write(Executor executor, Plan.RowsMoved plan, List<Row> moving, List<Row> staying, Connections c) throws SQLException {
        int partitions = 0;
        Connections deletes = plan.checksOff() ? ForeignKeyChecks.checksOff(c) : c;
        for (Row row : moving) {
            var values = row.getValuesList();
            boolean nullKey = isNull(values.get(plan.columns()));
            var deleteParams = new ArrayList<Value>(values.subList(plan.columns() + (nullKey ? 1 : 0), values.size()));
            partitions = Math.max(partitions, one(executor, write(nullKey ? plan.nullKey() : plan.keyed()), deleteParams, deletes, plan, "move"));
        }
        for (Row row : staying) {
            if (plan.stays() == null) continue; // the SET assigns the routing column only: nothing changes
            var values = row.getValuesList();
            boolean nullKey = isNull(values.get(plan.columns()));
            var updateParams = new ArrayList<Value>();
            for (int i : plan.stays().assigned()) updateParams.add(values.get(i));
            updateParams.addAll(values.subList(plan.columns() + (nullKey ? 1 : 0), values.size()));
            partitions = Math.max(partitions, one(executor, write(nullKey ? plan.stays().nullKey() : plan.stays().keyed()), updateParams, c, plan, "update"));
        }
        for (int from = 0; from < moving.size(); from += Plan.InsertSelect.BATCH) {
            var batch = moving.subList(from, Math.min(moving.size(), from + Plan.InsertSelect.BATCH));
            var values = new ArrayList<Value>(batch.size() * plan.columns());
            for (Row row : batch) values.addAll(row.getValuesList().subList(0, plan.columns()));
            var done = (Result.Count) executor.execute(plan.inserts().rows(batch.size()), values, c);
            partitions = Math.max(partitions, done.partitions());
        }
        return partitions;
    }

    /** Runs a write of one row by its key; it must find that row, which the statement read and locked. */
    private static int one(Executor executor, Plan write, List<Value> params, Connections c, Plan.RowsMoved plan, String what) throws SQLException {
        var done = (Result.Count) executor.execute(write, params, c);
        if (done.count() != 1) {
            throw new SQLException("an UPDATE of the routing column of " + plan.table().name() + " found " + done.count() + " rows to " + what
                    + " where it had read and locked one", "HY000", 1105);
        }
        return done.partitions();
    }

    /**
     * Whether the row's routing column keeps exactly the value it holds: the new value, as the column stores it, equal to
     * the old one (a string that differs only as its collation compares, 'abc' for 'ABC', is written, so it moves). A
     * value the router cannot convert moves, and the INSERT path reports it.
     */
    private static boolean stays(Plan.RowsMoved plan, Row row) {
        var table = plan.table();
        String routing = table.partitioning().column();
        Value oldValue = row.getValues(plan.columns());
        Value newValue = row.getValues(plan.routingAt());
        if (isNull(oldValue) || isNull(newValue)) return isNull(oldValue) && isNull(newValue);
        try {
            Object old = ValueCodec.decode(oldValue);
            Object stored = InsertWrite.inserted(table, routing, ValueCodec.decode(newValue));
            return old != null && stored != null && (old.equals(stored) || old instanceof Number a && stored instanceof Number b
                    && new java.math.BigDecimal(a.toString()).compareTo(new java.math.BigDecimal(b.toString())) == 0);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean isNull(Value v) {
        return v.getKindCase() == Value.KindCase.KIND_NOT_SET || v.hasIsNull() && v.getIsNull();
    }

    /** The delete by key, without the router's own foreign key work: the row comes back, its children keep it. */
    private static Plan write(Plan delete) {
        return delete instanceof Plan.Routed routed ? routed.withoutReferences() : delete;
    }

    private static int keyColumns(Plan.RowsMoved plan) {
        return plan.keyed().paramCount() - 1;
    }
}
