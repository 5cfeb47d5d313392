package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Three routers on the same shards, each with a lookup cache of its own: one moves rows (ALTER
 * TABLE ... SET PARTITION) while the others read and insert with caches that the move made stale.
 * Every check reads the shards themselves (each partition's database, past the routers).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiRouterPlacementIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, born DATETIME(3), score DOUBLE, flags BIT(3))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE tweets (id BIGINT PRIMARY KEY, author INT NOT NULL, body VARCHAR(280), KEY (author))
              PARTITION BY lookup(author) SAME AS users;
            """;
    static final int USERS = 40;

    TestRouter a;
    TestRouter b;
    TestRouter c;

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "multirouter", SCHEMA);
        b = new TestRouter(a, "routerB", List.of());
        c = new TestRouter(a, "routerC", List.of());
        try (Connection lutra = a.connect(); var ps = lutra.prepareStatement(
                "INSERT INTO users (id, name, born, score, flags) VALUES (?, ?, '2024-03-31 02:30:00.125', 0.1, b'101')")) {
            for (int id = 1; id <= USERS; id++) {
                ps.setInt(1, id);
                ps.setString(2, "user" + id);
                ps.executeUpdate();
            }
            var st = lutra.createStatement();
            for (int id = 1; id <= USERS; id++) {
                st.executeUpdate("INSERT INTO followers (source, destination) VALUES (" + id + ", " + (id % USERS + 1) + "), (" + id + ", " + ((id + 1) % USERS + 1) + ")");
                st.executeUpdate("INSERT INTO tweets (id, author, body) VALUES (" + (1000 + id) + ", " + id + ", 'hello from " + id + "')");
            }
        }
        for (TestRouter r : List.of(b, c)) { // every router's cache learns where each user is now
            try (Connection lutra = r.connect(); var ps = lutra.prepareStatement("SELECT name FROM users WHERE id = ?")) {
                for (int id = 1; id <= USERS; id++) {
                    ps.setInt(1, id);
                    try (var rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                    }
                }
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : new TestRouter[] {c, b}) if (r != null) r.server.close();
        if (a != null) a.close();
    }

    /** The partitions holding rows of {@code table} with {@code column} = key, read on the shards. */
    List<Integer> where(String table, String column, int key) throws SQLException {
        var out = new ArrayList<Integer>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery(
                    "SELECT COUNT(*) FROM " + table + " WHERE " + column + " = " + key)) {
                rs.next();
                if (rs.getLong(1) > 0) out.add(p);
            }
        }
        return out;
    }

    static int home(int key) {
        return key % 4;
    }

    static int elsewhere(int key) {
        return (home(key) + 1 + ThreadLocalRandom.current().nextInt(3)) % 4;
    }

    int move(TestRouter r, int key, int partition) throws SQLException {
        try (Connection lutra = r.connect()) {
            return lutra.createStatement().executeUpdate("ALTER TABLE users SET PARTITION = p" + partition + " WHERE id = " + key);
        }
    }

    @Test
    void aMoveCarriesEverySameAsRowAndKeepsValuesExact() throws Exception {
        int key = 5;
        int target = elsewhere(key);
        String before = snapshot(key);
        assertEquals(4, move(a, key, target), "1 user, 2 followers, 1 tweet");
        assertEquals(List.of(target), where("users", "id", key));
        assertEquals(List.of(target), where("followers", "source", key));
        assertEquals(List.of(target), where("tweets", "author", key));
        assertEquals(before, snapshot(key), "the rows' values are unchanged by the move");
        try (Connection shard = a.partition(home(key)); var rs = shard.createStatement().executeQuery(
                "SELECT partitions FROM lutra_place_users WHERE k = " + key)) {
            assertTrue(rs.next(), "the key's home partition records where it went");
            assertEquals("p" + target, rs.getString(1));
        }
        assertEquals(0, move(a, key, target), "moving a key where it is moves nothing");
        assertEquals(4, move(a, key, home(key)), "and back home");
        assertEquals(List.of(home(key)), where("tweets", "author", key));
    }

    @Test
    void aLookupTableCreatedThroughTheRouterIsGuardedAndMovable() throws Exception {
        try (Connection ca = a.connect(); Connection cb = b.connect()) {
            ca.createStatement().execute("CREATE TABLE pages (id INT PRIMARY KEY, title VARCHAR(20))"
                    + " PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id)");
            ca.createStatement().executeUpdate("INSERT INTO pages (id, title) VALUES (9, 'nine')");
            int target = elsewhere(9);
            assertEquals(1, ca.createStatement().executeUpdate("ALTER TABLE pages SET PARTITION = p" + target + " WHERE id = 9"));
            assertEquals(List.of(target), where("pages", "id", 9));
            var e = assertThrows(SQLException.class, () -> cb.createStatement().executeUpdate("INSERT INTO pages (id, title) VALUES (9, 'again')"));
            assertEquals(1062, e.getErrorCode(), e.getMessage());
            assertEquals(List.of(target), where("pages", "id", 9), "router b, which never saw key 9, did not place a second one");
        }
    }

    String snapshot(int key) throws SQLException {
        try (Connection lutra = a.connect(); var rs = lutra.createStatement().executeQuery(
                "SELECT CONCAT_WS('|', id, name, born, score, HEX(flags)) FROM users WHERE id = " + key)) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    @Test
    void stalerRoutersPlaceNewRowsWithTheirOwnerAndCatchDuplicateKeys() throws Exception {
        int key = 7;
        int target = elsewhere(key);
        move(a, key, target); // b and c still cache the key at its old partition
        try (Connection lutra = b.connect()) {
            var st = lutra.createStatement();
            assertEquals(1, st.executeUpdate("INSERT INTO followers (source, destination) VALUES (7, 33)"));
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO users (id, name) VALUES (7, 'again')"));
            assertEquals(1062, e.getErrorCode(), e.getMessage());
            assertEquals("23000", e.getSQLState());
        }
        assertEquals(List.of(target), where("followers", "source", key), "the new follower row went where its user is now");
        assertEquals(List.of(target), where("users", "id", key), "no second user 7");
        try (Connection lutra = c.connect(); var rs = lutra.createStatement().executeQuery("SELECT COUNT(*) FROM followers WHERE source = 7")) {
            rs.next();
            assertEquals(3, rs.getLong(1), "the stale router's read finds all three rows");
        }
    }

    @Test
    void twoRoutersInsertingTheSameNewKeyAtOnceOneWins() throws Exception {
        var pool = Executors.newFixedThreadPool(2);
        try (Connection ca = a.connect(); Connection cb = b.connect()) {
            for (int key = 5000; key < 5040; key++) {
                final int k = key;
                if (k % 2 == 0) { // the key lived away from home and was deleted: its placement stays; b's cache is stale
                    ca.createStatement().executeUpdate("INSERT INTO users (id, name) VALUES (" + k + ", 'first')");
                    try (var rs = cb.createStatement().executeQuery("SELECT name FROM users WHERE id = " + k)) {
                        assertTrue(rs.next());
                    }
                    move(a, k, elsewhere(k));
                    ca.createStatement().executeUpdate("DELETE FROM users WHERE id = " + k);
                }
                var barrier = new CyclicBarrier(2);
                var results = new ArrayList<Future<String>>();
                for (Connection conn : List.of(ca, cb)) {
                    results.add(pool.submit(() -> {
                        barrier.await();
                        try {
                            conn.createStatement().executeUpdate("INSERT INTO users (id, name) VALUES (" + k + ", 'racer')");
                            return "ok";
                        } catch (SQLException e) {
                            return e.getErrorCode() + " " + e.getMessage();
                        }
                    }));
                }
                var outcomes = List.of(results.get(0).get(), results.get(1).get());
                assertEquals(1, outcomes.stream().filter("ok"::equals).count(), "key " + k + ": " + outcomes);
                assertTrue(outcomes.stream().anyMatch(o -> o.startsWith("1062 ")), "key " + k + ": " + outcomes);
                assertEquals(1, where("users", "id", k).size(), "key " + k + " on one partition");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void mapReservationsAtStartAreHonouredByEveryRouter() throws Exception {
        var map = Files.createTempFile("users", ".csv");
        var csv = new StringBuilder();
        for (int key = 7000; key < 7020; key++) csv.append(key).append(",p").append((home(key) + 2) % 4).append('\n');
        csv.append("1,p").append((home(1) + 1) % 4).append('\n'); // user 1 has rows: its entry is not applied
        Files.writeString(map, csv);
        var d = new TestRouter(a, "routerD", List.of(new RouterConfig.LookupSource("users", map, "csv")));
        try (Connection lutra = c.connect()) { // c has no map: the backends tell it where these keys go
            var st = lutra.createStatement();
            for (int key = 7000; key < 7020; key++) {
                st.executeUpdate("INSERT INTO users (id, name) VALUES (" + key + ", 'reserved')");
                assertEquals(List.of((home(key) + 2) % 4), where("users", "id", key), "key " + key);
            }
        } finally {
            d.server.close();
        }
        assertEquals(List.of(home(1)), where("users", "id", 1), "a map entry does not move a key's rows");
    }

    /**
     * Reads of one key through stale routers while another router moves it back and forth: a read
     * never sees the user twice, nor a partial set of followers, nor misses them (a read that
     * finds nothing where its cache points reads the key's home row under a lock, docs/architecture.md,
     * "The validation protocol"), and when the moves stop every key is whole on one partition.
     */
    @Test
    void readersThroughOtherRoutersNeverSeeAMovingKeyTwiceNorHalfMoved() throws Exception {
        int[] keys = {11, 12, 13, 14};
        var stop = new AtomicBoolean();
        var problems = new ConcurrentLinkedQueue<String>();
        var reads = new AtomicLong();
        var moves = new AtomicLong();
        var pool = Executors.newFixedThreadPool(5);
        try {
            var tasks = new ArrayList<Future<?>>();
            tasks.add(pool.submit(() -> {
                var r = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int key = keys[r.nextInt(keys.length)];
                    move(a, key, r.nextInt(4));
                    moves.incrementAndGet();
                }
                return null;
            }));
            for (TestRouter reader : List.of(b, c, b, c)) {
                tasks.add(pool.submit(() -> {
                    try (Connection lutra = reader.connect();
                         var user = lutra.prepareStatement("SELECT name FROM users WHERE id = ?");
                         var followers = lutra.prepareStatement("SELECT destination FROM followers WHERE source = ?")) {
                        var r = ThreadLocalRandom.current();
                        while (!stop.get()) {
                            int key = keys[r.nextInt(keys.length)];
                            user.setInt(1, key);
                            int n = 0;
                            try (var rs = user.executeQuery()) {
                                while (rs.next()) n++;
                            }
                            if (n > 1) problems.add("user " + key + " seen " + n + " times");
                            if (n == 0) problems.add("user " + key + " missed");
                            followers.setInt(1, key);
                            n = 0;
                            try (var rs = followers.executeQuery()) {
                                while (rs.next()) n++;
                            }
                            if (n != 2) problems.add("user " + key + ": " + n + " followers, not 2");
                            reads.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            runUntilEnough(stop, tasks, moves, 10, reads, 100);
        } finally {
            pool.shutdownNow();
        }
        assertTrue(moves.get() > 10 && reads.get() > 100, moves + " moves, " + reads + " reads");
        assertEquals(List.of(), List.copyOf(problems), moves + " moves, " + reads + " reads");
        System.out.printf("MultiRouterPlacementIT: %d moves, %d reads of a moving key, none missed or doubled%n", moves.get(), reads.get());
        for (int key : keys) {
            assertEquals(1, where("users", "id", key).size());
            assertEquals(where("users", "id", key), where("followers", "source", key));
        }
    }

    /**
     * Inside a REPEATABLE READ transaction a read of several keys runs where the cache points once the keys are proven
     * there (owner rows in the transaction's snapshot, placement rows locked): the keys' home partitions take no part in
     * it (before, their home rows were locked in the transaction, making each home a participant).
     */
    @Test
    void aRepeatableReadOfSeveralKeysProvenWhereTheCachePointsTouchesOnlyTheirPartition() throws Exception {
        int[] keys = {31, 32, 33}; // homes p3, p0, p1
        for (int key : keys) move(a, key, 2);
        try (Connection lutra = a.connect()) {
            lutra.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            var before = status(lutra);
            lutra.setAutoCommit(false);
            var authors = new ArrayList<Integer>();
            try (var rs = lutra.createStatement().executeQuery("SELECT author, body FROM tweets WHERE author IN (31, 32, 33) ORDER BY author")) {
                while (rs.next()) authors.add(rs.getInt(1));
            }
            try (var rs = lutra.createStatement().executeQuery("SELECT source, COUNT(*) FROM followers WHERE source IN (31, 32, 33) GROUP BY source")) {
                while (rs.next()) assertEquals(2, rs.getInt(2), "followers of " + rs.getInt(1));
            }
            lutra.commit();
            lutra.setAutoCommit(true);
            assertEquals(List.of(31, 32, 33), authors);
            var after = status(lutra);
            assertEquals(java.util.Map.of(1, 1L), delta(after.get("txn_by_partitions"), before.get("txn_by_partitions")), after.toString());
        }
    }

    /**
     * A transaction's snapshot of a partition still holds a key that moved away after it; the transaction then inserts a
     * row of the key, which goes where the key lives now; a read of several keys through a cache that points at the old
     * partition (a router's cache may be that stale at any moment: a change-log poll can bring an older entry back) must
     * see that insert. The key's owner row in the old snapshot does not prove it lives there now: its placement row there
     * (the tombstone, last committed) says where it went, and the read resolves the keys by their home rows: here a 40001,
     * since the transaction's snapshot of p1 predates the move batch that wrote there.
     */
    @Test
    void aRepeatableReadOfSeveralKeysSeesItsOwnInsertOfAKeyThatLeftItsSnapshot() throws Exception {
        int key = 35; // home p3
        int other = 36; // home p0
        int from = 1;
        int to = 2;
        move(a, key, from);
        move(a, other, from);
        var users = (org.lutra.catalog.Partitioning.LookedUp) b.server.catalog().table("users").partitioning();
        try (Connection lutra = repeatableReadHolding(other)) { // the transaction's snapshot of p1, with both users' rows (a plain read: no lock taken)
            assertEquals(4, move(a, key, to), "the user, 2 followers and 1 tweet leave p1 after the snapshot");
            lutra.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60035, " + key + ", 'own')");
            users.table().put((long) key, from); // the cache points where the key was
            var counts = new java.util.TreeMap<Integer, Integer>();
            try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author IN (" + key + ", " + other
                    + ") GROUP BY author")) {
                while (rs.next()) counts.put(rs.getInt(1), rs.getInt(2));
                assertEquals(java.util.Map.of(key, 2, other, 1), counts, "the key's tweet and the transaction's own, read once each");
            } catch (SQLException e) {
                // the other right outcome: by their home rows the keys are on p1 and p2, and the transaction's snapshot of p1
                // predates the move batch that wrote there (40001, rolled back: retry)
                assertEquals("40001", e.getSQLState(), e.toString());
            }
            lutra.rollback();
        }
        assertEquals(List.of(to), where("tweets", "author", key));
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /** As above, for a read of one key that its rows prove (GROUP BY on the pinned key: run where the cache points, a row returned is the answer). */
    @Test
    void aRepeatableReadOfOneKeySeesItsOwnInsertOfAKeyThatLeftItsSnapshot() throws Exception {
        int key = 38; // home p2
        int other = 37; // home p1
        int from = 0;
        int to = 3;
        move(a, key, from);
        move(a, other, from);
        var users = (org.lutra.catalog.Partitioning.LookedUp) b.server.catalog().table("users").partitioning();
        try (Connection lutra = repeatableReadHolding(other)) { // the transaction's snapshot of p0, with both users' rows (a plain read: no lock taken)
            assertEquals(4, move(a, key, to), "the user, 2 followers and 1 tweet leave p0 after the snapshot");
            lutra.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60038, " + key + ", 'own')");
            users.table().put((long) key, from); // the cache points where the key was
            try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author = " + key + " GROUP BY author")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(2), "the key's tweet and the transaction's own");
            }
            lutra.rollback();
        }
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /** As above, for a plain read of one key's rows, validated by counting them (a row came back: the key was found). */
    @Test
    void aRepeatableReadOfOneKeysRowsSeesItsOwnInsertOfAKeyThatLeftItsSnapshot() throws Exception {
        int key = 29; // home p1
        int other = 30; // home p2
        int from = 0;
        int to = 3;
        move(a, key, from);
        move(a, other, from);
        var users = (org.lutra.catalog.Partitioning.LookedUp) b.server.catalog().table("users").partitioning();
        try (Connection lutra = repeatableReadHolding(other)) { // the transaction's snapshot of p0, with both users' rows
            assertEquals(4, move(a, key, to), "the user, 2 followers and 1 tweet leave p0 after the snapshot");
            lutra.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60029, " + key + ", 'own')");
            users.table().put((long) key, from); // the cache points where the key was
            var ids = new java.util.TreeSet<Integer>();
            try (var rs = lutra.createStatement().executeQuery("SELECT id FROM tweets WHERE author = " + key)) {
                while (rs.next()) ids.add(rs.getInt(1));
            }
            assertEquals(java.util.Set.of(1000 + key, 60029), ids, "the key's tweet and the transaction's own");
            lutra.rollback();
        }
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /**
     * As {@link #aRepeatableReadOfSeveralKeysNeverAnswersFromASnapshotOlderThanRowsItSawOfAKeyThatCameBack}, for a read of
     * one key that its rows prove (GROUP BY on the pinned key): the key's owner row and old tweet in the snapshot of the
     * partition it came back to are not the rows the transaction has seen.
     */
    @Test
    void aRepeatableReadOfOneKeyNeverAnswersFromASnapshotOlderThanRowsItSawOfAKeyThatCameBack() throws Exception {
        int key = 31; // home p3
        int other = 32; // home p0
        int from = 1;
        int to = 2;
        move(a, key, from);
        move(a, other, from);
        var users = (org.lutra.catalog.Partitioning.LookedUp) b.server.catalog().table("users").partitioning();
        try (Connection lutra = repeatableReadHolding(other); Connection writer = a.connect()) { // the transaction's snapshot of p1, with both users' rows
            move(a, key, to);
            writer.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60031, " + key + ", 'new')");
            users.table().put((long) key, to);
            int seen = 0;
            try (var rs = lutra.createStatement().executeQuery("SELECT id FROM tweets WHERE author = " + key)) {
                while (rs.next()) seen++;
            }
            assertEquals(2, seen, "the transaction reads the key's rows where it went, in a new snapshot");
            move(a, key, from);
            users.table().put((long) key, from);
            try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author = " + key + " GROUP BY author")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(2), "the rows the transaction has seen");
            } catch (SQLException e) {
                // the other right outcome: the home row says p1, and the snapshot there predates the batch that brought the key back
                assertEquals("40001", e.getSQLState(), e.toString());
            }
            lutra.rollback();
        } finally {
            try (Connection lutra = a.connect()) {
                lutra.createStatement().executeUpdate("DELETE FROM tweets WHERE id = 60031");
            }
        }
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /**
     * A transaction's snapshot of a partition began before a key moved into it; the transaction inserts a row of the key
     * there; a read of the key there (one key, proven by its rows) finds the transaction's own row in the snapshot but
     * not the key's older rows, which the snapshot predates: it must not answer from them.
     */
    @Test
    void aRepeatableReadOfOneKeyNeverAnswersFromASnapshotOlderThanTheKeysMoveIntoIt() throws Exception {
        int key = 33; // home p1
        int other = 34; // home p2
        int from = 0;
        int to = 3;
        move(a, key, from);
        move(a, other, to);
        var users = (org.lutra.catalog.Partitioning.LookedUp) b.server.catalog().table("users").partitioning();
        try (Connection lutra = repeatableReadHolding(other)) { // the transaction's snapshot of p3, without the key's rows
            assertEquals(4, move(a, key, to), "the user, 2 followers and 1 tweet come to p3 after the snapshot");
            users.table().put((long) key, to);
            lutra.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60033, " + key + ", 'own')");
            try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author = " + key + " GROUP BY author")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(2), "the key's tweet and the transaction's own");
            } catch (SQLException e) {
                // the other right outcome: the home row says p3, and the snapshot there predates the batch that brought the key
                assertEquals("40001", e.getSQLState(), e.toString());
            }
            lutra.rollback();
        }
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /**
     * A transaction that has only read, on one partition, reads a key that left that partition after its snapshot, got a
     * new row where it went and came back: all the transaction has seen is that snapshot, so the reads (one key validated by
     * counting its rows, then by its rows under GROUP BY) answer from it without comparing move-batch counts, and what they
     * answer is the snapshot's rows of the key, as one MariaDB whose snapshot began at the transaction's first read answers
     * (the new row is not in it). Compared, the counts differ, and the transaction ended with 40001.
     */
    @Test
    void aRepeatableReadThatHasSeenOnlyOneSnapshotAnswersFromIt() throws Exception {
        int key = 27; // home p3
        int other = 28; // home p0
        int from = 1;
        int to = 2;
        move(a, key, from);
        move(a, other, from);
        b.server.tailer().pollOnce(); // the reading router's cache has the moves: its first read finds the user on p1, and locks nothing
        try (Connection lutra = repeatableReadHolding(other); Connection writer = a.connect()) { // the snapshot of p1, with both users' rows
            assertEquals(4, move(a, key, to), "the user, 2 followers and 1 tweet leave p1 after the snapshot");
            writer.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60027, " + key + ", 'new')");
            assertEquals(5, move(a, key, from), "and come back with the new tweet");
            b.server.tailer().pollOnce(); // the reading router's cache has both moves: the key is on p1
            var ids = new ArrayList<Integer>();
            try (var rs = lutra.createStatement().executeQuery("SELECT id FROM tweets WHERE author = " + key)) {
                while (rs.next()) ids.add(rs.getInt(1));
            }
            assertEquals(List.of(1000 + key), ids, "the key's tweet in the transaction's snapshot, and not the one written after it");
            try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author = " + key + " GROUP BY author")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(2), "the same snapshot's rows");
            }
            lutra.rollback();
        } finally {
            try (Connection lutra = a.connect()) {
                lutra.createStatement().executeUpdate("DELETE FROM tweets WHERE id = 60027");
            }
        }
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /**
     * A key leaves the partition of a transaction's snapshot, gets a new row where it went, which the transaction reads
     * there (a read of one key takes no lock), and comes back: the snapshot of the first partition still has the key's
     * owner row, and no placement row is left there, but it is older than the key's rows the transaction has seen. A read
     * of several keys must not answer from it (the new row would vanish within the transaction): the group's move-batch
     * count there differs from the latest, the keys are not proven, and the home rows' path ends the transaction (40001).
     */
    @Test
    void aRepeatableReadOfSeveralKeysNeverAnswersFromASnapshotOlderThanRowsItSawOfAKeyThatCameBack() throws Exception {
        int key = 39; // home p3
        int other = 40; // home p0
        int from = 1;
        int to = 2;
        move(a, key, from);
        move(a, other, from);
        var users = (org.lutra.catalog.Partitioning.LookedUp) b.server.catalog().table("users").partitioning();
        try (Connection lutra = repeatableReadHolding(other); Connection writer = a.connect()) { // the transaction's snapshot of p1, with both users' rows (a plain read: no lock taken)
            move(a, key, to);
            writer.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (60039, " + key + ", 'new')");
            users.table().put((long) key, to);
            int seen = 0;
            try (var rs = lutra.createStatement().executeQuery("SELECT id FROM tweets WHERE author = " + key)) {
                while (rs.next()) seen++;
            }
            assertEquals(2, seen, "the transaction reads the key's rows where it went, in a new snapshot");
            move(a, key, from);
            users.table().put((long) key, from);
            var counts = new java.util.TreeMap<Integer, Integer>();
            try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author IN (" + key + ", " + other
                    + ") GROUP BY author")) {
                while (rs.next()) counts.put(rs.getInt(1), rs.getInt(2));
                assertEquals(java.util.Map.of(key, 2, other, 1), counts, "the rows the transaction has seen");
            } catch (SQLException e) {
                assertEquals("40001", e.getSQLState(), e.toString());
            }
            lutra.rollback();
        } finally {
            try (Connection lutra = a.connect()) {
                lutra.createStatement().executeUpdate("DELETE FROM tweets WHERE id = 60039");
            }
        }
        move(a, key, home(key));
        move(a, other, home(other));
    }

    /**
     * Readers in REPEATABLE READ transactions through routers whose caches a mover keeps making stale (moves, and
     * replication to two partitions) read several keys at once, aggregated and ordered, and their own inserts: each
     * key's rows exactly once, never missed, never doubled. A read that finds a key's owner row missing where the cache
     * points resolves the keys by their home rows (and a transaction whose snapshot predates a move there gets 40001,
     * retried).
     */
    @Test
    void repeatableReadsOfSeveralKeysNeverMissNorDoubleMovingOrReplicatedKeys() throws Exception {
        int[] keys = {21, 22, 23, 24, 25};
        var stop = new AtomicBoolean();
        var problems = new ConcurrentLinkedQueue<String>();
        var reads = new AtomicLong();
        var retries = new AtomicLong();
        var moves = new AtomicLong();
        var ids = new AtomicLong(50_000);
        var pool = Executors.newFixedThreadPool(5);
        try {
            var tasks = new ArrayList<Future<?>>();
            tasks.add(pool.submit(() -> {
                var r = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int key = keys[r.nextInt(keys.length)];
                    int p = r.nextInt(4);
                    try (Connection lutra = a.connect()) {
                        String to = r.nextBoolean() ? "p" + p : "(p" + p + ", p" + (p + 1 + r.nextInt(3)) % 4 + ")";
                        lutra.createStatement().executeUpdate("ALTER TABLE users SET PARTITION = " + to + " WHERE id = " + key);
                        moves.incrementAndGet();
                    } catch (SQLException e) {
                        if (e.getErrorCode() != 1205 && !"40001".equals(e.getSQLState())) throw e; // a move that waited too long for readers' locks
                    }
                }
                return null;
            }));
            for (TestRouter reader : List.of(b, c, b, c)) {
                tasks.add(pool.submit(() -> {
                    var r = ThreadLocalRandom.current();
                    try (Connection lutra = reader.connect()) {
                        lutra.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                        lutra.setAutoCommit(false);
                        while (!stop.get()) {
                            int first = keys[r.nextInt(keys.length)];
                            int second = keys[r.nextInt(keys.length)];
                            int third = keys[r.nextInt(keys.length)];
                            var asked = new java.util.TreeSet<>(List.of(first, second, third));
                            String in = "(" + first + ", " + second + ", " + third + ")";
                            int inserted = r.nextInt(3) == 0 ? second : -1;
                            try {
                                if (r.nextBoolean()) { // a snapshot of one partition first, maybe older than a move there
                                    try (var rs = lutra.createStatement().executeQuery("SELECT name FROM users WHERE id = " + first)) {
                                        if (!rs.next()) problems.add("user " + first + " missed");
                                    }
                                }
                                if (inserted > 0) {
                                    lutra.createStatement().executeUpdate("INSERT INTO tweets (id, author, body) VALUES (" + ids.incrementAndGet() + ", " + inserted + ", 'own')");
                                }
                                var counts = new java.util.TreeMap<Integer, Integer>();
                                try (var rs = lutra.createStatement().executeQuery("SELECT author, COUNT(*) FROM tweets WHERE author IN " + in + " GROUP BY author")) {
                                    while (rs.next()) {
                                        if (counts.put(rs.getInt(1), rs.getInt(2)) != null) problems.add("author " + rs.getInt(1) + " grouped twice");
                                    }
                                }
                                for (int key : asked) {
                                    int expected = key == inserted ? 2 : 1;
                                    if (counts.getOrDefault(key, 0) != expected) problems.add("user " + key + ": " + counts.get(key) + " tweets, not " + expected);
                                }
                                var followers = new java.util.TreeMap<Integer, Integer>();
                                try (var rs = lutra.createStatement().executeQuery("SELECT source, destination FROM followers WHERE source IN " + in
                                        + " ORDER BY source, destination LIMIT 100")) {
                                    while (rs.next()) followers.merge(rs.getInt(1), 1, Integer::sum);
                                }
                                for (int key : asked) {
                                    if (followers.getOrDefault(key, 0) != 2) problems.add("user " + key + ": " + followers.get(key) + " followers, not 2");
                                }
                                reads.incrementAndGet();
                            } catch (SQLException e) {
                                if (!"40001".equals(e.getSQLState()) && e.getErrorCode() != 1205) throw e;
                                retries.incrementAndGet();
                            }
                            lutra.rollback(); // the inserted tweet goes
                        }
                    }
                    return null;
                }));
            }
            runUntilEnough(stop, tasks, moves, 10, reads, 50);
        } finally {
            pool.shutdownNow();
        }
        assertTrue(moves.get() > 10 && reads.get() > 50, moves + " moves, " + reads + " reads");
        assertEquals(List.of(), List.copyOf(problems), moves + " moves, " + reads + " reads, " + retries + " retried");
        System.out.printf("MultiRouterPlacementIT: %d moves and replications, %d repeatable reads of several keys (%d retried), none missed or doubled%n",
                moves.get(), reads.get(), retries.get());
        for (int key : keys) {
            assertEquals(where("users", "id", key), where("followers", "source", key));
            assertEquals(where("users", "id", key), where("tweets", "author", key));
        }
    }

    private static java.util.Map<String, String> status(Connection c) throws SQLException {
        var status = new java.util.HashMap<String, String>();
        try (var rs = c.createStatement().executeQuery("SHOW LUTRA STATUS")) {
            while (rs.next()) status.put(rs.getString("Variable_name"), rs.getString("Value"));
        }
        return status;
    }

    /** The counts of "1:3 2:1" histograms, after minus before, zeros left out. */
    private static java.util.Map<Integer, Long> delta(String after, String before) {
        var out = new java.util.TreeMap<Integer, Long>();
        for (String pair : after.isBlank() ? new String[0] : after.split(" ")) {
            out.merge(Integer.parseInt(pair.substring(0, pair.indexOf(':'))), Long.parseLong(pair.substring(pair.indexOf(':') + 1)), Long::sum);
        }
        for (String pair : before.isBlank() ? new String[0] : before.split(" ")) {
            out.merge(Integer.parseInt(pair.substring(0, pair.indexOf(':'))), -Long.parseLong(pair.substring(pair.indexOf(':') + 1)), Long::sum);
        }
        out.values().removeIf(v -> v == 0);
        return out;
    }

    /**
     * Lets the movers and readers run 8 s, and on a loaded machine on until more than {@code minMoves} moves and
     * {@code minReads} reads were made (90 s at most); then stops them and waits for each (its failure fails the test).
     */
    private static void runUntilEnough(AtomicBoolean stop, List<Future<?>> tasks, AtomicLong moves, long minMoves, AtomicLong reads,
                                       long minReads) throws Exception {
        long started = System.nanoTime();
        while (System.nanoTime() - started < 8_000_000_000L
                || (moves.get() <= minMoves || reads.get() <= minReads) && System.nanoTime() - started < 90_000_000_000L) {
            if (tasks.stream().anyMatch(Future::isDone)) break; // one failed: its error ends the test
            Thread.sleep(100);
        }
        stop.set(true);
        for (var t : tasks) t.get();
    }

    /**
     * A REPEATABLE READ transaction through router b whose snapshot of {@code user}'s partition is taken by reading that user
     * (a plain read: no lock held).
     */
    private Connection repeatableReadHolding(int user) throws SQLException {
        Connection lutra = b.connect();
        lutra.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        lutra.setAutoCommit(false);
        try (var rs = lutra.createStatement().executeQuery("SELECT name FROM users WHERE id = " + user)) {
            assertTrue(rs.next(), "user " + user);
        }
        return lutra;
    }
}
