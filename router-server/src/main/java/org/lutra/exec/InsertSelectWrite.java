package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.placement.Shards;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * INSERT ... SELECT: one transaction (the session's, or one the router starts) holds the read and
 * every insert; all rows are read before the first goes in (MySQL reads its own target table as
 * before the statement), at most {@link SelectedRows#MAX_ROWS} rows and {@link SelectedRows#MAX_BYTES}.
 */
final class InsertSelectWrite {
    private InsertSelectWrite() {}

    /** Runs {@code plan} with the client's parameters (all the SELECT's), those of {@code ctx}. */
    static Result.Count run(Plan.InsertSelect plan, Context ctx) throws SQLException {
        Shards shards = ctx.shards();
        shards.atomic();
        int isolation = shards.isolation();
        var select = plan.select();
        if (isolation == java.sql.Connection.TRANSACTION_REPEATABLE_READ || isolation == java.sql.Connection.TRANSACTION_SERIALIZABLE) {
            if (plan.locking() == null) {
                throw Refusal.of("Lutra does not support this INSERT ... SELECT into " + plan.table().name() + " at REPEATABLE READ or SERIALIZABLE: InnoDB"
                        + " reads its rows with shared locks, and the router cannot read it as one locking read (" + plan.lockRefusal() + ")");
            }
            select = plan.locking();
        }
        var rows = SelectedRows.read(plan, select, ctx.read(ctx.params()));
        long count = 0;
        int partitions = 0;
        var keys = new java.util.ArrayList<long[]>();
        var generated = new java.util.ArrayList<long[]>();
        for (int from = 0; from < rows.size(); from += Plan.InsertSelect.BATCH) {
            var batch = rows.subList(from, Math.min(rows.size(), from + Plan.InsertSelect.BATCH));
            var values = new ArrayList<Value>(batch.size() * plan.columns());
            for (var row : batch) values.addAll(row.getValuesList());
            var done = InsertWrite.run(plan.batches().rows(batch.size()), ctx.read(values));
            count += done.count();
            partitions = Math.max(partitions, done.partitions());
            keys.add(done.keys());
            generated.add(done.generated());
        }
        // ON DUPLICATE KEY UPDATE: which rows went in and which updated is not known past one row (as for VALUES, see AutoIncrement)
        if (plan.upsert() && rows.size() != 1) return new Result.Count(count, partitions);
        return new Result.Count(count, partitions, concat(keys), concat(generated));
    }

    private static long[] concat(List<long[]> parts) {
        return parts.stream().flatMapToLong(java.util.Arrays::stream).toArray();
    }
}
