package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * The move fence: what keeps a scan of a lookup group (a read of several partitions that does not
 * name its keys, so {@link HomeRows} cannot pin them) from seeing a moving row on both partitions
 * or on neither.
 *
 * <p>A move batch commits its branches one after another (target first, see {@code maintain.Mover}).
 * A scan reads each partition in a snapshot of its own; if one snapshot is taken between the
 * target's commit and the source's and another one not, the scan counts the moved rows twice or
 * not at all. The fence is one row per lookup group in {@value #TABLE} on partition 0:
 * <ul>
 *   <li>a move batch locks its group's row <b>exclusively</b> from before its first branch commits
 *       until its last branch has committed ({@link #exclusive}), in a short transaction of its own;
 *   <li>a scan locks the row <b>shared</b> ({@link #shared}), starts a consistent snapshot on every
 *       partition it reads ({@code START TRANSACTION WITH CONSISTENT SNAPSHOT}: the snapshot exists
 *       when the statement returns), and only then releases the row ({@link FencedScan}).
 * </ul>
 * While a scan holds the row no move of the group is between its first and last commit, so every
 * snapshot of the scan is either before all of a batch's commits or after all of them: each row
 * is seen once.
 *
 * <p>Lock order, so that the fence adds no deadlock: a move takes the fence last, after every row
 * and home-row lock of its batch, and then only commits. A scan takes it first and, while it
 * holds it, only borrows connections and starts snapshots, which wait for no row lock. So a fence
 * holder never waits for what a fence waiter holds — except a locking scan ({@link LockingScan}), which holds
 * the fence while its queries wait for row locks: a batch waits for the fence only briefly and yields (rolls
 * back and is retried), see {@link Backends.Placement#YIELDING_LOCK_WAIT_SECONDS}.
 *
 * <p>Inside a transaction a partition's snapshot may be older than the scan (taken at the transaction's
 * first read there), so the fence alone does not make a scan exact: each partition also has a table
 * {@value #VERSIONS}, one row per group counting the move batches that committed there. A batch, once
 * it holds the fence, adds one on every partition it wrote, in its own transaction, so the count
 * commits with its rows. A scan in a transaction compares, under the shared fence, the count its
 * snapshot of a partition sees with the latest committed one: equal on every partition it reads, no
 * batch committed there since its snapshot, and none can commit until the fence is released
 * ({@link TransactionScan}). The rows are written only by fence holders, so no batch waits for another's.
 *
 * <p>The row is made on first use (a scan that finds none inserts it in a statement of its own and
 * locks it then; a move upserts it), so groups created by DDL after the router started need nothing more.
 * Every router uses the backends' row, so the fence works across routers.
 */
public final class MoveFence {
    public static final String TABLE = "lutra_move_fence";
    /**
     * On partition 0, the fence of locking statements ({@link LockingScan}): one row per lookup group, held shared by a
     * statement that reads or writes the latest rows until it is done. Such a statement may wait for a batch's row
     * locks while it holds it, so a batch takes it without waiting ({@code NOWAIT}): if one holds it, the batch rolls
     * back at once (its locks released: the statement goes on) and is retried, instead of waiting for a statement
     * that waits for it. Plain scans never wait for row locks while they hold {@link #TABLE}, so a batch waits for them.
     */
    public static final String LOCKING = "lutra_locking_fence";
    /** On every partition: per lookup group, how many move batches committed there. */
    public static final String VERSIONS = "lutra_move_version";

    /**
     * A move batch that holds the fence counts itself on a partition it wrote, in its transaction (parameter:
     * {@link #group}). Run in partition order: a first insert may wait for another group's batch on the
     * index gap, never the other way round at a second partition.
     */
    public static final String COUNT_BATCH = "INSERT INTO " + VERSIONS + " (owner, moves) VALUES (?, 1) ON DUPLICATE KEY UPDATE moves = moves + 1";

    /** The move batches of a group committed on a partition, as the reading snapshot sees them (parameter: {@link #group}; no row: none). */
    static final String BATCHES = "SELECT moves FROM " + VERSIONS + " WHERE owner = ?";

    /** A held fence: closing it (COMMIT) releases it. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private final Backends backends;
    private final Backends.Placement p0;

    public MoveFence(Backends backends) {
        this.backends = backends;
        this.p0 = backends.placement(0);
    }

    /** Creates the fence table on partition 0 and the batch counts on every partition, where they are missing. */
    public void install() throws SQLException {
        try (Connection c = p0.borrow(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (owner VARCHAR(64) NOT NULL PRIMARY KEY) ENGINE=InnoDB");
            st.execute("CREATE TABLE IF NOT EXISTS " + LOCKING + " (owner VARCHAR(64) NOT NULL PRIMARY KEY) ENGINE=InnoDB");
        }
        for (Backends.Placement p : backends.placements()) {
            try (Connection c = p.borrow(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS " + VERSIONS + " (owner VARCHAR(64) NOT NULL PRIMARY KEY, moves BIGINT NOT NULL) ENGINE=InnoDB");
            } catch (SQLException e) {
                throw Backends.located(p, e);
            }
        }
    }

    /**
     * The fence of {@code owner}'s group held exclusively (a move batch, from before its first commit
     * until its last): the upsert locks the row exclusively whether or not it existed. The batch waits for it
     * {@link Backends.Placement#YIELDING_LOCK_WAIT_SECONDS} at most: a locking statement holding it shared may be waiting for
     * the batch's rows ({@link #shared}); the batch then ends (1205, retried), not the statement.
     */
    public Held exclusive(String owner) throws SQLException {
        Connection c = p0.scratch().getConnection();
        try {
            p0.yieldLocks(c, true);
            try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + LOCKING + " (owner) VALUES (?)")) { // auto-commit, before the transaction
                ps.setString(1, name(owner));
                ps.executeUpdate();
            }
            try (Statement st = c.createStatement()) {
                st.execute("START TRANSACTION");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (owner) VALUES (?) ON DUPLICATE KEY UPDATE owner = VALUES(owner)")) {
                ps.setString(1, name(owner));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT owner FROM " + LOCKING + " WHERE owner = ? FOR UPDATE NOWAIT")) {
                ps.setString(1, name(owner));
                ps.executeQuery().close();
            } catch (SQLException busy) {
                // MariaDB answers NOWAIT with 1205, MySQL with 3572: the batch yields to a locking statement as to a lock wait
                throw busy.getErrorCode() == 3572 ? new SQLException("a locking statement holds the move fence of " + owner + ": the batch yields",
                        "HY000", 1205, busy) : busy;
            }
        } catch (SQLException e) {
            p0.scratch().evictConnection(c); // its server ends the transaction with the connection
            throw Backends.located(p0, e);
        }
        return () -> {
            try (Statement st = c.createStatement()) {
                st.execute("COMMIT");
                p0.yieldLocks(c, false);
                c.close();
            } catch (SQLException e) {
                p0.scratch().evictConnection(c); // the lock goes with the connection
            }
        };
    }

    /**
     * The fence of {@code owner}'s group held shared (a scan, until its snapshots exist), in a short
     * transaction of a scratch connection. A missing row is inserted first in a statement of its own:
     * two scans inserting it inside their locking transactions would deadlock on each other's gap lock.
     */
    static Held shared(Backends.Placement p0, String owner, Deadline deadline, SessionState variables) throws SQLException {
        return shared(p0, TABLE, owner, deadline, variables);
    }

    /** The locking statements' fence of {@code owner}'s group ({@link #LOCKING}) held shared, as {@link #shared}. */
    static Held locking(Backends.Placement p0, String owner, Deadline deadline, SessionState variables) throws SQLException {
        return shared(p0, LOCKING, owner, deadline, variables);
    }

    private static Held shared(Backends.Placement p0, String table, String owner, Deadline deadline, SessionState variables) throws SQLException {
        List<Value> key = List.of(Value.newBuilder().setStringValue(name(owner)).build());
        for (boolean inserted = false; ; inserted = true) {
            Shards.Scratch s = ScratchConnection.transaction(p0, deadline, variables);
            boolean found;
            try (RowSource rows = s.query("SELECT owner FROM " + table + " WHERE owner = ? LOCK IN SHARE MODE", key)) {
                found = rows.next() != null;
            } catch (SQLException | RuntimeException e) {
                s.close();
                throw e;
            }
            if (found) {
                var released = new java.util.concurrent.atomic.AtomicBoolean();
                return () -> {
                    if (released.compareAndSet(false, true)) s.close(); // once: the statement's end may close it again
                };
            }
            s.close();
            if (inserted) throw new SQLException("the move fence row of " + owner + " is missing on " + p0.name() + " right after it was inserted", "HY000", 0);
            try (var plain = new ScratchConnection(p0, deadline, variables)) {
                plain.execute("INSERT IGNORE INTO " + table + " (owner) VALUES (?)", key); // auto-commit: no gap lock held before it
            }
        }
    }

    /** The group's name in the fence's tables. */
    public static String group(String owner) {
        return name(owner);
    }

    private static String name(String owner) {
        return owner.toLowerCase(Locale.ROOT);
    }
}
