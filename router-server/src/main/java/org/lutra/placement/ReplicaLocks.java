package org.lutra.placement;

import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.List;

/**
 * The REPLICATED tables a route's statement reads, as far as locking reads care. A REPLICATED table's row is one row with
 * a copy on each of its partitions: every write takes its lock on every copy, and every locking read takes it on the
 * table's first partition (a read of the table alone goes there), so two locking reads of a row meet as on one server. A
 * statement that reads the table on another partition — joined with a table placed otherwise, whose partitions it runs
 * on — would lock that partition's copy, where no other locking read looks: it would not wait for a {@code FOR UPDATE}
 * another transaction holds, nor hold one off. Such a locking read is refused ({@link #check}) rather than answered
 * without the lock.
 *
 * @param locked the REPLICATED tables a locking SELECT of the statement reads in its own FROM and JOINs: its clause locks
 *               their rows (not those of its subqueries and derived tables)
 * @param read   every REPLICATED table the statement reads anywhere: a SERIALIZABLE transaction locks every read
 */
public record ReplicaLocks(List<TableDef> locked, List<TableDef> read) {
    public static final ReplicaLocks NONE = new ReplicaLocks(List.of(), List.of());

    public ReplicaLocks {
        locked = List.copyOf(locked);
        read = List.copyOf(read);
    }

    /**
     * Refused (42000/1235) when the statement, routed by {@code driving}, would lock a REPLICATED table's rows on a partition
     * other than the table's first: whenever {@code driving} is placed otherwise (the partitions would depend on the keys;
     * the answer should not), else where the one partition a REPLICATED target reads (its first) is not the table's first.
     * Asked before the statement reads anything, home rows included.
     *
     * @param shards where the statement runs: whether every read there locks (a SERIALIZABLE transaction)
     */
    public void check(TableDef driving, Shards shards) throws SQLException {
        check(driving, shards.everyReadLocks());
    }

    /** As {@link #check(TableDef, Shards)}; {@code everyReadLocks}: the statement runs in a SERIALIZABLE transaction. */
    void check(TableDef driving, boolean everyReadLocks) throws SQLException {
        for (TableDef t : everyReadLocks ? read : locked) {
            int first = t.partitioning().partitions()[0];
            if (!(driving.partitioning() instanceof Partitioning.Replicated r) || r.partitions()[0] != first) {
                throw new SQLException("Lutra does not support a locking read (" + (everyReadLocks ? "every read of a SERIALIZABLE transaction"
                        : "FOR UPDATE, LOCK IN SHARE MODE") + ") of the REPLICATED table " + t.name() + " joined with tables placed otherwise, or"
                        + " on a partition other than its first: it would lock the copy there, where other locking reads of its rows do not"
                        + " look (they lock its first partition's); read " + t.name() + " in a statement of its own, or without the lock",
                        Refusal.SQL_STATE, Refusal.VENDOR_CODE);
            }
        }
    }
}
