package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * CREATE SECONDARY LOOKUP with three routers on the same shards. Every answer is checked against the rows
 * on the shards themselves (each partition's database read past the routers): reads by the indexed column
 * return exactly the rows a scan finds, after random inserts, updates, deletes and moves through all three
 * routers at once; UNIQUE gives exactly one 1062 for two routers inserting the same value at once; and a
 * read by the column visits only the partitions its entries name.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecondaryLookupIT {
    static final String SCHEMA = """
            CREATE TABLE customers (id INT PRIMARY KEY, tax_id VARCHAR(32) COLLATE utf8mb4_bin, region INT, name VARCHAR(64), score INT,
              UNIQUE KEY (tax_id), KEY (region))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE orders (cust INT NOT NULL, n INT NOT NULL, PRIMARY KEY (cust, n)) PARTITION BY lookup(cust) SAME AS customers;
            CREATE TABLE pages (id BIGINT PRIMARY KEY, title VARCHAR(100) COLLATE utf8mb4_bin, KEY (title)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE bench_plain (id INT PRIMARY KEY, v INT, KEY (v)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE bench_multi (id INT PRIMARY KEY, v INT, KEY (v)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE bench_unique (id INT PRIMARY KEY, v INT, UNIQUE KEY (v)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE members (id INT PRIMARY KEY, name VARCHAR(64) COLLATE utf8mb4_bin, KEY (name))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            """;

    TestRouter a;
    TestRouter b;
    TestRouter c;

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "seclookup", SCHEMA);
        b = new TestRouter(a, "routerB", List.of());
        c = new TestRouter(a, "routerC", List.of());
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int id = 1; id <= 60; id++) st.executeUpdate("INSERT INTO pages (id, title) VALUES (" + id + ", 'title" + (id % 17) + "')");
        }
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP page_title ON pages (title)");
            st.execute("CREATE SECONDARY LOOKUP cust_tax ON customers (tax_id) UNIQUE");
            st.execute("CREATE SECONDARY LOOKUP cust_region ON customers (region)");
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : new TestRouter[] {c, b}) if (r != null) r.server.close();
        if (a != null) a.close();
    }

    /** {@code column = value} → the ids of {@code table} per partition, read on the shards themselves. */
    Map<Integer, TreeSet<Long>> onShards(String table, String column, Object value) throws SQLException {
        var out = new TreeMap<Integer, TreeSet<Long>>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var ps = shard.prepareStatement("SELECT id FROM " + table + " WHERE " + column + " = ?")) {
                ps.setObject(1, value);
                try (var rs = ps.executeQuery()) {
                    while (rs.next()) out.computeIfAbsent(p, x -> new TreeSet<>()).add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    TreeSet<Long> allOnShards(String table, String column, Object value) throws SQLException {
        var out = new TreeSet<Long>();
        onShards(table, column, value).values().forEach(out::addAll);
        return out;
    }

    static TreeSet<Long> ids(TestRouter r, String sql, Object... params) throws SQLException {
        var out = new TreeSet<Long>();
        try (Connection lutra = r.connect(); var ps = lutra.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) assertTrue(out.add(rs.getLong(1)), "an id twice: " + sql);
            }
        }
        return out;
    }

    @Test
    @Order(1)
    void createBackfillsExistingRowsAndReadsRouteThroughIt() throws Exception {
        for (int t = 0; t < 17; t++) {
            String title = "title" + t;
            for (TestRouter r : List.of(a, b, c)) {
                assertEquals(allOnShards("pages", "title", title), ids(r, "SELECT id FROM pages WHERE title = ?", title), title);
            }
        }
        assertEquals(allOnShards("pages", "title", "title3").size() + allOnShards("pages", "title", "title4").size(),
                ids(b, "SELECT id FROM pages WHERE title IN ('title3', 'title4')").size());
        try (Connection lutra = a.connect(); var rs = lutra.createStatement().executeQuery("EXPLAIN ROUTE SELECT id FROM pages WHERE title = 'x'")) {
            var plan = new StringBuilder();
            while (rs.next()) plan.append(rs.getString(1)).append('\n');
            assertTrue(plan.toString().contains("by secondary lookup page_title"), plan.toString());
        }
    }

    @Test
    @Order(2)
    void aReadByTheColumnVisitsOnlyThePartitionsHoldingItsRows() throws Exception {
        try (Connection lutra = b.connect(); var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO pages (id, title) VALUES (1001, 'only-one'), (1002, 'two-places'), (1003, 'two-places')");
        }
        for (String title : List.of("only-one", "two-places", "nowhere")) {
            var where = onShards("pages", "title", title).keySet();
            var stats = a.server.stats();
            long[] before = new long[4];
            for (int p = 0; p < 4; p++) before[p] = stats.subQueries(p);
            assertEquals(allOnShards("pages", "title", title), ids(a, "SELECT id FROM pages WHERE title = ?", title));
            var visited = new TreeSet<Integer>();
            for (int p = 0; p < 4; p++) if (stats.subQueries(p) > before[p]) visited.add(p);
            if (where.isEmpty()) assertEquals(1, visited.size(), title + ": one partition answers the empty result");
            else assertEquals(where, visited, title);
        }
    }

    @Test
    @Order(3)
    void uniqueRefusesASecondRowAnywhereAndTakesOverStaleEntries() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (1, 'T-1', 1)");
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (2, 'T-1', 1)"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
            assertEquals(List.of(1L), List.copyOf(allOnShards("customers", "tax_id", "T-1")));
            st.executeUpdate("DELETE FROM customers WHERE id = 1"); // its entry stays (stale)
            assertEquals(1, st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (2, 'T-1', 1)"), "the stale entry is taken over");
            st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (3, 'T-3', 1)");
            var upd = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE customers SET tax_id = 'T-1' WHERE id = 3"));
            assertEquals(1062, upd.getErrorCode(), upd.getMessage());
            assertEquals(1, st.executeUpdate("UPDATE customers SET tax_id = 'T-9' WHERE id = 3"));
        }
        for (TestRouter r : List.of(a, b, c)) {
            assertEquals(new TreeSet<>(List.of(2L)), ids(r, "SELECT id FROM customers WHERE tax_id = 'T-1'"));
            assertEquals(new TreeSet<>(List.of(3L)), ids(r, "SELECT id FROM customers WHERE tax_id = 'T-9'"));
            assertEquals(new TreeSet<>(), ids(r, "SELECT id FROM customers WHERE tax_id = 'T-3'"));
        }
    }

    @Test
    @Order(4)
    void twoRoutersInsertingTheSameValueAtOnceOneGets1062() throws Exception {
        var pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                String tax = "RACE-" + round;
                int first = 100 + 2 * round;
                SameKeyRace.exactlyOneWins(pool, List.of(b, c), "INSERT INTO customers (id, tax_id, region) VALUES (?, ?, 7)",
                        List.of(new Object[] {first, tax}, new Object[] {first + 1, tax}), tax);
                assertEquals(1, allOnShards("customers", "tax_id", tax).size(), tax);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(5)
    void movedRowsAreFoundByTheirIndexedValuesThroughEveryRouter() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int id = 200; id < 210; id++) {
                st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (" + id + ", 'M-" + id + "', 42)");
                st.executeUpdate("INSERT INTO orders (cust, n) VALUES (" + id + ", 1)");
            }
            for (int id = 200; id < 210; id++) {
                int home = id % 4;
                int target = (home + 1 + id % 3) % 4;
                assertEquals(2, st.executeUpdate("ALTER TABLE customers SET PARTITION = p" + target + " WHERE id = " + id));
                assertEquals(List.of(target), List.copyOf(onShards("customers", "tax_id", "M-" + id).keySet()));
            }
        }
        for (TestRouter r : List.of(a, b, c)) {
            for (int id = 200; id < 210; id++) {
                assertEquals(new TreeSet<>(List.of((long) id)), ids(r, "SELECT id FROM customers WHERE tax_id = ?", "M-" + id), "M-" + id);
            }
            assertEquals(allOnShards("customers", "region", 42), ids(r, "SELECT id FROM customers WHERE region = 42"));
        }
        // a moved value is still unique: its entry follows the row
        try (Connection lutra = b.connect(); var st = lutra.createStatement()) {
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (300, 'M-203', 1)"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
        }
    }

    /**
     * A read through the lookup whose row moves between its reading the entries and reading the rows: router B moves
     * the row while router A's read stands between the two (a fail point). The read holds the group's move fence from
     * before the entries until its rows are read, so the move waits for it and the row is found once; before, the move
     * committed in between and the read looked where the row no longer was (it answered no row). Router C reads: it has
     * no guess of where the UNIQUE value's row is (router A, which inserted it, would try there first: UniqueValueGuessIT).
     */
    @Test
    @Order(5)
    void aReadThroughTheLookupFindsARowThatMovesUnderIt() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (500, 'R-500', 9901)");
        }
        int home = onShards("customers", "tax_id", "R-500").keySet().iterator().next();
        int target = (home + 1) % 4;
        var moved = new java.util.concurrent.CompletableFuture<Integer>();
        var first = new java.util.concurrent.atomic.AtomicBoolean();
        try (var hook = org.lutra.placement.FailPoints.install(point -> {
            if (!point.equals(org.lutra.placement.FailPoints.SECONDARY_ENTRIES_READ) || !first.compareAndSet(false, true)) return;
            Thread.ofPlatform().start(() -> {
                try (Connection c = b.connect(); var st = c.createStatement()) {
                    moved.complete(st.executeUpdate("ALTER TABLE customers SET PARTITION = p" + target + " WHERE id = 500"));
                } catch (Exception e) {
                    moved.completeExceptionally(e);
                }
            });
            try {
                moved.get(1500, java.util.concurrent.TimeUnit.MILLISECONDS); // unfenced, the move commits meanwhile
            } catch (Exception waitsForTheFence) {
                // fenced: the move waits for this read
            }
        })) {
            assertEquals(new TreeSet<>(List.of(500L)), ids(c, "SELECT id FROM customers WHERE tax_id = ?", "R-500"), "read while the row moved");
            assertTrue(first.get(), "the read went through the entries");
        }
        assertEquals(1, moved.get(60, java.util.concurrent.TimeUnit.SECONDS), "the move ran once the read was done");
        assertEquals(List.of(target), List.copyOf(onShards("customers", "tax_id", "R-500").keySet()));
        assertEquals(new TreeSet<>(List.of(500L)), ids(a, "SELECT id FROM customers WHERE tax_id = ?", "R-500"), "read after the move");
    }

    /**
     * The same inside a REPEATABLE READ transaction that has snapshots of every partition but the row's old one: its
     * entries, read in an older snapshot, name only the old partition, read in a fresh snapshot where the row is gone.
     * The read now goes to every partition as a scan of the group inside a transaction does, and answers the row or
     * 40001 (retry). Before, it answered no row.
     */
    @Test
    @Order(5)
    void aReadThroughTheLookupInATransactionNeverMissesAMovedRow() throws Exception {
        var pageOn = new TreeMap<Integer, Long>(); // a page id on each partition: a point read there makes a snapshot
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (long id = 9000; id < 9040 && pageOn.size() < 4; id++) {
                st.executeUpdate("INSERT INTO pages (id, title) VALUES (" + id + ", 'S-" + id + "')");
                pageOn.putIfAbsent(onShards("pages", "title", "S-" + id).keySet().iterator().next(), id);
            }
        }
        assertEquals(4, pageOn.size());
        int missedBefore = 0;
        for (int k = 0; k < 8; k++) {
            long id = 600 + k;
            try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
                st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (" + id + ", 'T-" + id + "', 9902)");
            }
            int home = onShards("customers", "tax_id", "T-" + id).keySet().iterator().next();
            int target = (home + 1) % 4;
            try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
                lutra.setAutoCommit(false);
                for (var e : pageOn.entrySet()) {
                    if (e.getKey() == home) continue;
                    try (var rs = st.executeQuery("SELECT title FROM pages WHERE id = " + e.getValue())) {
                        assertTrue(rs.next());
                    }
                }
                try (Connection c = b.connect(); var other = c.createStatement()) {
                    assertEquals(1, other.executeUpdate("ALTER TABLE customers SET PARTITION = p" + target + " WHERE id = " + id));
                }
                var found = new TreeSet<Long>();
                try (var ps = lutra.prepareStatement("SELECT id FROM customers WHERE tax_id = ?")) {
                    ps.setString(1, "T-" + id);
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) found.add(rs.getLong(1));
                    }
                    assertEquals(new TreeSet<>(List.of(id)), found, "the moved row " + id + ", once");
                } catch (SQLException e) {
                    assertEquals("40001", e.getSQLState(), e.getMessage()); // a move committed since the snapshot: retry
                }
                lutra.rollback();
            }
            assertEquals(new TreeSet<>(List.of(id)), ids(a, "SELECT id FROM customers WHERE tax_id = ?", "T-" + id));
        }
    }

    /**
     * Three routers at once, each a thread of random inserts, updates of both indexed columns, deletes and moves;
     * then every value's read through every router equals what the shards hold, and no tax id is on two rows.
     */
    @Test
    @Order(6)
    void differentialUnderConcurrentWritesThroughThreeRouters() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SecondaryLookupIT differential seed " + seed);
        RandomWritesThroughRouters.run(List.of(a, b, c), seed, 120, random -> {
            int id = 1000 + random.nextInt(60);
            String tax = "D-" + random.nextInt(40);
            int region = random.nextInt(8);
            return switch (random.nextInt(7)) {
                case 0, 1 -> "INSERT INTO customers (id, tax_id, region) VALUES (" + id + ", '" + tax + "', " + region + ")";
                case 2 -> "UPDATE customers SET tax_id = '" + tax + "' WHERE id = " + id;
                case 3 -> "UPDATE customers SET region = " + region + " WHERE id = " + id;
                case 4 -> "DELETE FROM customers WHERE id = " + id;
                case 5 -> "ALTER TABLE customers SET PARTITION = p" + random.nextInt(4) + " WHERE id = " + id;
                default -> random.nextBoolean() ? "INSERT INTO pages (id, title) VALUES (" + (5000 + id) + ", 'T" + region + "')"
                        : "UPDATE pages SET title = 'T" + region + "' WHERE id = " + (5000 + id);
            };
        });
        for (TestRouter r : List.of(a, b, c)) {
            for (int n = 0; n < 40; n++) {
                String tax = "D-" + n;
                var truth = allOnShards("customers", "tax_id", tax);
                assertTrue(truth.size() <= 1, tax + " on several rows: " + truth);
                assertEquals(truth, ids(r, "SELECT id FROM customers WHERE tax_id = ?", tax), tax);
            }
            for (int region = 0; region < 8; region++) {
                assertEquals(allOnShards("customers", "region", region), ids(r, "SELECT id FROM customers WHERE region = ?", region), "region " + region);
                assertEquals(allOnShards("pages", "title", "T" + region), ids(r, "SELECT id FROM pages WHERE title = ?", "T" + region), "T" + region);
            }
            var in = ids(r, "SELECT id FROM customers WHERE region IN (1, 3, 5)");
            var truth = new TreeSet<Long>();
            for (int region : new int[] {1, 3, 5}) truth.addAll(allOnShards("customers", "region", region));
            assertEquals(truth, in);
        }
    }

    @Test
    @Order(7)
    void updatesAndDeletesByTheColumnReachEveryRowWithIt() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int id = 400; id < 412; id++) st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (" + id + ", 'U-" + id + "', 77)");
        }
        var rows = allOnShards("customers", "region", 77);
        assertEquals(12, rows.size());
        assertTrue(onShards("customers", "region", 77).size() > 1, "on several partitions");
        var stats = c.server.stats();
        long routed = stats.secondaryReads();
        try (Connection lutra = c.connect(); var st = lutra.createStatement()) {
            assertEquals(12, st.executeUpdate("UPDATE customers SET name = 'seen' WHERE region = 77"));
            assertEquals(1, st.executeUpdate("DELETE FROM customers WHERE tax_id = 'U-405'"));
            assertEquals(1, st.executeUpdate("UPDATE customers SET region = 78 WHERE tax_id IN ('U-406', 'nobody')"));
        }
        assertEquals(routed + 3, stats.secondaryReads(), "the three statements routed by the lookups");
        assertEquals(11, allOnShards("customers", "name", "seen").size(), "the 12 rows updated, less the one deleted");
        assertTrue(allOnShards("customers", "tax_id", "U-405").isEmpty());
        assertEquals(new TreeSet<>(List.of(406L)), allOnShards("customers", "region", 78));
        assertEquals(allOnShards("customers", "region", 77), ids(b, "SELECT id FROM customers WHERE region = 77"));
        assertEquals(new TreeSet<>(List.of(406L)), ids(a, "SELECT id FROM customers WHERE region = 78"));
    }

    @Test
    @Order(8)
    void dropSecondaryLookupRoutesByScanAgain() throws Exception {
        try (Connection lutra = c.connect(); var st = lutra.createStatement()) {
            st.execute("DROP SECONDARY LOOKUP page_title");
            var again = assertThrows(SQLException.class, () -> st.execute("DROP SECONDARY LOOKUP page_title"));
            assertEquals(1091, again.getErrorCode());
            st.execute("DROP SECONDARY LOOKUP IF EXISTS page_title");
        }
        for (TestRouter r : List.of(a, b, c)) {
            assertEquals(allOnShards("pages", "title", "title5"), ids(r, "SELECT id FROM pages WHERE title = 'title5'"));
        }
        try (Connection shard = a.partition(0); var rs = shard.createStatement().executeQuery("SHOW TABLES LIKE 'lutra_sec_page_title'")) {
            assertFalse(rs.next(), "the entries' table is dropped");
        }
    }

    /**
     * Rough cost of keeping entries: the same single-row inserts into a table without, with a non-unique and with a
     * UNIQUE lookup, in blocks taking turns (the machine is shared: a burst of other work hits all three alike);
     * each table's median block. Then every row has its entry, on the shards.
     */
    @Test
    @Order(9)
    void insertCostWithAndWithoutTheIndex() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP bench_multi_v ON bench_multi (v)");
            st.execute("CREATE SECONDARY LOOKUP bench_unique_v ON bench_unique (v) UNIQUE");
        }
        List<String> tables = List.of("bench_plain", "bench_multi", "bench_unique");
        int block = 100;
        int blocks = 6;
        var micros = new TreeMap<String, List<Long>>();
        try (Connection lutra = a.connect()) {
            for (int k = 0; k < blocks; k++) {
                for (String table : tables) {
                    try (var ps = lutra.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)")) {
                        long start = System.nanoTime();
                        for (int i = 0; i < block; i++) {
                            int id = k * block + i;
                            ps.setInt(1, id);
                            ps.setInt(2, id * 7 + 3); // the value's home is another partition than the row's for 3 ids in 4
                            ps.executeUpdate();
                        }
                        if (k > 0) micros.computeIfAbsent(table, t -> new ArrayList<>()).add((System.nanoTime() - start) / 1000 / block);
                    }
                }
            }
        }
        var report = new StringBuilder();
        micros.forEach((table, list) -> {
            var sorted = new ArrayList<>(list);
            sorted.sort(null);
            report.append(table).append(": median ").append(sorted.get(sorted.size() / 2)).append(" us/insert, blocks ").append(list).append('\n');
        });
        System.out.println("SecondaryLookupIT insert cost (" + block + " single-row auto-commit inserts a block, after a warm-up block):\n" + report);
        for (String table : List.of("bench_multi", "bench_unique")) {
            long entries = 0;
            for (int p = 0; p < 4; p++) {
                try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT COUNT(*) FROM lutra_sec_" + table + "_v")) {
                    rs.next();
                    entries += rs.getLong(1);
                }
            }
            assertEquals((long) block * blocks, entries, table + ": one entry per row (distinct values)");
        }
        for (int v : new int[] {3, 10, 703}) {
            assertEquals(allOnShards("bench_unique", "v", v), ids(b, "SELECT id FROM bench_unique WHERE v = ?", v));
        }
    }

    @Test
    @Order(10)
    void writesTheLookupCannotIndexAreRefused() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (String sql : List.of("INSERT INTO customers (id, region) VALUES (9001, 1)", "INSERT INTO customers (id, tax_id, region) VALUES (9001, CONCAT('a', 'b'), 1)",
                    "INSERT IGNORE INTO customers (id, tax_id, region) VALUES (9001, 'I-1', 1)", "REPLACE INTO customers (id, tax_id, region) VALUES (9001, 'I-1', 1)",
                    "UPDATE customers SET region = region + 1 WHERE id = 2", "ALTER TABLE customers DROP COLUMN region")) {
                var e = assertThrows(SQLException.class, () -> st.executeUpdate(sql), sql);
                assertRefusal(e, sql + ": " + e.getMessage());
            }
            // a value the column stores otherwise is indexed as stored (7.5 is 8 in an INT column); one the router cannot tell is refused
            assertEquals(1, st.executeUpdate("INSERT INTO customers (id, tax_id, region) VALUES (9001, 'I-1', 7.5)"));
            assertEquals(allOnShards("customers", "region", 8), ids(a, "SELECT id FROM customers WHERE region = ?", 8));
            assertEquals(1, st.executeUpdate("DELETE FROM customers WHERE id = 9001"));
            try (var ps = lutra.prepareStatement("INSERT INTO customers (id, tax_id, region) VALUES (9001, 'I-1', ?)")) {
                ps.setBytes(1, new byte[] {1, 2});
                var e = assertThrows(SQLException.class, ps::executeUpdate);
                assertEquals(1292, e.getErrorCode(), e.getMessage());
            }
            var noIndex = assertThrows(SQLException.class, () -> st.execute("CREATE SECONDARY LOOKUP by_score ON customers (score)"));
            assertEquals(1082, noIndex.getErrorCode(), noIndex.getMessage());
        }
        assertTrue(allOnShards("customers", "id", 9001).isEmpty());
    }

    /**
     * A lookup group with a replicated key gets no secondary lookup (its entries name one partition a row; replicating a
     * key of a group that has one is refused too): refused with nothing created, and accepted once the key is on one
     * partition again. A group with a secondary lookup therefore has no replicated keys, which its scans rely on.
     */
    @Test
    @Order(11)
    void aGroupWithReplicatedKeysGetsNoSecondaryLookup() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int id = 1; id <= 8; id++) st.executeUpdate("INSERT INTO members VALUES (" + id + ", 'member" + id + "')");
            st.execute("ALTER TABLE members SET PARTITION = (p1, p2) WHERE id = 7");
            var e = assertThrows(SQLException.class, () -> st.execute("CREATE SECONDARY LOOKUP member_name ON members (name)"));
            assertRefusal(e, "CREATE SECONDARY LOOKUP on a group with a replicated key: " + e.getMessage());
            assertTrue(e.getMessage().contains("replicated keys"), e.getMessage());
        }
        for (int p = 0; p < 4; p++) { // nothing created: no entries' table on any partition
            try (Connection shard = a.partition(p); var st = shard.createStatement();
                 var rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'lutra_sec_member_name'")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "partition " + p);
            }
        }
        try (Connection lutra = b.connect(); var st = lutra.createStatement()) { // another router: the lookup is not in its catalog either
            try (var rs = st.executeQuery("SELECT id FROM members WHERE name = 'member7'")) {
                assertTrue(rs.next());
                assertEquals(7, rs.getInt(1));
                assertFalse(rs.next(), "the replicated key's row once");
            }
            st.execute("ALTER TABLE members SET PARTITION = p2 WHERE id = 7");
            st.execute("CREATE SECONDARY LOOKUP member_name ON members (name)");
            try (var rs = st.executeQuery("SELECT id FROM members WHERE name = 'member7'")) {
                assertTrue(rs.next());
                assertEquals(7, rs.getInt(1));
                assertFalse(rs.next());
            }
            var e = assertThrows(SQLException.class, () -> st.execute("ALTER TABLE members SET PARTITION = (p1, p3) WHERE id = 3"));
            assertRefusal(e, "replicating a key of a group with a secondary lookup: " + e.getMessage());
        }
    }
}
