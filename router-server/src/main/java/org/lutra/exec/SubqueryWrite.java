package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;

/**
 * Runs {@link Plan.WriteAfterSubqueries}, an UPDATE or DELETE whose subqueries run first: one transaction (the session's,
 * or one the router starts) holds the reads and the write. Where InnoDB reads a write's subqueries with shared locks — a
 * DELETE's at every level, an UPDATE's at REPEATABLE READ and SERIALIZABLE — the reads are locking reads: the latest rows,
 * shared-locked until the transaction ends (a writer of them waits, as on one MariaDB); an UPDATE's at READ COMMITTED and
 * below plain reads, which are the latest committed rows there too. A DELETE's subqueries the router cannot read as
 * locking reads (a UNION, nested subqueries) are read plainly below REPEATABLE READ, as before, and refused above.
 */
final class SubqueryWrite {
    private SubqueryWrite() {}

    static Result.Count run(Plan.WriteAfterSubqueries plan, Context ctx) throws SQLException {
        Shards shards = ctx.shards();
        shards.atomic();
        int isolation = shards.isolation();
        boolean lockingLevel = isolation == java.sql.Connection.TRANSACTION_REPEATABLE_READ || isolation == java.sql.Connection.TRANSACTION_SERIALIZABLE;
        var subqueries = (lockingLevel || plan.delete()) && plan.locking() != null ? plan.locking() : lockingLevel ? null : plan.plain();
        if (subqueries == null) {
            throw Refusal.of("Lutra does not support this subquery inside UPDATE/DELETE of " + plan.table().name() + " at REPEATABLE READ or"
                    + " SERIALIZABLE yet: InnoDB reads it with shared locks, and the router cannot read it as a locking read (LOCK IN SHARE MODE)");
        }
        var reads = ctx.read(ctx.params());
        SubqueryRounds.Bound bound;
        try {
            bound = SubqueryRounds.bind(plan.pieces(), subqueries, reads, SubqueryRounds.SeveralRows.IN_PLACE /* in a write */);
        } finally {
            reads.release();
        }
        // the write planned for the text with the values bound: routed, validated and counted as any UPDATE or DELETE
        var write = (Plan.Writing) plan.writes().write(bound.sql());
        var writing = ctx.read(bound.params());
        try {
            return write.run(writing);
        } finally {
            writing.release();
        }
    }
}
