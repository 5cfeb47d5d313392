package org.lutra.placement;

import org.lutra.backend.BackendThreads;
import org.lutra.backend.Backends;
import org.lutra.backend.Deadline;
import org.lutra.backend.SessionState;
import org.lutra.backend.ShardQuery;
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
 * not at all. The fence is a reader-writer lock spread over the partitions: every partition has one
 * row per lookup group in {@value #TABLE}.
 * <ul>
 *   <li><b>a move batch (the writer)</b> locks its group's row <b>exclusively on every partition</b>, partition 0's
 *       first and then the others' at once, from before its first branch commits until its last branch has committed
 *       ({@link #exclusive}), each in a short transaction of its own on that partition;
 *   <li><b>a scan (a reader)</b> locks the row <b>shared on one partition</b>, any one ({@link #shared}; the
 *       caller picks one it uses anyway, so that readers spread over the partitions instead of queueing on one),
 *       starts a consistent snapshot on every partition it reads ({@code START TRANSACTION WITH CONSISTENT
 *       SNAPSHOT}: the snapshot exists when the statement returns), and only then releases the row
 *       ({@link FencedScan}).
 * </ul>
 * <b>Why a reader never sees a half-moved key:</b> a batch between its first and its last commit holds the
 * row exclusively on every partition, so on the one partition where a reader holds it shared, and the two
 * locks exclude each other. While a reader holds its row no batch of the group is between commits, so every
 * snapshot the reader takes meanwhile is either before all of a batch's commits or after all of them: each
 * row is seen once. Which partition the reader chose does not matter.
 *
 * <p><b>Several routers:</b> the rows are on the backends, and every router's batches take every partition's
 * row (the partitions of the shared configuration) and every router's readers one of them, so the fence holds
 * between routers as within one. Two batches of a group (of one router or several) never deadlock on the rows: each
 * waits for partition 0's row holding none, and takes the others only once it holds that one, so they queue there.
 *
 * <p>Lock order, so that the fence adds no deadlock: a move takes the fence last, after every row
 * and home-row lock of its batch, and then only commits. A scan takes its row first and, while it
 * holds it, only borrows connections, reads the router's own tables (a secondary lookup's entries) and starts
 * snapshots, none of which waits for a row lock. So a reader never waits for what a batch holds — except a
 * locking scan ({@link LockingScan}), which holds the fence while its queries wait for row locks: a batch takes
 * {@link #LOCKING} without waiting and yields (rolls back and is retried); and a statement of two groups, which
 * may hold one group's row on one partition while it waits behind a batch of the other group on another
 * partition: every wait of a batch for a fence row ends after {@link Backends.Placement#YIELDING_LOCK_WAIT_SECONDS}
 * (the batch rolls back, releasing every lock, and is retried), which breaks any such cycle.
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
 * <p>The row is made on first use (a reader that finds none inserts it in a statement of its own and
 * locks it then; a batch inserts the missing ones before it locks them), so groups created by DDL after
 * the router started need nothing more.
 */
public final class MoveFence {
    public static final String TABLE = "lutra_move_fence";
    /**
     * On every partition, the fence of locking statements ({@link LockingScan}): one row per lookup group, held shared (on one partition) by a
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
    public static final String BATCHES = "SELECT moves FROM " + VERSIONS + " WHERE owner = ?";

    /** Every group's count on a partition (one row per group a batch wrote there). */
    public static final String EVERY_BATCHES = "SELECT owner, moves FROM " + VERSIONS;

    /** A held fence: closing it (COMMIT) releases it. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private final Backends backends;
    /** "partition owner" of the fence rows this router's batches found in place: not inserted again. */
    private final java.util.Set<String> made = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public MoveFence(Backends backends) {
        this.backends = backends;
    }

    /** Creates the fence tables and the batch counts on every partition, where they are missing. */
    public void install() throws SQLException {
        for (Backends.Placement p : backends.placements()) {
            try (Connection c = p.borrow(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (owner VARCHAR(64) NOT NULL PRIMARY KEY) ENGINE=InnoDB");
                st.execute("CREATE TABLE IF NOT EXISTS " + LOCKING + " (owner VARCHAR(64) NOT NULL PRIMARY KEY) ENGINE=InnoDB");
                st.execute("CREATE TABLE IF NOT EXISTS " + VERSIONS + " (owner VARCHAR(64) NOT NULL PRIMARY KEY, moves BIGINT NOT NULL) ENGINE=InnoDB");
            } catch (SQLException e) {
                throw Backends.located(p, e);
            }
        }
    }

    /**
     * The fence of {@code owner}'s group held exclusively (a move batch, from before its first commit until its last):
     * its row locked on every partition, partition 0's first (holding nothing else meanwhile: two batches of the group
     * queue there), then the others' at once. Each wait for a row lasts
     * {@link Backends.Placement#YIELDING_LOCK_WAIT_SECONDS} at most: a locking statement holding it shared may be waiting
     * for the batch's rows ({@link #shared}); the batch then ends (1205, retried), not the statement. A failure releases
     * the rows already locked.
     */
    public Held exclusive(String owner) throws SQLException {
        var all = backends.placements();
        var held = new java.util.ArrayList<Held>();
        held.add(exclusive(all.getFirst(), owner)); // first, alone: a batch waits for no other row before it holds this one
        var rest = new java.util.ArrayList<java.util.concurrent.Future<Held>>();
        for (Backends.Placement p : all.subList(1, all.size())) rest.add(LOCKERS.submit(() -> exclusive(p, owner)));
        SQLException failed = null;
        for (var f : rest) {
            try {
                held.add(f.get());
            } catch (java.util.concurrent.ExecutionException e) {
                SQLException cause = e.getCause() instanceof SQLException s ? s : new SQLException("taking the move fence failed", "HY000", 0, e.getCause());
                if (failed == null) failed = cause;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failed == null) failed = new SQLException("interrupted while taking the move fence", "HY000", 0, e);
            }
        }
        if (failed != null) {
            releaseAll(held);
            throw failed;
        }
        return () -> releaseAll(held);
    }

    /** Releases every row at once (each a COMMIT on its partition), and returns once they are released. */
    private static void releaseAll(List<Held> held) {
        var done = new java.util.ArrayList<java.util.concurrent.Future<?>>();
        for (Held h : held.subList(1, held.size())) done.add(LOCKERS.submit(h::close));
        held.getFirst().close();
        for (var f : done) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                // close() handles its own failures (the connection evicted: the lock goes with it)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The threads that lock a batch's fence rows on the partitions after the first, at once. */
    private static final java.util.concurrent.ExecutorService LOCKERS = BackendThreads.pool("lutra-move-fence");

    /**
     * The row of {@code owner}'s group on one partition, locked exclusively in a transaction of a scratch connection: the
     * locking statements' row too, without waiting. Missing rows are made first, each in a statement of its own
     * (auto-commit: two batches inserting them inside their transactions could deadlock on each other's gap lock), so the
     * transaction locks existing rows only; a row found missing in the transaction (a backend restored from an older
     * copy) is made and the transaction begun again.
     */
    private Held exclusive(Backends.Placement p, String owner) throws SQLException {
        Connection c = p.scratch().getConnection();
        String where = p.partition() + " " + name(owner);
        try {
            p.yieldLocks(c);
            for (boolean locked = false; !locked; ) {
                if (!made.contains(where)) {
                    for (String table : List.of(LOCKING, TABLE)) {
                        try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + table + " (owner) VALUES (?)")) {
                            ps.setString(1, name(owner));
                            ps.executeUpdate();
                        }
                    }
                }
                try (Statement st = c.createStatement()) {
                    st.execute("START TRANSACTION");
                }
                try (PreparedStatement ps = c.prepareStatement("SELECT owner FROM " + TABLE + " WHERE owner = ? FOR UPDATE")) {
                    ps.setString(1, name(owner));
                    try (var rs = ps.executeQuery()) {
                        locked = rs.next();
                    }
                }
                if (locked) {
                    made.add(where);
                } else {
                    if (!made.remove(where)) throw new SQLException("the move fence row of " + owner + " is missing on " + p.name() + " right after it was inserted", "HY000", 0);
                    try (Statement st = c.createStatement()) {
                        st.execute("ROLLBACK");
                    }
                }
            }
            boolean lockingRow;
            try (PreparedStatement ps = c.prepareStatement("SELECT owner FROM " + LOCKING + " WHERE owner = ? FOR UPDATE NOWAIT")) {
                ps.setString(1, name(owner));
                try (var rs = ps.executeQuery()) {
                    lockingRow = rs.next();
                }
            } catch (SQLException busy) {
                // MariaDB answers NOWAIT with 1205, MySQL with 3572: the batch yields to a locking statement as to a lock wait
                FailPoints.reach(FailPoints.MOVE_FENCE_YIELDED);
                throw busy.getErrorCode() == 3572 ? new SQLException("a locking statement holds the move fence of " + owner + ": the batch yields",
                        "HY000", 1205, busy) : busy;
            }
            if (!lockingRow) { // made again by the batch's next try, which MoveJobs runs as after a lock wait
                made.remove(where);
                throw new SQLException("the locking statements' fence row of " + owner + " is missing on " + p.name() + ": the batch is retried", "HY000", 1205);
            }
        } catch (SQLException e) {
            p.scratch().evictConnection(c); // its server ends the transaction with the connection
            throw Backends.located(p, e);
        }
        return () -> {
            try (Statement st = c.createStatement()) {
                st.execute("COMMIT");
                p.restoreLockWaits(c);
                c.close();
            } catch (SQLException e) {
                p.scratch().evictConnection(c); // the lock goes with the connection
            }
        };
    }

    /**
     * The fence of {@code owner}'s group held shared on partition 0 for the router's own check of every partition's latest
     * rows (a DDL statement's): no move batch of the group commits until it is closed.
     */
    public Held sharedForCheck(String owner) throws SQLException {
        Backends.Placement p0 = backends.placement(0);
        Connection c = p0.scratch().getConnection();
        try {
            try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + TABLE + " (owner) VALUES (?)")) {
                ps.setString(1, name(owner));
                ps.executeUpdate();
            }
            try (Statement st = c.createStatement()) {
                st.execute("START TRANSACTION");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT owner FROM " + TABLE + " WHERE owner = ? LOCK IN SHARE MODE")) {
                ps.setString(1, name(owner));
                try (var rs = ps.executeQuery()) {
                    if (!rs.next()) throw new SQLException("the move fence row of " + owner + " is missing on " + p0.name() + " right after it was inserted", "HY000", 0);
                }
            }
        } catch (SQLException e) {
            p0.scratch().evictConnection(c);
            throw Backends.located(p0, e);
        }
        return () -> {
            try (Statement st = c.createStatement()) {
                st.execute("COMMIT");
                c.close();
            } catch (SQLException e) {
                p0.scratch().evictConnection(c);
            }
        };
    }

    /**
     * Why keys of group {@code owner} may not be replicated now, or null: a table of the group has a secondary lookup in
     * the live catalog (its entries name one partition a row, and its scans skip the replicated-keys question), or this
     * router's catalog lost one less than {@code leaseMillis} ago (another router may not have seen the drop yet, and skip
     * the question). Asked by a replicating batch while it holds the fence exclusively: see {@code maintain.Mover}.
     */
    public String replicationRefused(String owner, long leaseMillis) {
        if (backends.hasSecondaryLookup(owner)) return "the lookup group '" + owner + "' has a secondary lookup";
        Long gone = backends.secondaryGoneAt(owner);
        if (gone != null && System.nanoTime() - gone < leaseMillis * 1_000_000L) {
            return "a secondary lookup of the lookup group '" + owner + "' was dropped less than the catalog lease (" + leaseMillis + " ms) ago; retry";
        }
        return null;
    }

    /**
     * The partition a reader takes the fence on, among {@code partitions} (non-empty), the ones it uses anyway: any one
     * is exact (a batch holds every partition's row), so one at random, which spreads the readers' fence statements over
     * the partitions as evenly as their reads.
     */
    public static int readerPartition(int[] partitions) {
        return partitions[java.util.concurrent.ThreadLocalRandom.current().nextInt(partitions.length)];
    }

    /** {@link #readerPartition} among the partitions {@code queries} run on. */
    public static int readerPartition(List<ShardQuery> queries) {
        return queries.get(java.util.concurrent.ThreadLocalRandom.current().nextInt(queries.size())).partition();
    }

    /**
     * The fence of {@code owner}'s group held shared (a scan, until its snapshots exist) on partition {@code at} (any one:
     * see {@link #readerPartition}), in a short transaction of a scratch connection. A missing row is inserted first in a statement of its own:
     * two scans inserting it inside their locking transactions would deadlock on each other's gap lock.
     */
    public static Held shared(Backends.Placement at, String owner, Deadline deadline, SessionState variables) throws SQLException {
        return shared(at, TABLE, owner, deadline, variables);
    }

    /** The locking statements' fence of {@code owner}'s group ({@link #LOCKING}) held shared, as {@link #shared}. */
    public static Held locking(Backends.Placement at, String owner, Deadline deadline, SessionState variables) throws SQLException {
        return shared(at, LOCKING, owner, deadline, variables);
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
