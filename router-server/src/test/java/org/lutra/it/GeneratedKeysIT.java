package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * AUTO_INCREMENT ids through Lutra: unique across partitions and routers (the block allocator in
 * lutra_sequences), each row on the partition its id routes to, getGeneratedKeys and
 * LAST_INSERT_ID() giving the ids the rows got — checked by reading the partitions directly, and
 * differentially against one plain MariaDB running the same statements (values may differ, so
 * the check is a bijection of keys under which the tables are equal).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GeneratedKeysIT {
    static final String SCHEMA = """
            CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer INT NOT NULL, note VARCHAR(40))
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE accounts (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT, account INT NOT NULL, kind VARCHAR(20), PRIMARY KEY (id, account))
              PARTITION BY lookup(account) SAME AS accounts;
            CREATE TABLE ranged (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT) PARTITION BY range(id) ON (p0 < 300, p1 < 600, p2 < 900, p3);
            CREATE TABLE tags (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20)) REPLICATED;
            CREATE TABLE plain (k INT PRIMARY KEY, v INT) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            """;
    private static final List<String> TABLES = List.of("orders", "accounts", "events", "ranged", "tags", "plain");

    Differential differential;
    Connection lutra;
    Connection reference;
    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "genkeys", SCHEMA);
        lutra = differential.lutra;
        reference = differential.reference;
        router = differential.router;
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @BeforeEach
    void empty() throws SQLException {
        lutra.setAutoCommit(true);
        for (String t : TABLES) {
            for (Connection c : List.of(lutra, reference)) {
                try (var st = c.createStatement()) {
                    st.executeUpdate("DELETE FROM " + t);
                }
            }
        }
    }

    /** A second router on the same partitions (a router name of its own, as two live routers need). */
    private RouterServer secondRouter(String name) throws Exception {
        var c = router.config;
        return RouterServer.start(new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), new RouterConfig.Transactions(name, 0, 0, 0), c.limits()));
    }

    private static Connection connect(RouterServer server, String database) throws SQLException {
        return DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + server.port() + "/" + database, TestRouter.USER, TestRouter.PASSWORD);
    }

    // ---- unique ids, on the partition their id routes to ------------------------------------------

    @Test
    void manyInsertsFromSeveralThreadsOnTwoRoutersGetDistinctIdsEachRowWhereItsIdRoutes() throws Exception {
        var keys = new ConcurrentLinkedQueue<Long>();
        var failures = new ConcurrentLinkedQueue<String>();
        try (var second = secondRouter("genkeys2")) {
            var threads = new ArrayList<Thread>();
            for (int t = 0; t < 6; t++) {
                int thread = t;
                RouterServer server = t % 2 == 0 ? router.server : second;
                threads.add(Thread.ofPlatform().start(() -> {
                    try (var c = connect(server, router.database)) {
                        insertMix(c, thread, keys);
                    } catch (Throwable e) {
                        failures.add(thread + ": " + e);
                    }
                }));
            }
            for (var t : threads) t.join(120_000);
        }
        assertTrue(failures.isEmpty(), failures.toString());
        var distinct = new HashSet<>(keys);
        assertEquals(keys.size(), distinct.size(), "every generated key is distinct");
        assertEquals(6 * 150, keys.size(), "150 rows per thread: 50 single, 10 of five rows, a batch of 50");
        // read the partitions themselves: each row where hash(id) puts it, no id twice, exactly the keys reported
        var orders = router.server.catalog().table("orders").partitioning();
        var seen = new HashSet<Long>();
        for (int p = 0; p < 4; p++) {
            try (var c = router.partition(p); var st = c.createStatement(); var rs = st.executeQuery("SELECT id, customer, note FROM orders")) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    assertEquals(p, orders.placeNew(id), "row " + id + " is on the partition its id routes to");
                    assertTrue(seen.add(id), "id " + id + " on two partitions");
                    assertEquals("c" + rs.getInt(2), rs.getString(3).substring(0, rs.getString(3).indexOf('/')), "row " + id + " holds what was inserted with it");
                }
            }
        }
        assertEquals(distinct, seen, "the rows on the partitions are exactly the keys getGeneratedKeys reported");
    }

    /** 50 single-row inserts (LAST_INSERT_ID() checked after each), 10 five-row inserts, a prepared batch of 50. */
    private static void insertMix(Connection c, int thread, ConcurrentLinkedQueue<Long> all) throws SQLException {
        try (var ps = c.prepareStatement("INSERT INTO orders (customer, note) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < 50; i++) {
                ps.setInt(1, thread);
                ps.setString(2, "c" + thread + "/single" + i);
                assertEquals(1, ps.executeUpdate());
                long key = only(ps.getGeneratedKeys());
                all.add(key);
                assertEquals(key, lastInsertId(c), "LAST_INSERT_ID() is this session's last generated id");
                assertEquals("c" + thread + "/single" + i, noteOf(c, key), "the key names the row inserted");
            }
        }
        try (var st = c.createStatement()) {
            for (int i = 0; i < 10; i++) {
                var sql = new StringBuilder("INSERT INTO orders (customer, note) VALUES ");
                for (int r = 0; r < 5; r++) sql.append(r > 0 ? ", " : "").append("(").append(thread).append(", 'c").append(thread).append("/multi").append(i).append('.').append(r).append("')");
                assertEquals(5, st.executeUpdate(sql.toString(), Statement.RETURN_GENERATED_KEYS));
                var keys = list(st.getGeneratedKeys());
                assertEquals(5, keys.size());
                all.addAll(keys);
                assertEquals(keys.getFirst(), lastInsertId(c), "a multi-row INSERT: LAST_INSERT_ID() is its first id");
                for (int r = 0; r < 5; r++) assertEquals("c" + thread + "/multi" + i + "." + r, noteOf(c, keys.get(r)), "keys come in row order");
            }
        }
        try (var ps = c.prepareStatement("INSERT INTO orders (customer, note) VALUES (?, ?)", new String[] {"id"})) {
            for (int i = 0; i < 50; i++) {
                ps.setInt(1, thread);
                ps.setString(2, "c" + thread + "/batch" + i);
                ps.addBatch();
            }
            assertEquals(50, ps.executeBatch().length);
            var keys = list(ps.getGeneratedKeys());
            assertEquals(50, keys.size(), "one key per batch entry");
            all.addAll(keys);
            assertEquals(keys.getLast(), lastInsertId(c), "a batch: LAST_INSERT_ID() is the id of its last entry, a statement of its own");
            for (int i = 0; i < 50; i += 7) assertEquals("c" + thread + "/batch" + i, noteOf(c, keys.get(i)));
        }
    }

    @Test
    void aRestartedRouterDoesNotReuseIds() throws Exception {
        var before = new ArrayList<Long>();
        var c = router.config;
        var config = new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), new RouterConfig.Transactions("genkeys-restart", 0, 0, 0), c.limits());
        try (var first = RouterServer.start(config); var conn = connect(first, router.database); var st = conn.createStatement()) {
            for (int i = 0; i < 3; i++) {
                st.executeUpdate("INSERT INTO orders (customer, note) VALUES (1, 'a'), (1, 'b')", Statement.RETURN_GENERATED_KEYS);
                before.addAll(list(st.getGeneratedKeys()));
            }
        }
        try (var again = RouterServer.start(config); var conn = connect(again, router.database); var st = conn.createStatement()) {
            st.executeUpdate("INSERT INTO orders (customer, note) VALUES (2, 'c')", Statement.RETURN_GENERATED_KEYS);
            long after = only(st.getGeneratedKeys());
            assertTrue(after > Collections.max(before), "the restarted router's first id " + after + " is above every id before " + before);
        }
        assertEquals(7, count(lutra, "orders"));
    }

    @Test
    void rowsWrittenBehindTheRoutersBackBeforeItsFirstIdAreSkipped() throws Exception {
        // a fresh router's first block starts above MAX(id) on every partition
        try (var p2 = router.partition(2); var st = p2.createStatement()) {
            st.executeUpdate("INSERT INTO ranged (id, v) VALUES (700, 1)");
        }
        try (var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO ranged (v) VALUES (2)", Statement.RETURN_GENERATED_KEYS);
            long id = only(st.getGeneratedKeys());
            assertTrue(id > 700, "id " + id);
        }
    }

    // ---- explicit ids ---------------------------------------------------------------------------

    @Test
    void explicitIdsMoveTheCounterPastThemAndCollideAsInMysql() throws SQLException {
        try (var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO orders (customer, note) VALUES (1, 'a')", Statement.RETURN_GENERATED_KEYS);
            long first = only(st.getGeneratedKeys());
            long far = first + 50_000;
            assertEquals(1, st.executeUpdate("INSERT INTO orders (id, customer, note) VALUES (" + far + ", 2, 'b')", Statement.RETURN_GENERATED_KEYS));
            assertEquals(far, only(st.getGeneratedKeys()), "an explicit id is the row's key, as Connector/J reports it for one row");
            assertEquals(first, lastInsertId(lutra), "an explicit id is not a generated one: LAST_INSERT_ID() stays");
            st.executeUpdate("INSERT INTO orders (customer, note) VALUES (3, 'c')", Statement.RETURN_GENERATED_KEYS);
            long next = only(st.getGeneratedKeys());
            assertTrue(next > far, "the next id " + next + " comes after the explicit " + far);
            // inside this router's block: skipped past, too
            st.executeUpdate("INSERT INTO orders (id, customer, note) VALUES (" + (next + 3) + ", 4, 'd')");
            st.executeUpdate("INSERT INTO orders (id, customer, note) VALUES (NULL, 5, 'e')", Statement.RETURN_GENERATED_KEYS);
            assertEquals(next + 4, only(st.getGeneratedKeys()));
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO orders (id, customer) VALUES (" + far + ", 9)"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
            assertEquals(next + 4, lastInsertId(lutra), "UPDATE and failed statements leave LAST_INSERT_ID() alone");
            st.executeUpdate("UPDATE orders SET note = 'z' WHERE id = " + far);
            assertEquals(next + 4, lastInsertId(lutra));
        }
    }

    @Test
    void nullZeroAndDefaultAsParametersGetIdsExplicitParametersStay() throws SQLException {
        try (var ps = lutra.prepareStatement("INSERT INTO orders (id, customer) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            ps.setNull(1, java.sql.Types.BIGINT);
            ps.setInt(2, 1);
            ps.executeUpdate();
            long a = only(ps.getGeneratedKeys());
            ps.setInt(1, 0);
            ps.executeUpdate();
            long b = only(ps.getGeneratedKeys());
            ps.setLong(1, b + 1000);
            ps.executeUpdate();
            assertEquals(b + 1000, only(ps.getGeneratedKeys()));
            assertNotEquals(a, b);
            assertTrue(a > 0 && b > 0);
        }
        try (var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO orders VALUES (DEFAULT, 7, 'x'), (0, 8, 'y')", Statement.RETURN_GENERATED_KEYS);
            var keys = list(st.getGeneratedKeys());
            assertEquals(2, keys.size());
            assertEquals("x", noteOf(lutra, keys.get(0)));
            assertEquals("y", noteOf(lutra, keys.get(1)));
        }
        assertEquals(5, count(lutra, "orders"));
    }

    @Test
    void insideATransactionIdsSpanPartitionsAtomicallyAndARollbackLeavesAGapAsInnodbDoes() throws SQLException {
        for (Connection c : List.of(reference, lutra)) {
            String side = c == lutra ? "lutra" : "reference";
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.executeUpdate("INSERT INTO orders (customer, note) VALUES (1, 'a'), (1, 'b'), (1, 'c'), (1, 'd')", Statement.RETURN_GENERATED_KEYS);
                var rolledBack = list(st.getGeneratedKeys());
                assertEquals(4, rolledBack.size(), side);
                c.rollback();
                assertEquals(0, count(c, "orders"), side + ": the four rows, on several partitions, are gone together");
                assertEquals(rolledBack.getFirst(), lastInsertId(c), side + ": a rollback does not undo LAST_INSERT_ID()");
                st.executeUpdate("INSERT INTO orders (customer, note) VALUES (2, 'e'), (2, 'f')", Statement.RETURN_GENERATED_KEYS);
                var kept = list(st.getGeneratedKeys());
                c.commit();
                assertTrue(kept.getFirst() > Collections.max(rolledBack), side + ": ids of rolled-back rows are not handed out again " + kept);
                assertEquals("e", noteOf(c, kept.get(0)), side);
                assertEquals("f", noteOf(c, kept.get(1)), side);
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    // ---- every placement ------------------------------------------------------------------------

    @Test
    void lookupSameAsRangeAndReplicatedTablesGetIdsToo() throws SQLException {
        long account;
        try (var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO accounts (name) VALUES ('ann')", Statement.RETURN_GENERATED_KEYS);
            account = only(st.getGeneratedKeys());
            // a child row routed by its account, with an id of its own
            st.executeUpdate("INSERT INTO events (account, kind) VALUES (" + account + ", 'login'), (" + account + ", 'logout')",
                    Statement.RETURN_GENERATED_KEYS);
            var events = list(st.getGeneratedKeys());
            assertEquals(2, events.size());
            assertNotEquals(events.get(0), events.get(1));
            st.executeUpdate("INSERT INTO ranged (v) VALUES (1), (2), (3)", Statement.RETURN_GENERATED_KEYS);
            assertEquals(3, list(st.getGeneratedKeys()).size());
            st.executeUpdate("INSERT INTO tags (name) VALUES ('red'), ('blue')", Statement.RETURN_GENERATED_KEYS);
            var tags = list(st.getGeneratedKeys());
            assertEquals(2, tags.size());
            // the replicated table: the same ids on every replica
            for (int p = 0; p < 4; p++) {
                assertEquals(new TreeMap<>(Map.of(tags.get(0), "red", tags.get(1), "blue")), onPartition(p, "SELECT id, name FROM tags"), "p" + p);
            }
        }
        var accounts = router.server.catalog().table("accounts").partitioning();
        int home = accounts.placeNew(account);
        assertEquals(Map.of(account, "ann"), onPartition(home, "SELECT id, name FROM accounts").entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), "the account on its DEFAULT NEW partition");
        assertEquals(2, onPartition(home, "SELECT id, kind FROM events").size(), "its events with it");
        var ranged = router.server.catalog().table("ranged").partitioning();
        for (int p = 0; p < 4; p++) {
            for (long id : onPartition(p, "SELECT id, v FROM ranged").keySet()) assertEquals(p, ranged.placeNew(id));
        }
    }

    @Test
    void anInsertWithoutARoutingColumnThatIsNotAutoIncrementFailsAsOnOneMariaDb() throws SQLException {
        try (var st = lutra.createStatement(); var r = reference.createStatement()) {
            // k INT PRIMARY KEY has no default: routed by MariaDB's implicit one (0), where strict mode refuses the row
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO plain (v) VALUES (1)"));
            var one = assertThrows(SQLException.class, () -> r.executeUpdate("INSERT INTO plain (v) VALUES (1)"));
            assertEquals(one.getErrorCode(), e.getErrorCode(), e.getMessage());
            assertEquals(1364, e.getErrorCode(), e.getMessage());
            var upsert = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO orders (customer) VALUES (1) ON DUPLICATE KEY UPDATE customer = 2"));
            assertRefusal(upsert);
        }
        assertEquals(0, count(lutra, "orders"));
    }

    @Test
    void getGeneratedKeysAsConnectorJAnswersIt() throws SQLException {
        for (Connection c : List.of(reference, lutra)) {
            try (var st = c.createStatement()) {
                st.executeUpdate("INSERT INTO orders (customer) VALUES (1)");
                var e = assertThrows(SQLException.class, st::getGeneratedKeys, "keys not asked for");
                assertEquals("S1009", e.getSQLState());
                st.executeUpdate("UPDATE orders SET customer = 2", Statement.RETURN_GENERATED_KEYS);
                assertEquals(List.of(), list(st.getGeneratedKeys()), "an UPDATE generated none");
                st.executeUpdate("INSERT INTO orders (customer) VALUES (3)", Statement.RETURN_GENERATED_KEYS);
                try (var rs = st.getGeneratedKeys()) {
                    assertEquals("GENERATED_KEY", rs.getMetaData().getColumnLabel(1), c == lutra ? "lutra" : "reference");
                    assertEquals(java.sql.Types.BIGINT, rs.getMetaData().getColumnType(1));
                    assertTrue(rs.next());
                    assertTrue(rs.getLong(1) > 0);
                }
            }
        }
    }

    // ---- the same statements on one MariaDB -----------------------------------------------------

    /**
     * Random single-row and multi-row INSERTs, Statement and PreparedStatement batches, explicit ids
     * and INSERT IGNORE duplicates, run on both sides. The ids differ (the reference counts from 1,
     * Lutra from its blocks), so the check maps each Lutra key to the reference key reported at the
     * same place, requires that mapping to be one-to-one (and the identity for explicit ids), and
     * compares the tables under it, with LAST_INSERT_ID() after every statement.
     */
    @Test
    void theSameStatementsOnOneMariadbGiveTheSameRowsUnderABijectionOfKeys() throws SQLException {
        long randomSeed = Long.getLong("lutra.genkeys.seed", System.nanoTime());
        System.out.println("GeneratedKeysIT differential: -Dlutra.genkeys.seed=" + randomSeed);
        var random = new Random(randomSeed);
        var toReference = new HashMap<Long, Long>();
        // explicit ids count down below a first one: MySQL moves its counter past the highest, so generated ids never meet them
        long seed = 1_000_000_001L, explicit = seed;
        var explicitIds = new HashSet<>(List.of(seed));
        for (Connection c : List.of(lutra, reference)) statementKeys(c, "INSERT INTO orders (id, customer, note) VALUES (" + seed + ", -1, 'seed')");
        toReference.put(seed, seed);
        // the two sessions may carry LAST_INSERT_ID() from earlier tests of this class: those ids correspond too
        long lutraBefore = lastInsertId(lutra), referenceBefore = lastInsertId(reference);
        if (lutraBefore != 0) toReference.putIfAbsent(lutraBefore, referenceBefore);
        for (int step = 0; step < 120; step++) {
            String what;
            List<Long> lutraKeys, referenceKeys;
            switch (random.nextInt(8)) {
                case 0, 1 -> {
                    int rows = 1 + random.nextInt(random.nextBoolean() ? 1 : 6);
                    var sql = new StringBuilder("INSERT INTO orders (customer, note) VALUES ");
                    for (int r = 0; r < rows; r++) sql.append(r > 0 ? ", " : "").append("(").append(step).append(", 'n").append(step).append('.').append(r).append("')");
                    what = sql.toString();
                    lutraKeys = statementKeys(lutra, what);
                    referenceKeys = statementKeys(reference, what);
                }
                case 2 -> {
                    what = "explicit id " + (--explicit);
                    explicitIds.add(explicit);
                    String sql = "INSERT INTO orders (id, customer, note) VALUES (" + explicit + ", " + step + ", 'e" + step + "')";
                    lutraKeys = statementKeys(lutra, sql);
                    referenceKeys = statementKeys(reference, sql);
                }
                case 3 -> {
                    int entries = 1 + random.nextInt(8);
                    what = "prepared batch of " + entries;
                    lutraKeys = preparedBatchKeys(lutra, step, entries);
                    referenceKeys = preparedBatchKeys(reference, step, entries);
                }
                case 4 -> {
                    int entries = 1 + random.nextInt(4);
                    what = "statement batch of " + entries;
                    lutraKeys = statementBatchKeys(lutra, step, entries);
                    referenceKeys = statementBatchKeys(reference, step, entries);
                }
                case 6 -> {
                    // NULL, 0 and DEFAULT ask for an id on both sides
                    var sql = new StringBuilder("INSERT INTO orders (id, customer, note) VALUES ");
                    int rows = 1 + random.nextInt(4);
                    for (int r = 0; r < rows; r++) {
                        sql.append(r > 0 ? ", " : "").append("(").append(List.of("NULL", "0", "DEFAULT").get(random.nextInt(3)))
                                .append(", ").append(step).append(", 'z").append(step).append('.').append(r).append("')");
                    }
                    what = sql.toString();
                    lutraKeys = statementKeys(lutra, what);
                    referenceKeys = statementKeys(reference, what);
                }
                case 7 -> {
                    what = "prepared single-row INSERT with a NULL id parameter";
                    lutraKeys = preparedNullId(lutra, step);
                    referenceKeys = preparedNullId(reference, step);
                }
                default -> {
                    // a duplicate explicit id, skipped by IGNORE: no key, LAST_INSERT_ID() unchanged
                    what = "INSERT IGNORE of an existing id";
                    String sql = "INSERT IGNORE INTO orders (id, customer, note) VALUES (" + explicit + ", 0, 'dup')";
                    lutraKeys = statementKeys(lutra, sql);
                    referenceKeys = statementKeys(reference, sql);
                }
            }
            assertEquals(referenceKeys.size(), lutraKeys.size(), "step " + step + ", " + what + ": as many keys");
            for (int i = 0; i < lutraKeys.size(); i++) {
                Long earlier = toReference.putIfAbsent(lutraKeys.get(i), referenceKeys.get(i));
                assertTrue(earlier == null || earlier.equals(referenceKeys.get(i)), "step " + step + ": key " + lutraKeys.get(i) + " maps to two reference keys");
            }
            long lutraLast = lastInsertId(lutra), referenceLast = lastInsertId(reference);
            assertEquals(referenceLast, lutraLast == 0 ? 0 : toReference.getOrDefault(lutraLast, -1L), "step " + step + ", " + what + ": LAST_INSERT_ID()");
        }
        assertEquals(toReference.size(), new HashSet<>(toReference.values()).size(), "the mapping is one-to-one");
        toReference.forEach((l, r) -> { if (explicitIds.contains(l) || explicitIds.contains(r)) assertEquals(r, l, "explicit ids are kept"); });
        var mapped = new TreeMap<Long, String>();
        idToText(lutra, "SELECT id, CONCAT(customer, '|', COALESCE(note, '')) FROM orders").forEach((id, row) -> {
            assertTrue(toReference.containsKey(id), "row " + id + " through Lutra was reported by getGeneratedKeys");
            mapped.put(toReference.get(id), row);
        });
        assertEquals(idToText(reference, "SELECT id, CONCAT(customer, '|', COALESCE(note, '')) FROM orders"), mapped);
    }

    private static List<Long> statementKeys(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement()) {
            st.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS);
            return list(st.getGeneratedKeys());
        }
    }

    private static List<Long> preparedBatchKeys(Connection c, int step, int entries) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (customer, note) VALUES (?, ?)", new int[] {1})) {
            for (int i = 0; i < entries; i++) {
                ps.setInt(1, step);
                ps.setString(2, "b" + step + "." + i);
                ps.addBatch();
            }
            ps.executeBatch();
            return list(ps.getGeneratedKeys());
        }
    }

    private static List<Long> preparedNullId(Connection c, int step) throws SQLException {
        try (var ps = c.prepareStatement("INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            ps.setNull(1, java.sql.Types.BIGINT);
            ps.setInt(2, step);
            ps.setString(3, "p" + step);
            ps.executeUpdate();
            return list(ps.getGeneratedKeys());
        }
    }

    private static List<Long> statementBatchKeys(Connection c, int step, int entries) throws SQLException {
        try (var st = c.createStatement()) {
            for (int i = 0; i < entries; i++) {
                // the second entry of each batch has two rows
                st.addBatch("INSERT INTO orders (customer, note) VALUES (" + step + ", 's" + step + "." + i + "')"
                        + (i == 1 ? ", (" + step + ", 's" + step + "." + i + "b')" : ""));
            }
            st.executeBatch();
            return list(st.getGeneratedKeys());
        }
    }

    // ---- LAST_INSERT_ID(expr) --------------------------------------------------------------------

    /**
     * The counter idiom {@code UPDATE seq SET v = LAST_INSERT_ID(v + 1) WHERE k = ?} then {@code SELECT
     * LAST_INSERT_ID()}: random steps on fresh sessions of Lutra and of one plain MariaDB (Connector/J),
     * with LAST_INSERT_ID(), getGeneratedKeys and the table compared after each; keys that match no row
     * (the session keeps its value), LAST_INSERT_ID(0), parameters, a transaction, a batch, a replicated table.
     */
    @Test
    void lastInsertIdOfAnExpressionAsOneMariaDb() throws SQLException {
        differential.both("INSERT INTO plain VALUES (1, 10), (2, 20), (3, 30), (4, 40), (5, 50), (6, 60)");
        differential.both("INSERT INTO tags VALUES (1, 'a'), (2, 'b')");
        var random = new Random(12);
        try (Connection l = router.connect(); Connection r = differential.newReference()) {
            for (int step = 0; step < 120; step++) {
                int k = 1 + random.nextInt(8); // 7 and 8 match no row
                String sql = switch (random.nextInt(6)) {
                    case 0 -> "UPDATE plain SET v = LAST_INSERT_ID(0) WHERE k = " + k;
                    case 1 -> "UPDATE plain SET v = LAST_INSERT_ID(v * 2 + 3) WHERE k = " + k + " AND v < 100000";
                    case 2 -> "UPDATE tags SET name = CONCAT(name, 'x'), id = LAST_INSERT_ID(id + 10) WHERE name LIKE '" + (k % 2 == 0 ? "a" : "b") + "%'";
                    default -> "UPDATE plain SET v = LAST_INSERT_ID(v + 1) WHERE k = " + k;
                };
                boolean autoCommit = step % 10 != 3;
                l.setAutoCommit(autoCommit);
                r.setAutoCommit(autoCommit);
                List<Long> keys = new ArrayList<>();
                for (Connection c : List.of(l, r)) {
                    try (var st = c.createStatement()) {
                        st.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS);
                        keys.addAll(list(st.getGeneratedKeys()));
                    }
                }
                String what = "step " + step + ": " + sql;
                int half = keys.size() / 2;
                assertEquals(keys.subList(half, keys.size()), keys.subList(0, half), what + ": getGeneratedKeys (Lutra's, then MariaDB's)");
                assertEquals(lastInsertId(r), lastInsertId(l), what + ": LAST_INSERT_ID()");
                if (!autoCommit) {
                    l.commit();
                    r.commit();
                }
            }
            l.setAutoCommit(true);
            r.setAutoCommit(true);
            for (Connection c : List.of(l, r)) {
                try (var ps = c.prepareStatement("UPDATE plain SET v = LAST_INSERT_ID(v + ?) WHERE k = ?")) {
                    ps.setInt(1, 5);
                    ps.setInt(2, 2);
                    ps.addBatch();
                    ps.setInt(1, 9);
                    ps.setInt(2, 7); // no row: the batch's value is the entry before
                    ps.addBatch();
                    ps.executeBatch();
                }
            }
            assertEquals(lastInsertId(r), lastInsertId(l), "after a batch");
            assertEquals(idToText(r, "SELECT k, v FROM plain ORDER BY k"), idToText(l, "SELECT k, v FROM plain ORDER BY k"));
            assertEquals(idToText(r, "SELECT id, name FROM tags ORDER BY id"), idToText(l, "SELECT id, name FROM tags ORDER BY id"));

            long kept = lastInsertId(l);
            for (String refused : List.of(
                    "UPDATE plain SET v = LAST_INSERT_ID(v + 1)",                     // four partitions: which row is last is unknown
                    "UPDATE plain SET v = LAST_INSERT_ID(v + 1) WHERE k IN (1, 2, 3, 4, 5)",
                    "UPDATE plain SET v = v + LAST_INSERT_ID(1) WHERE k = 1",          // not the whole SET value
                    "UPDATE plain SET v = 1 WHERE k = LAST_INSERT_ID(1)",              // WHERE: evaluated per row read
                    "SELECT LAST_INSERT_ID(5)",
                    "INSERT INTO plain VALUES (LAST_INSERT_ID(9), 9)")) {
                try (var st = l.createStatement()) {
                    assertRefusal(assertThrows(SQLException.class, () -> st.execute(refused), refused), refused);
                }
                assertEquals(kept, lastInsertId(l), refused + ": a refusal leaves LAST_INSERT_ID() alone");
            }
            assertEquals(idToText(r, "SELECT k, v FROM plain ORDER BY k"), idToText(l, "SELECT k, v FROM plain ORDER BY k"), "nothing refused ran");
        }
    }

    /**
     * The counter idiom from several sessions on two routers at once, over pooled backend connections:
     * each session's LAST_INSERT_ID() is the value its own UPDATE set, so the values handed out are
     * 1..n, each once.
     */
    @Test
    void counterIdiomFromConcurrentSessionsHandsOutEachValueOnce() throws Exception {
        differential.both("INSERT INTO plain VALUES (100, 0)");
        var got = new ConcurrentLinkedQueue<Long>();
        var failures = new ConcurrentLinkedQueue<String>();
        int threads = 6, each = 30;
        try (var second = secondRouter("genkeys3")) {
            var started = new ArrayList<Thread>();
            for (int t = 0; t < threads; t++) {
                RouterServer server = t % 2 == 0 ? router.server : second;
                boolean inTransaction = t % 3 == 0;
                started.add(Thread.ofPlatform().start(() -> {
                    try (var c = connect(server, router.database); var ps = c.prepareStatement("UPDATE plain SET v = LAST_INSERT_ID(v + 1) WHERE k = ?")) {
                        c.setAutoCommit(!inTransaction);
                        for (int i = 0; i < each; i++) {
                            ps.setInt(1, 100);
                            assertEquals(1, ps.executeUpdate());
                            got.add(lastInsertId(c));
                            if (inTransaction) c.commit();
                        }
                    } catch (Throwable e) {
                        failures.add(e.toString());
                    }
                }));
            }
            for (var t : started) t.join();
        }
        assertEquals(List.of(), List.copyOf(failures));
        var sorted = new ArrayList<>(got);
        Collections.sort(sorted);
        var expected = new ArrayList<Long>();
        for (long v = 1; v <= threads * each; v++) expected.add(v);
        assertEquals(expected, sorted, "each value once");
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static long lastInsertId(Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private static String noteOf(Connection c, long id) throws SQLException {
        try (var ps = c.prepareStatement("SELECT note FROM orders WHERE id = ?")) {
            ps.setLong(1, id);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next(), "row " + id + " exists");
                return rs.getString(1);
            }
        }
    }

    private static long only(java.sql.ResultSet keys) throws SQLException {
        var all = list(keys);
        assertEquals(1, all.size(), "one key: " + all);
        return all.getFirst();
    }

    private static List<Long> list(java.sql.ResultSet keys) throws SQLException {
        var out = new ArrayList<Long>();
        try (keys) {
            while (keys.next()) out.add(keys.getLong(1));
        }
        return out;
    }

    private static TreeMap<Long, String> idToText(Connection c, String sql) throws SQLException {
        var out = new TreeMap<Long, String>();
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            while (rs.next()) assertNull(out.put(rs.getLong(1), rs.getString(2)), "id " + rs.getLong(1) + " twice");
        }
        return out;
    }

    /** {@link #idToText} read on partition {@code p}'s database directly, not through the router. */
    private TreeMap<Long, String> onPartition(int p, String sql) throws SQLException {
        try (var c = router.partition(p)) {
            return idToText(c, sql);
        }
    }

    private static long count(Connection c, String table) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
