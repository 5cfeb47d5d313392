package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * DDL through the driver on two routers sharing four partitions: each statement checked on the
 * backends themselves (information_schema and the rows of every partition's database, read past the
 * routers), routing after it (rows land where the placement says), and the other router seeing each
 * change before its next statement on the table.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DdlIT {
    static final String SCHEMA = "CREATE TABLE seed (id INT PRIMARY KEY, v INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);";
    static final RouterConfig.CatalogSettings LEASE = new RouterConfig.CatalogSettings(300, null);

    Shards shards;
    String database;
    TestRouter a;
    TestRouter b;
    Connection ca;
    Connection cb;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        database = ("ddlit_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36)).toLowerCase();
        a = router("ra");
        b = router("rb");
        ca = a.connect();
        cb = b.connect();
    }

    private TestRouter router(String name) throws Exception {
        return new TestRouter(shards, database, SCHEMA, new RouterConfig.Transactions(name, 0, 0, 0), shards.size(), null, 8, 0, LEASE);
    }

    @AfterAll
    void stop() throws Exception {
        if (ca != null) ca.close();
        if (cb != null) cb.close();
        if (b != null) b.stopRouter();
        if (a != null) a.close();
    }

    @Test
    void createLookupAndSameAsOnOneRouterAndTheOtherRoutesThem() throws SQLException {
        exec(ca, "CREATE TABLE owners (id INT PRIMARY KEY, name VARCHAR(20)) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id)");
        exec(ca, "CREATE TABLE pets (owner INT NOT NULL, pet INT NOT NULL, PRIMARY KEY (owner, pet)) PARTITION BY lookup(owner) SAME AS owners");
        assertEquals(Set.of(0, 1, 2, 3), partitionsHaving("owners"));
        assertEquals(Set.of(0, 1, 2, 3), partitionsHaving("pets"));
        // router B never saw these tables: it learns them from the stored catalog on first use
        for (int id = 1; id <= 20; id++) {
            exec(cb, "INSERT INTO owners (id, name) VALUES (" + id + ", 'o" + id + "')");
            exec(cb, "INSERT INTO pets (owner, pet) VALUES (" + id + ", 1), (" + id + ", 2)");
        }
        Map<Integer, Integer> ownerAt = rowsAt("owners", "id");
        assertEquals(20, ownerAt.size(), "each owner on exactly one partition");
        assertTrue(new TreeSet<>(ownerAt.values()).size() > 1, "DEFAULT NEW hash spreads owners: " + ownerAt);
        Map<Integer, Integer> petAt = rowsAt("pets", "owner");
        petAt.forEach((owner, p) -> assertEquals(ownerAt.get(owner), p, "pets of owner " + owner + " live with it"));
        assertEquals(20, count(ca, "SELECT COUNT(*) FROM owners"));
        assertEquals(40, count(ca, "SELECT COUNT(*) FROM pets"));
        assertEquals(2, count(ca, "SELECT COUNT(*) FROM pets WHERE owner = 7"));
        var shown = new ArrayList<String>();
        try (var rs = cb.createStatement().executeQuery("SHOW TABLES")) {
            while (rs.next()) shown.add(rs.getString(1));
        }
        assertTrue(shown.containsAll(List.of("owners", "pets")) && shown.stream().noneMatch(t -> t.startsWith("lutra_")), shown.toString());
    }

    @Test
    void rangeHashAndReplicatedPlacementsPutTablesAndRowsOnTheirPartitions() throws SQLException {
        exec(ca, "CREATE TABLE ranged (k INT PRIMARY KEY) PARTITION BY range(k) ON (p0 < 10, p1 < 20, p2)");
        assertEquals(Set.of(0, 1, 2), partitionsHaving("ranged"));
        exec(cb, "INSERT INTO ranged (k) VALUES (5), (15), (25)");
        assertEquals(Map.of(5, 0, 15, 1, 25, 2), rowsAt("ranged", "k"));

        exec(ca, "CREATE TABLE hashed (k BIGINT PRIMARY KEY) PARTITION BY hash(k) ON (p1, p3)");
        assertEquals(Set.of(1, 3), partitionsHaving("hashed"));
        exec(cb, "INSERT INTO hashed (k) VALUES (1), (2), (3), (4)");
        assertEquals(Set.of(1, 3), new TreeSet<>(rowsAt("hashed", "k").values()));

        exec(ca, "CREATE TABLE ref (code CHAR(2) PRIMARY KEY) REPLICATED ON (p1, p2)");
        assertEquals(Set.of(1, 2), partitionsHaving("ref"));
        exec(cb, "INSERT INTO ref (code) VALUES ('se')");
        for (int p : List.of(1, 2)) assertEquals(1, countOn(p, "SELECT COUNT(*) FROM ref"));
    }

    @Test
    void plainCreateTableIsHashedOnTheFirstPrimaryKeyColumnAndOneWithoutKeyIsRefused() throws SQLException {
        exec(ca, "CREATE TABLE plain (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b))");
        assertEquals(Set.of(0, 1, 2, 3), partitionsHaving("plain"));
        for (int x = 0; x < 12; x++) exec(cb, "INSERT INTO plain (a, b) VALUES (" + x + ", 1), (" + x + ", 2)");
        Map<Integer, Set<Integer>> where = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            try (var c = a.partition(p); var rs = c.createStatement().executeQuery("SELECT a FROM plain")) {
                while (rs.next()) where.computeIfAbsent(rs.getInt(1), k -> new TreeSet<>()).add(p);
            }
        }
        assertEquals(12, where.size());
        where.forEach((x, ps) -> assertEquals(1, ps.size(), "rows with a = " + x + " together: " + ps));
        var e = assertThrows(SQLException.class, () -> exec(ca, "CREATE TABLE nokey (a INT, b INT)"));
        assertTrue(e.getMessage().contains("no primary key"), e.getMessage());
        assertEquals(Set.of(), partitionsHaving("nokey"));
    }

    @Test
    void malformedDdlIsRefusedAndChangesNothingAnywhere() throws SQLException {
        String[][] cases = {
                {"CREATE TABLE bad1 (id INT PRIMARY KEY) PARTITION BY lookup(nosuch) ON (p0, p1)", "not one of its columns"},
                {"CREATE TABLE bad2 (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p9)", "unknown partition 'p9'"},
                {"CREATE TABLE bad3 (id INT PRIMARY KEY) PARTITION BY lookup(id) SAME AS missing", "missing"},
                {"CREATE TABLE bad4 (id INT PRIMARY KEY) PARTITION BY range(id) ON (p0 < 10, p1 < 5)", "must increase"},
                {"CREATE TABLE bad5 (d DATETIME PRIMARY KEY) PARTITION BY hash(d) ON (p0)", "cannot partition by"},
                {"CREATE TABLE bad6 (id INT PRIMARY KEY, x NOSUCHTYPE) PARTITION BY hash(id) ON (p0)", ""},
        };
        long before = a.server.liveCatalog().version();
        for (String[] c : cases) {
            var e = assertThrows(SQLException.class, () -> exec(ca, c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
            String table = c[0].split("\\s+")[2];
            assertEquals(Set.of(), partitionsHaving(table), table + " on no backend");
            var unknown = assertThrows(SQLException.class, () -> count(cb, "SELECT COUNT(*) FROM " + table));
            assertEquals(1146, unknown.getErrorCode());
        }
        assertEquals(before, a.server.liveCatalog().version(), "nothing recorded");
        assertRefusal(assertThrows(SQLException.class, () -> exec(ca, "CREATE VIEW v AS SELECT 1")));
        assertRefusal(assertThrows(SQLException.class, () -> exec(ca, "RENAME TABLE seed TO seed2")));
        assertEquals("42000", assertThrows(SQLException.class, () -> exec(ca, "CREATE TABLE lutra_x (id INT PRIMARY KEY)")).getSQLState());
    }

    @Test
    void dropIsSeenByTheOtherRouterAndARecreatedTableRoutesByItsNewPlacement() throws SQLException {
        exec(ca, "CREATE TABLE gone (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
        exec(cb, "INSERT INTO gone (id) VALUES (1), (2), (3), (4)");
        exec(ca, "DROP TABLE gone");
        assertEquals(Set.of(), partitionsHaving("gone"));
        var e = assertThrows(SQLException.class, () -> exec(cb, "INSERT INTO gone (id) VALUES (5)"));
        assertEquals(1146, e.getErrorCode(), e.getMessage());
        // B had routed gone by hash over four partitions: the new definition lives on p3 alone
        exec(ca, "CREATE TABLE gone (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p3)");
        exec(cb, "INSERT INTO gone (id) VALUES (1), (2), (3), (4)");
        assertEquals(Map.of(1, 3, 2, 3, 3, 3, 4, 3), rowsAt("gone", "id"));

        exec(ca, "CREATE TABLE dad (id INT PRIMARY KEY) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id)");
        exec(ca, "CREATE TABLE kid (dad INT NOT NULL, n INT NOT NULL, PRIMARY KEY (dad, n)) PARTITION BY lookup(dad) SAME AS dad");
        var refused = assertThrows(SQLException.class, () -> exec(cb, "DROP TABLE dad"));
        assertTrue(refused.getMessage().contains("kid SAME AS dad"), refused.getMessage());
        assertEquals(Set.of(0, 1), partitionsHaving("dad"));
        exec(cb, "DROP TABLE kid, dad");
        assertEquals(Set.of(), partitionsHaving("dad"));
        assertEquals(Set.of(), partitionsHaving("kid"));
        exec(ca, "DROP TABLE IF EXISTS dad, kid");
        assertEquals(1051, assertThrows(SQLException.class, () -> exec(ca, "DROP TABLE dad")).getErrorCode());
    }

    @Test
    void alterAndIndexesRunOnEveryPartitionAndTheOtherRouterSeesTheNewColumn() throws SQLException {
        exec(ca, "CREATE TABLE alt (id INT PRIMARY KEY, name VARCHAR(20)) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id)");
        exec(cb, "INSERT INTO alt (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        assertEquals(2, columns(cb, "SELECT * FROM alt WHERE id = 1"));
        exec(ca, "ALTER TABLE alt ADD COLUMN score INT NOT NULL DEFAULT 7");
        for (int p = 0; p < 4; p++) assertTrue(columnsOn(p, "alt").contains("score"), "p" + p);
        assertEquals(3, columns(cb, "SELECT * FROM alt WHERE id = 1"));
        assertEquals(21, count(cb, "SELECT SUM(score) FROM alt"));

        exec(cb, "CREATE INDEX by_name ON alt (name)");
        for (int p = 0; p < 4; p++) assertTrue(indexesOn(p, "alt").contains("by_name"), "p" + p);
        exec(ca, "DROP INDEX by_name ON alt");
        for (int p = 0; p < 4; p++) assertFalse(indexesOn(p, "alt").contains("by_name"), "p" + p);

        for (String refused : List.of("ALTER TABLE alt DROP COLUMN id", "ALTER TABLE alt MODIFY id BIGINT", "ALTER TABLE alt CHANGE id ident INT",
                "ALTER TABLE alt RENAME COLUMN id TO ident", "ALTER TABLE alt RENAME TO alt2", "ALTER TABLE alt PARTITION BY HASH(id) PARTITIONS 2",
                "DROP INDEX `PRIMARY` ON alt", "ALTER TABLE alt DROP PRIMARY KEY")) {
            var e = assertThrows(SQLException.class, () -> exec(ca, refused), refused);
            assertRefusal(e, refused + ": " + e.getMessage());
        }
        for (int p = 0; p < 4; p++) {
            assertEquals(List.of("id", "name", "score"), columnsOn(p, "alt"));
            assertTrue(indexesOn(p, "alt").contains("PRIMARY"));
        }
        exec(ca, "ALTER TABLE alt DROP COLUMN score, ADD INDEX (name)");
        assertEquals(2, columns(cb, "SELECT * FROM alt WHERE id = 2"));

        exec(cb, "TRUNCATE TABLE alt");
        for (int p = 0; p < 4; p++) assertEquals(0, countOn(p, "SELECT COUNT(*) FROM alt"));
        assertEquals(0, count(ca, "SELECT COUNT(*) FROM alt"));
    }

    /**
     * A change of plain indexes answers without the catalog lease's wait (a router holding the old definition routes
     * alike), through a router whose wait would be 25 s; a unique key, which changes how writes route (REPLACE,
     * upserts), waits its lease.
     */
    @Test
    void aChangeOfPlainIndexesAnswersWithoutTheLeaseWaitAndAUniqueKeyWaits() throws Exception {
        var slow = new TestRouter(a, "rslow", new RouterConfig.CatalogSettings(20_000, null));
        try (var c = slow.connect()) {
            exec(c, "CREATE TABLE plainidx (id INT PRIMARY KEY, name VARCHAR(20), n INT) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
            for (String ddl : List.of("CREATE INDEX by_name ON plainidx (name)", "ALTER TABLE plainidx ADD INDEX by_n (n), ADD KEY (name, n)",
                    "DROP INDEX by_name ON plainidx")) {
                long start = System.nanoTime();
                exec(c, ddl);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis < 12_000, ddl + ": " + millis + " ms (its lease wait is 25 s)");
            }
        } finally {
            slow.stopRouter();
        }
        for (int p = 0; p < 4; p++) {
            assertTrue(indexesOn(p, "plainidx").contains("by_n"), "p" + p);
            assertFalse(indexesOn(p, "plainidx").contains("by_name"), "p" + p);
        }
        long start = System.nanoTime();
        exec(ca, "CREATE UNIQUE INDEX by_name_unique ON plainidx (name)");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis >= LEASE.leaseMillis() + 100, "a unique key waits one lease and its margin: " + millis + " ms");
    }

    @Test
    void aDdlThatOnePartitionRefusesSaysWhereItRanAndRunningItAgainFinishesIt() throws SQLException {
        try (var c = a.partition(2)) {
            c.createStatement().execute("CREATE TABLE clash (id INT PRIMARY KEY)");
        }
        var e = assertThrows(SQLException.class, () -> exec(ca, "CREATE TABLE clash (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3)"));
        assertTrue(e.getMessage().contains("[p2@") && e.getMessage().contains("dropped again on p0, p1"), e.getMessage());
        assertEquals(Set.of(2), partitionsHaving("clash"), "only the table the test made by hand");
        assertEquals(1146, assertThrows(SQLException.class, () -> count(cb, "SELECT COUNT(*) FROM clash")).getErrorCode());
        exec(ca, "CREATE TABLE IF NOT EXISTS clash (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
        assertEquals(Set.of(0, 1, 2, 3), partitionsHaving("clash"));
        exec(cb, "INSERT INTO clash (id) VALUES (1), (2), (3), (4), (5)");
        assertEquals(5, count(ca, "SELECT COUNT(*) FROM clash"));

        try (var c = a.partition(3)) {
            c.createStatement().execute("ALTER TABLE clash ADD COLUMN extra INT");
        }
        var half = assertThrows(SQLException.class, () -> exec(ca, "ALTER TABLE clash ADD COLUMN extra INT"));
        assertTrue(half.getMessage().contains("[p3@") && half.getMessage().contains("applied on p0, p1, p2"), half.getMessage());
        exec(ca, "ALTER TABLE clash ADD COLUMN IF NOT EXISTS extra INT");
        for (int p = 0; p < 4; p++) assertEquals(List.of("id", "extra"), columnsOn(p, "clash"));
        assertEquals(2, columns(cb, "SELECT * FROM clash WHERE id = 1"));
    }

    @Test
    void ddlInsideATransactionThatWroteIsRefused() throws SQLException {
        exec(ca, "CREATE TABLE wrotefirst (id INT PRIMARY KEY, v INT) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
        try (var c = a.connect()) {
            c.setAutoCommit(false);
            exec(c, "INSERT INTO wrotefirst (id, v) VALUES (9001, 1)");
            var e = assertThrows(SQLException.class, () -> exec(c, "CREATE TABLE intx (id INT PRIMARY KEY)"));
            assertEquals("25000", e.getSQLState());
            assertEquals(1179, e.getErrorCode());
            c.rollback();
        }
        assertEquals(Set.of(), partitionsHaving("intx"));
        assertEquals(0, count(ca, "SELECT COUNT(*) FROM wrotefirst WHERE id = 9001"), "the refused DDL committed nothing");
    }

    /** As MySQL: DDL commits the open transaction first — here one that only read (a migration tool's history reads). */
    @Test
    void ddlAfterReadsInATransactionCommitsItAndTheNextStatementsStartAnother() throws SQLException {
        exec(ca, "CREATE TABLE readfirst (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
        try (var c = a.connect()) {
            c.setAutoCommit(false);
            count(c, "SELECT COUNT(*) FROM readfirst");
            exec(c, "CREATE TABLE afterreads (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1)");
            exec(c, "INSERT INTO afterreads (id) VALUES (1), (2)");
            c.rollback(); // a new transaction began after the DDL: its insert is undone, the table stays
            assertEquals(0, count(c, "SELECT COUNT(*) FROM afterreads"));
            exec(c, "DROP TABLE afterreads"); // nothing written since the rollback: runs
            c.commit();
        }
        assertEquals(Set.of(), partitionsHaving("afterreads"));
    }

    @Test
    void aRestartedRouterLoadsTheStoredCatalogAndADroppedSchemaTableStaysDropped() throws Exception {
        exec(ca, "CREATE TABLE kept (id INT PRIMARY KEY, v INT) PARTITION BY hash(id) ON (p0, p2)");
        exec(ca, "INSERT INTO kept (id, v) VALUES (1, 10), (2, 20)");
        exec(ca, "CREATE TABLE seedcopy (id INT PRIMARY KEY) REPLICATED");
        b.stopRouter();
        cb.close();
        exec(ca, "DROP TABLE seedcopy");
        b = router("rb");
        cb = b.connect();
        assertEquals(30, count(cb, "SELECT SUM(v) FROM kept"));
        assertEquals(1146, assertThrows(SQLException.class, () -> count(cb, "SELECT COUNT(*) FROM seedcopy")).getErrorCode());
        // the schema file's table, dropped through DDL, is not created again by a restart
        exec(ca, "CREATE TABLE seedless (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0)");
        exec(cb, "DROP TABLE seed");
        b.stopRouter();
        cb.close();
        b = router("rb");
        cb = b.connect();
        assertEquals(Set.of(), partitionsHaving("seed"));
        assertEquals(1146, assertThrows(SQLException.class, () -> count(cb, "SELECT COUNT(*) FROM seed")).getErrorCode());
        assertEquals(0, count(cb, "SELECT COUNT(*) FROM seedless"));
    }

    /**
     * The fence under load: router B inserts from several threads while A drops the table and creates it
     * again with the same partitions in the other order, over and over: hash(id) ON (p0, p1), then ON
     * (p1, p0), so the same id belongs on the other partition (integer keys: id mod 2 picks from the ON
     * list). After each of A's DDL statements returned, every row must be where the current definition
     * puts it: an insert B routed with the dropped definition would land on the other partition, which
     * holds the table too.
     */
    @Test
    void insertsOnTheOtherRouterNeverLandWhereADroppedDefinitionPutThem() throws Exception {
        exec(ca, "CREATE TABLE flip (id BIGINT PRIMARY KEY, w INT) PARTITION BY hash(id) ON (p0, p1)");
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        var ids = new java.util.concurrent.atomic.AtomicLong();
        var accepted = new java.util.concurrent.atomic.AtomicLong();
        var unexpected = new java.util.concurrent.ConcurrentLinkedQueue<String>();
        var writers = new ArrayList<Thread>();
        for (int w = 0; w < 3; w++) {
            writers.add(Thread.ofPlatform().start(() -> {
                try (var c = b.connect()) {
                    while (!stop.get()) {
                        try {
                            exec(c, "INSERT INTO flip (id, w) VALUES (" + ids.incrementAndGet() + ", 1)");
                            accepted.incrementAndGet();
                        } catch (SQLException e) {
                            // the table is gone for a moment: 1146 from the router, or from a partition for an insert under way
                            if (e.getErrorCode() != 1146) unexpected.add(e.getErrorCode() + " " + e.getMessage());
                        }
                    }
                } catch (SQLException e) {
                    unexpected.add("connect: " + e.getMessage());
                }
            }));
        }
        try {
            for (int round = 1; round <= 8; round++) {
                int[] on = round % 2 == 0 ? new int[] {0, 1} : new int[] {1, 0};
                exec(ca, "DROP TABLE flip");
                exec(ca, "CREATE TABLE flip (id BIGINT PRIMARY KEY, w INT) PARTITION BY hash(id) ON (p" + on[0] + ", p" + on[1] + ")");
                Thread.sleep(150); // B inserts for a while with the new definition
                assertEquals(Set.of(0, 1), partitionsHaving("flip"), "round " + round);
                Map<Integer, Integer> at = rowsAt("flip", "id");
                for (var e : at.entrySet()) {
                    assertEquals(on[e.getKey() % 2], e.getValue(), "round " + round + ": row " + e.getKey() + " of " + at.size());
                }
            }
        } finally {
            stop.set(true);
            for (var t : writers) t.join();
        }
        assertTrue(unexpected.isEmpty(), unexpected.toString());
        assertTrue(accepted.get() > 8, "B kept inserting: " + accepted.get());
    }

    /** A router that cannot read the catalog version refuses statements until it can, then goes on. */
    @Test
    void aRouterWhoseLeaseCannotBeRenewedRefusesStatementsUntilItCan() throws Exception {
        exec(ca, "CREATE TABLE leased (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1)");
        assertEquals(0, count(cb, "SELECT COUNT(*) FROM leased"));
        try (var lock = a.partition(0); var st = lock.createStatement()) {
            st.execute("LOCK TABLES lutra_catalog_version WRITE"); // every reader of the version waits behind it
            try {
                Thread.sleep(LEASE.leaseMillis() * 2L);
                var e = assertThrows(SQLException.class, () -> count(cb, "SELECT COUNT(*) FROM leased"));
                assertTrue(e.getMessage().contains("catalog lease"), e.getMessage());
            } finally {
                st.execute("UNLOCK TABLES");
            }
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                assertEquals(0, count(cb, "SELECT COUNT(*) FROM leased"));
                break;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }

    // --- helpers: what the backends hold, read past the routers ---

    /**
     * Each session's DDL runs with its own foreign_key_checks. Sessions of one router queue for the catalog lock; a
     * session with the checks off that waits there took, when it went on, the setting of the session that came after
     * it (the router kept the setting in a field of the one object that runs every session's DDL): its DROP of a
     * referenced table was refused. The lock is held here from outside, so both sessions wait for it.
     */
    @Test
    void eachSessionsDdlKeepsItsOwnForeignKeyChecksWhileTheyWaitForTheCatalogLock() throws Exception {
        exec(ca, "CREATE TABLE fkc_parent (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
        exec(ca, "CREATE TABLE fkc_child (id INT PRIMARY KEY, parent INT, FOREIGN KEY (parent) REFERENCES fkc_parent (id))"
                + " PARTITION BY hash(id) ON (p0, p1, p2, p3)");
        var threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (Connection holder = a.partition(0); Connection unchecked = a.connect(); Connection checked = a.connect()) {
            String lock = "lutra_ddl:" + holder.getCatalog();
            assertEquals(1, count(holder, "SELECT GET_LOCK('" + lock + "', 10)"));
            exec(unchecked, "SET foreign_key_checks = 0");
            var drop = threads.submit(() -> {
                exec(unchecked, "DROP TABLE fkc_parent");
                return null;
            });
            awaitLockWaiters(holder, lock, 1, drop);
            var create = threads.submit(() -> {
                exec(checked, "CREATE TABLE fkc_other (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
                return null;
            });
            awaitLockWaiters(holder, lock, 2, create);
            exec(holder, "DO RELEASE_LOCK('" + lock + "')");
            drop.get(60, java.util.concurrent.TimeUnit.SECONDS); // refused before: "referenced by fkc_child"
            create.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
            try (Connection c = a.connect()) {
                exec(c, "SET foreign_key_checks = 0");
                exec(c, "DROP TABLE IF EXISTS fkc_child, fkc_parent, fkc_other");
            }
        }
    }

    /** Waits until {@code n} connections wait in GET_LOCK on the server {@code holder} is connected to (for {@code lock}, the only one contended here). */
    private static void awaitLockWaiters(Connection holder, String lock, int n, java.util.concurrent.Future<?> waiting) throws Exception {
        for (int i = 0; i < 600; i++) {
            if (waiting.isDone()) waiting.get(); // it did not wait: its error fails the test
            // "User lock": waiting in GET_LOCK (the router's catalog lock; nothing else of this test's router waits for one)
            if (count(holder, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'User lock' AND ID <> CONNECTION_ID()") >= n) return;
            Thread.sleep(50);
        }
        fail(n + " sessions never waited for " + lock);
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private static int columns(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            return rs.getMetaData().getColumnCount();
        }
    }

    private long countOn(int p, String sql) throws SQLException {
        try (var c = a.partition(p)) {
            return count(c, sql);
        }
    }

    private Set<Integer> partitionsHaving(String table) throws SQLException {
        var out = new TreeSet<Integer>();
        for (int p = 0; p < 4; p++) {
            try (var c = a.partition(p); var ps = c.prepareStatement(
                    "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?")) {
                ps.setString(1, table);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) out.add(p);
                }
            }
        }
        return out;
    }

    private List<String> columnsOn(int p, String table) throws SQLException {
        return listOn(p, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", table);
    }

    private List<String> indexesOn(int p, String table) throws SQLException {
        return listOn(p, "SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", table);
    }

    private List<String> listOn(int p, String sql, String table) throws SQLException {
        var out = new ArrayList<String>();
        try (var c = a.partition(p); var ps = c.prepareStatement(sql)) {
            ps.setString(1, table);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Key -> the partition holding it, read from every partition; fails if a key is on two. */
    private Map<Integer, Integer> rowsAt(String table, String column) throws SQLException {
        var out = new HashMap<Integer, Integer>();
        for (int p : partitionsHaving(table)) {
            try (var c = a.partition(p); var rs = c.createStatement().executeQuery("SELECT DISTINCT " + column + " FROM " + table)) {
                while (rs.next()) {
                    Integer was = out.put(rs.getInt(1), p);
                    assertTrue(was == null || was == p, table + "." + column + " = " + rs.getInt(1) + " on p" + was + " and p" + p);
                }
            }
        }
        return out;
    }
}
