package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.txn.FailPoints;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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
 * any read of a SERIALIZABLE transaction) and writes over every partition, while rows move (README, "Scans and the
 * move fence"). The routers' lock wait timeout is {@value #LOCK_WAIT} s: a locking statement and a move that wait for
 * each other until it ends fail a test within seconds instead of stalling it. Moves change where rows are, never what
 * they are, so every locking read must answer exactly the rows that exist: none missed, none twice.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockingScanIT {
    static final long SEED = Long.getLong("lutra.lockscan.seed", System.nanoTime());
    static final int LOCK_WAIT = 3;
    static final int USERS = 60;
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
                var threads = Executors.newFixedThreadPool(2);
                try (var hook = FailPoints.install(point -> {
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
                    Thread.sleep(700); // the scan has started and waits for the moving row
                    long wentOn = System.nanoTime();
                    go.countDown();
                    Object[] answer = scanned.get(30, TimeUnit.SECONDS);
                    long waited = System.nanoTime() - wentOn;
                    assertEquals(ids, answer[0], mode + ": every user once");
                    assertTrue(waited < (LOCK_WAIT - 1) * 1_000_000_000L, mode + ": the scan answered " + waited / 1_000_000 + " ms after the move went on"
                            + " to its fence (the lock wait timeout is " + LOCK_WAIT + " s)");
                    assertEquals(1, moved.get(30, TimeUnit.SECONDS), mode + ": the move moved the user once the scan was done");
                    System.out.printf("LockingScanIT: %s: the locking scan answered %d ms after the blocked move went on to the fence%n", mode, waited / 1_000_000);
                } finally {
                    go.countDown();
                    threads.shutdownNow();
                }
            }
        }
    }
}
