package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.placement.FailPoints;
import org.lutra.placement.MoveFence;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Locking reads of a lookup group over several partitions ({@code SELECT ... FOR UPDATE}, {@code LOCK IN SHARE MODE},
 * any read of a SERIALIZABLE transaction) and writes over every partition, while rows move (docs/architecture.md, "Locking
 * scans"). The routers' lock wait timeout is {@value #LOCK_WAIT} s: a locking statement and a move that wait for
 * each other until it ends fail a test within seconds instead of stalling it. Moves change where rows are, never what
 * they are, so every locking read must answer exactly the rows that exist: none missed, none twice.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockingScanIT {
    static final long SEED = Long.getLong("lutra.lockscan.seed", System.nanoTime());
    static final int LOCK_WAIT = 5;
    static final int USERS = 60;
    static final int PHASE_SECONDS = 4;
    /** Moves the run must have made while the sessions lock and write (each phase goes on until its share is made). */
    static final int MOVES = 20;
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;

    /** How a reader runs its statements: a transaction at a level, or auto-commit. */
    enum Mode {
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED), REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE), AUTO_COMMIT(Connection.TRANSACTION_REPEATABLE_READ);

        final int level;

        Mode(int level) {
            this.level = level;
        }

        void open(Connection c) throws SQLException {
            c.setTransactionIsolation(level);
            c.setAutoCommit(this == AUTO_COMMIT);
        }

        void end(Connection c, boolean commit) throws SQLException {
            if (this == AUTO_COMMIT) return;
            if (commit) c.commit(); else c.rollback();
        }
    }

    TestRouter a;
    TestRouter b;
    final List<String> ids = new ArrayList<>();
    final List<String> follows = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "lockscan", SCHEMA, new RouterConfig.Transactions("lockscanA", LOCK_WAIT, 0, 0, 0, 0, 0));
        b = new TestRouter(a, "lockscanB", List.of());
        var random = new Random(SEED);
        try (Connection c = a.connect(); var st = c.createStatement()) {
            for (int id = 1; id <= USERS; id++) {
                st.executeUpdate("INSERT INTO users (id, name, karma) VALUES (" + id + ", 'u" + id + "', 0)");
                ids.add(id + "|u" + id + "|");
                for (int f = random.nextInt(3); f > 0; f--) {
                    int to = random.nextInt(40);
                    if (st.executeUpdate("INSERT IGNORE INTO followers (source, destination) VALUES (" + id + ", " + to + ")") == 1) follows.add(id + "|" + to + "|");
                }
            }
        }
        ids.sort(null);
        follows.sort(null);
    }

    @AfterAll
    void stop() throws Exception {
        if (b != null) b.server.close();
        if (a != null) a.close();
    }

    /**
     * The stall the review noted, made certain: a move batch holds its rows' locks (a failpoint stops it before it
     * takes the fence) while a locking scan through another router starts and waits for those rows; then the batch
     * goes on to the fence. The scan must answer every row once, well before the lock wait timeout, in every mode.
     */
    @Test
    void aLockingScanThatWaitsForAMovingRowNeitherStallsNorMissesIt() throws Exception {
        int key = 7;
        int to = 1;
        try (Connection admin = a.connect(); var st = admin.createStatement()) {
            for (Mode mode : Mode.values()) {
                st.executeUpdate("ALTER TABLE users SET PARTITION = p" + to + " WHERE id = " + key);
                to = to == 1 ? 2 : 1;
                var locked = new CountDownLatch(1);
                var go = new CountDownLatch(1);
                var armed = new AtomicBoolean(true);
                var yielded = new AtomicBoolean();
                var threads = Executors.newFixedThreadPool(2);
                try (var hook = FailPoints.install(point -> {
                    if (point.equals(FailPoints.MOVE_FENCE_YIELDED)) yielded.set(true);
                    if (!point.equals(FailPoints.MOVE_BATCH_LOCKED) || !armed.compareAndSet(true, false)) return;
                    locked.countDown();
                    try {
                        go.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })) {
                    String move = "ALTER TABLE users SET PARTITION = p" + to + " WHERE id = " + key;
                    Future<Integer> moved = threads.submit(() -> {
                        try (Connection c = a.connect(); var s = c.createStatement()) {
                            return s.executeUpdate(move);
                        }
                    });
                    assertTrue(locked.await(30, TimeUnit.SECONDS), "the move reached its failpoint");
                    Future<Object[]> scanned = threads.submit(() -> {
                        try (Connection c = b.connect()) {
                            mode.open(c);
                            long t0 = System.nanoTime();
                            var rows = PlacementDifferentialIT.outcome(c, "SELECT id, name FROM users FOR UPDATE", e -> {
                                throw new AssertionError(mode + ": " + e.getMessage(), e);
                            });
                            long took = System.nanoTime() - t0;
                            mode.end(c, true);
                            return new Object[] {rows, took};
                        }
                    });
                    assertTrue(seenWaiting(scanned), mode + ": the scan waits for the moving row's lock");
                    long wentOn = System.nanoTime();
                    go.countDown();
                    boolean batchWaitedForTheFence = fenceWaitSeen(scanned);
                    Object[] answer = scanned.get(30, TimeUnit.SECONDS);
                    long waited = System.nanoTime() - wentOn;
                    assertEquals(ids, answer[0], mode + ": every user once");
                    // the batch finds the locking statements' fence held and yields at once (NOWAIT), rather than waiting for it
                    assertTrue(yielded.get(), mode + ": the move batch yielded to the scan holding the fence");
                    assertFalse(batchWaitedForTheFence, mode + ": the move batch waited for the locking statements' fence instead of yielding");
                    long rows = 1 + follows.stream().filter(f -> f.startsWith(key + "|")).count(); // the user and its followers rows
                    assertEquals(rows, moved.get(30, TimeUnit.SECONDS).longValue(), mode + ": the move moved the user once the scan was done");
                    System.out.printf("LockingScanIT: %s: the locking scan answered %d ms after the blocked move went on to the fence%n", mode, waited / 1_000_000);
                } finally {
                    go.countDown();
                    threads.shutdownNow();
                }
            }
        }
    }

    /**
     * Whether a lock wait on the routers' partitions is seen in InnoDB's views (the scan's: the only statement that can
     * wait while the batch is stopped at its fail point) before {@code scan} ends, within 30 s.
     */
    private boolean seenWaiting(Future<?> scan) throws Exception {
        var databases = new ArrayList<String>();
        for (int s = 0; s < a.servers; s++) databases.add(a.database + "_p" + s);
        String partitions = "`" + a.database + "_p";
        try (var waits = new InnoDbLockWaits(a.shards, databases)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!scan.isDone() && System.nanoTime() < deadline) {
                if (waits.now().stream().anyMatch(w -> w.table().startsWith(partitions))) return true;
            }
            return false;
        }
    }

    /**
     * Whether a lock wait for the locking statements' fence ({@link MoveFence#LOCKING}) is seen in InnoDB's views before
     * {@code scan} ends (within 30 s): a batch that took it with a lock wait instead of NOWAIT would wait there for its
     * whole yielding lock wait (1 s), several reads of the views long.
     */
    private boolean fenceWaitSeen(Future<?> scan) throws Exception {
        var databases = new ArrayList<String>();
        for (int s = 0; s < a.servers; s++) databases.add(a.database + "_p" + s);
        try (var waits = new InnoDbLockWaits(a.shards, databases)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!scan.isDone() && System.nanoTime() < deadline) {
                if (waits.now().stream().anyMatch(w -> w.table() != null && w.table().contains(MoveFence.LOCKING))) return true;
            }
            return false;
        }
    }

    /**
     * Moves of random keys nonstop through one router while a session through another router runs locking reads and a
     * write over every partition — transactions of 1–3 statements at READ COMMITTED, then REPEATABLE READ, then
     * SERIALIZABLE, then auto-commit statements, {@value #PHASE_SECONDS} s each. Every answer must be exactly the rows that
     * exist, every UPDATE must count every user, no statement may fail (a stall ends in 1205 after {@value #LOCK_WAIT} s),
     * and at the end every user's karma is the number of UPDATEs that committed. One session at a time: two clients
     * locking every row of a table over several servers can deadlock across them whatever moves (docs/architecture.md, "Locking scans").
     */
    @Test
    void lockingReadsAndWritesWhileRowsMoveSeeEveryRowOnceAndNeverStall() throws Exception {
        String idsSql = "SELECT id, name FROM users";
        Map<String, List<String>> expected = new java.util.LinkedHashMap<>();
        expected.put(idsSql + " FOR UPDATE", ids);
        var byNumber = new ArrayList<>(ids);
        byNumber.sort(java.util.Comparator.comparingInt(row -> Integer.parseInt(row.substring(0, row.indexOf('|')))));
        expected.put(idsSql + " WHERE karma >= 0 ORDER BY id FOR UPDATE", byNumber);
        expected.put(idsSql + " ORDER BY id LOCK IN SHARE MODE", byNumber);
        expected.put("SELECT COUNT(*) FROM followers LOCK IN SHARE MODE", List.of(follows.size() + "|"));
        expected.put("SELECT source, destination FROM followers FOR UPDATE", follows);
        expected.put("SELECT COUNT(*) FROM users FOR UPDATE", List.of(USERS + "|"));
        String update = "UPDATE users SET karma = karma + 1";
        var stop = new AtomicBoolean();
        var moves = new AtomicLong();
        var contention = new AtomicLong();
        var updates = new AtomicLong();
        var statements = new AtomicLong();
        var victims = new AtomicLong();
        var slowest = new java.util.concurrent.atomic.AtomicLongArray(Mode.values().length);
        var threads = Executors.newFixedThreadPool(1 + Mode.values().length);
        var work = new ArrayList<Future<?>>();
        try (Connection check = a.connect(); var st = check.createStatement()) {
            st.executeUpdate("UPDATE users SET karma = 0");
            work.add(threads.submit(() -> {
                var r = new Random(SEED + 1);
                try (Connection admin = a.connect(); var s = admin.createStatement()) {
                    while (!stop.get()) {
                        var keys = new java.util.StringJoiner(", ");
                        for (int n = 1 + r.nextInt(10); n > 0; n--) keys.add(String.valueOf(1 + r.nextInt(USERS)));
                        try {
                            s.executeUpdate("ALTER TABLE users SET PARTITION = p" + r.nextInt(4) + " WHERE id IN (" + keys + ")");
                            moves.incrementAndGet();
                        } catch (SQLException e) {
                            if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205) throw e;
                            contention.incrementAndGet(); // the batch yielded to the readers longer than its patience
                        }
                    }
                }
                return null;
            }));
            var turn = new java.util.concurrent.atomic.AtomicInteger();
            for (Mode mode : Mode.values()) {
                TestRouter router = mode.ordinal() % 2 == 0 ? b : a;
                work.add(threads.submit(() -> {
                    while (turn.get() != mode.ordinal()) Thread.sleep(20);
                    long phaseEnds = System.nanoTime() + PHASE_SECONDS * 1_000_000_000L;
                    var r = new Random(SEED + 10 + mode.ordinal());
                    var choices = new ArrayList<>(expected.keySet());
                    if (mode == Mode.SERIALIZABLE) choices.add(idsSql); // every read of a SERIALIZABLE transaction locks
                    choices.add(update);
                    try (Connection c = router.connect(); var s = c.createStatement()) {
                        mode.open(c);
                        // a phase lasts its time and until its share of the moves was made (a loaded machine moves slower)
                        long movesBy = (mode.ordinal() + 1L) * MOVES / Mode.values().length;
                        while (!stop.get() && (System.nanoTime() < phaseEnds || moves.get() < movesBy)) {
                            long mine = 0;
                            try {
                                for (int n = 1 + r.nextInt(3); n > 0; n--) {
                                    String sql = choices.get(r.nextInt(choices.size()));
                                    long t0 = System.nanoTime();
                                    if (sql.equals(update)) {
                                        assertEquals(USERS, s.executeUpdate(sql), mode + ", after " + moves.get() + " moves: " + sql);
                                        mine++;
                                        if (mode == Mode.AUTO_COMMIT) updates.incrementAndGet();
                                    } else {
                                        var answer = PlacementDifferentialIT.outcome(c, sql, e -> {
                                            throw new Failed(e);
                                        });
                                        assertEquals(expected.getOrDefault(sql, ids), answer, "seed " + SEED + ", " + mode + ", after " + moves.get() + " moves: " + sql);
                                    }
                                    slowest.accumulateAndGet(mode.ordinal(), System.nanoTime() - t0, Math::max);
                                    statements.incrementAndGet();
                                }
                                mode.end(c, true);
                                if (mode != Mode.AUTO_COMMIT) updates.addAndGet(mine);
                            } catch (SQLException | Failed f) {
                                SQLException e = f instanceof Failed failed ? failed.cause : (SQLException) f;
                                // a deadlock one partition detected (its transaction rolled back, as MySQL does): allowed, retried;
                                // a lock wait timeout (a stall) or anything else fails the test
                                if (e.getErrorCode() != 1213) throw new AssertionError(mode + ", after " + moves.get() + " moves: " + e.getMessage(), e);
                                victims.incrementAndGet();
                                mode.end(c, false);
                            }
                            Thread.sleep(5 + r.nextInt(40)); // a window for moves: a batch yields to a session that locks every row nonstop
                        }
                    } finally {
                        turn.incrementAndGet();
                    }
                    return null;
                }));
            }
            long started = System.nanoTime();
            while (turn.get() < Mode.values().length && !work.getFirst().isDone() && System.nanoTime() - started < 120_000_000_000L) {
                Thread.sleep(100);
            }
            stop.set(true);
            for (var f : work) f.get();
            var karma = PlacementDifferentialIT.outcome(check, "SELECT MIN(karma), MAX(karma), COUNT(*) FROM users");
            assertEquals(List.of(updates.get() + "|" + updates.get() + "|" + USERS + "|"), karma, "every committed UPDATE counted every user once");
        } finally {
            stop.set(true);
            threads.shutdownNow();
        }
        var worst = new StringBuilder();
        for (Mode m : Mode.values()) worst.append(worst.isEmpty() ? "" : ", ").append(m).append(' ').append(slowest.get(m.ordinal()) / 1_000_000).append(" ms");
        System.out.printf("LockingScanIT: seed %d, %d locking statements (%d UPDATEs of every user) through 2 routers while one made %d moves"
                + " (%d gave up after contention), every answer exact, %d transactions deadlock victims (1213, retried); slowest statement per mode: %s%n",
                SEED, statements.get(), updates.get(), moves.get(), contention.get(), victims.get(), worst);
        assertTrue(moves.get() >= MOVES, moves.get() + " moves");
    }

    /** An error the answer helper saw, carried out of its callback. */
    private static final class Failed extends RuntimeException {
        final SQLException cause;

        Failed(SQLException cause) {
            super(cause);
            this.cause = cause;
        }
    }
}
