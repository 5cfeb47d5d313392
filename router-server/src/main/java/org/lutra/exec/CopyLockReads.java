package org.lutra.exec;

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

    static Result run(Executor executor, Plan.CopiesLockedFirst plan, List<Value> params, Connections c) throws SQLException {
        int isolation = c.isolation();
        if (plan.delete() || isolation == Connection.TRANSACTION_REPEATABLE_READ || isolation == Connection.TRANSACTION_SERIALIZABLE) {
            c.atomic();
            for (Plan.CopyLock lock : plan.locks()) {
                if (lock.read() == null) throw org.lutra.protocol.Refusal.of(lock.refusal());
            }
            for (Plan.CopyLock lock : plan.locks()) {
                int from = lock.firstParam();
                var result = (Result.Rows) executor.execute(lock.read(), params.subList(from, from + lock.read().paramCount()), c);
                try (RowSource rows = result.rows()) {
                    while (rows.next() != null) {
                        // the locks are what is wanted
                    }
                }
            }
        }
        return executor.execute(plan.write(), params, c);
    }
}
