package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Runs {@link Plan.CopiesLockedFirst}: where InnoDB would read the write's subqueries with shared locks — a DELETE's at every
 * isolation level, an UPDATE's at REPEATABLE READ and SERIALIZABLE (at READ COMMITTED and below its subqueries are
 * consistent reads) — the locking reads run first, in the write's transaction (one the router starts in auto-commit), on
 * the REPLICATED tables' first partitions; their rows are read and dropped, their locks held until the transaction ends.
 * Then the write runs in place, each partition reading its own copy, which no other transaction can change meanwhile: a
 * write of a REPLICATED row locks every copy, the first among them.
 */
final class CopyLockReads {
    private CopyLockReads() {}

    static Result.Count run(Plan.CopiesLockedFirst plan, Context ctx) throws SQLException {
        List<Value> params = ctx.params();
        int isolation = ctx.shards().isolation();
        if (plan.delete() || isolation == Connection.TRANSACTION_REPEATABLE_READ || isolation == Connection.TRANSACTION_SERIALIZABLE) {
            ctx.shards().atomic();
            for (Plan.CopyLock lock : plan.locks()) {
                if (lock.read() == null) throw org.lutra.protocol.Refusal.of(lock.refusal());
            }
            for (Plan.CopyLock lock : plan.locks()) {
                int from = lock.firstParam();
                var read = ctx.read(params.subList(from, from + lock.read().paramCount()));
                RowSource opened;
                try {
                    opened = read.releasing(lock.read().root().open(read));
                } catch (SQLException | RuntimeException e) {
                    read.release();
                    throw e;
                }
                try (RowSource rows = opened) {
                    while (rows.next() != null) {
                        // the locks are what is wanted
                    }
                }
            }
        }
        return ((Plan.Writing) plan.write()).run(ctx);
    }
}
