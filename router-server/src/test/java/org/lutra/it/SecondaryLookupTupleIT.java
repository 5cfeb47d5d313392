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
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * A secondary lookup over two columns, MediaWiki's {@code page} by {@code (page_namespace, page_title)} UNIQUE, the title a
 * string of the server's default collation (no COLLATE: accent- and case-insensitive), with three routers on the same shards.
 * Every answer is checked against the rows on the shards themselves: reads by the tuple through every router after a
 * backfill, random inserts, updates of both columns, deletes and moves through all three at once; two routers inserting the
 * same tuple at once (exactly one wins, the other gets 1062); a duplicate tuple on another partition refused with 1062; reads
 * and writes through a router whose guesses another router's moves and changes make stale. A statement pinning only some of
 * the columns is not routed by the lookup (it scans) and is exact too.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecondaryLookupTupleIT {
    static final String SCHEMA = """
            CREATE TABLE page (page_id INT PRIMARY KEY, page_namespace INT NOT NULL, page_title VARCHAR(64) NOT NULL, page_len INT NOT NULL DEFAULT 0,
              UNIQUE KEY name_title (page_namespace, page_title))
              PARTITION BY lookup(page_id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(page_id);
            CREATE TABLE revision (rev_page INT NOT NULL, rev_id INT NOT NULL, PRIMARY KEY (rev_page, rev_id)) PARTITION BY lookup(rev_page) SAME AS page;
            CREATE TABLE tags (id INT PRIMARY KEY, a INT, b VARCHAR(20), KEY (a, b)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final String BY_NAME = "SELECT page_id, page_len FROM page WHERE page_namespace = ? AND page_title = ?";

    TestRouter a;
    TestRouter b;
    TestRouter c;

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "sectuple", SCHEMA);
        b = new TestRouter(a, "tupleB", List.of());
        c = new TestRouter(a, "tupleC", List.of());
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int id = 1; id <= 40; id++) st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + id + ", " + id % 2 + ", 'T" + id / 2 + "')");
            for (int id = 1; id <= 30; id++) st.executeUpdate("INSERT INTO tags VALUES (" + id + ", " + (id % 5 == 0 ? "NULL" : id % 3) + ", 'b" + id % 4 + "')");
            st.execute("CREATE SECONDARY LOOKUP page_by_name ON page (page_namespace, page_title) UNIQUE");
            st.execute("CREATE SECONDARY LOOKUP tags_ab ON tags (a, b)");
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : new TestRouter[] {c, b}) if (r != null) r.server.close();
        if (a != null) a.close();
    }

    /** {@code sql} with {@code params} on each shard itself → the first column → the second, over every partition (none twice). */
    TreeMap<Long, Long> onShards(String sql, Object... params) throws SQLException {
        var out = new TreeMap<Long, Long>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var ps = shard.prepareStatement(sql)) {
                for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
                try (var rs = ps.executeQuery()) {
                    while (rs.next()) assertNull(out.put(rs.getLong(1), rs.getLong(2)), "a row on two partitions: " + sql);
                }
            }
        }
        return out;
    }

    /** The partitions holding rows {@code sql} selects, read on the shards. */
    TreeSet<Integer> partitionsOf(String sql, Object... params) throws SQLException {
        var out = new TreeSet<Integer>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var ps = shard.prepareStatement(sql)) {
                for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
                try (var rs = ps.executeQuery()) {
                    if (rs.next()) out.add(p);
                }
            }
        }
        return out;
    }

    static TreeMap<Long, Long> read(Connection lutra, String sql, Object... params) throws SQLException {
        var out = new TreeMap<Long, Long>();
        try (var ps = lutra.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) assertNull(out.put(rs.getLong(1), rs.getLong(2)), "a row twice: " + sql);
            }
        }
        return out;
    }

    static TreeMap<Long, Long> read(TestRouter r, String sql, Object... params) throws SQLException {
        try (Connection lutra = r.connect()) {
            return read(lutra, sql, params);
        }
    }

    static String explain(TestRouter r, String sql) throws SQLException {
        var plan = new StringBuilder();
        try (Connection lutra = r.connect(); var rs = lutra.createStatement().executeQuery("EXPLAIN ROUTE " + sql)) {
            while (rs.next()) plan.append(rs.getString(1)).append('\n');
        }
        return plan.toString();
    }

    @Test
    @Order(1)
    void createBackfillsExistingRowsAndReadsByTheWholeTupleRouteThroughIt() throws Exception {
        for (int id = 1; id <= 40; id++) {
            int ns = id % 2;
            String title = "T" + id / 2;
            for (TestRouter r : List.of(a, b, c)) {
                var truth = onShards(BY_NAME, ns, title);
                assertEquals(1, truth.size(), ns + ":" + title);
                assertEquals(truth, read(r, BY_NAME, ns, title), ns + ":" + title);
                assertEquals(truth, read(r, BY_NAME, ns, title.toLowerCase(Locale.ROOT)), "the title's collation compares case-insensitively");
            }
        }
        assertTrue(explain(a, "SELECT page_id FROM page WHERE page_title = 'T1' AND page_namespace = 0").contains("by secondary lookup page_by_name"));
        assertFalse(explain(a, "SELECT page_id FROM page WHERE page_title = 'T1'").contains("secondary lookup"), "a title alone: no route by the tuple");
        assertFalse(explain(a, "SELECT page_id FROM page WHERE page_namespace = 0 AND page_title IN ('T1', 'T2')").contains("secondary lookup"));
        // some of the columns pinned: a scan, exact
        for (TestRouter r : List.of(a, b, c)) {
            assertEquals(onShards("SELECT page_id, page_len FROM page WHERE page_title = ?", "T3"), read(r, "SELECT page_id, page_len FROM page WHERE page_title = ?", "T3"));
            assertEquals(onShards("SELECT page_id, page_len FROM page WHERE page_namespace = 1"), read(r, "SELECT page_id, page_len FROM page WHERE page_namespace = 1"));
        }
        // the non-unique lookup over a nullable pair: a tuple with a NULL part has no entry, and IS NULL is no equality
        for (TestRouter r : List.of(a, b, c)) {
            for (int x = 0; x < 3; x++) {
                for (int y = 0; y < 4; y++) {
                    String sql = "SELECT id, a FROM tags WHERE a = ? AND b = ?";
                    assertEquals(onShards(sql, x, "b" + y), read(r, sql, x, "b" + y), x + ", b" + y);
                }
            }
            assertEquals(onShards("SELECT id, 0 FROM tags WHERE a IS NULL AND b = 'b1'"), read(r, "SELECT id, 0 FROM tags WHERE a IS NULL AND b = 'b1'"));
        }
        assertTrue(explain(a, "SELECT id FROM tags WHERE b = 'b1' AND a = 2").contains("by secondary lookup tags_ab"));
    }

    @Test
    @Order(2)
    void aReadByTheTupleVisitsOnlyThePartitionOfItsRow() throws Exception {
        var stats = c.server.stats();
        for (int id : new int[] {3, 8, 21}) {
            int ns = id % 2;
            String title = "T" + id / 2;
            var where = partitionsOf(BY_NAME, ns, title);
            long[] before = new long[4];
            for (int p = 0; p < 4; p++) before[p] = stats.subQueries(p);
            assertEquals(onShards(BY_NAME, ns, title), read(c, BY_NAME, ns, title));
            var visited = new TreeSet<Integer>();
            for (int p = 0; p < 4; p++) if (stats.subQueries(p) > before[p]) visited.add(p);
            assertEquals(where, visited, ns + ":" + title);
        }
    }

    @Test
    @Order(3)
    void uniqueRefusesTheTupleOnAnotherPartitionAndTakesOverStaleEntries() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (101, 0, 'Dup')");
            int home = partitionsOf("SELECT 1 FROM page WHERE page_id = 101").first();
            int other = 102;
            while (partitionsOf("SELECT 1 FROM page WHERE page_id = 101").contains(other % 4) || other % 4 == home) other++;
            int id = other;
            // DEFAULT NEW hash(page_id): id lands on another partition than 101's, where the backend's own unique index cannot see 101
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + id + ", 0, 'DUP')"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
            assertEquals("23000", dup.getSQLState(), dup.getMessage());
            assertTrue(dup.getMessage().contains("Duplicate entry '0-") && dup.getMessage().contains("page_by_name"), dup.getMessage());
            assertEquals(1, st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + id + ", 1, 'Dup')"), "another namespace, another tuple");
            assertEquals(1, st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + (id + 100) + ", 0, 'Dup2')"), "another title");
            assertEquals(1, onShards(BY_NAME, 0, "dup").size());
            st.executeUpdate("DELETE FROM page WHERE page_id = 101"); // its entry stays (stale)
            assertEquals(1, st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + (id + 200) + ", 0, 'dup')"), "the stale entry is taken over");
            // an UPDATE sets the whole tuple, or none of it
            var some = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE page SET page_title = 'X' WHERE page_id = " + id));
            assertRefusal(some, some.getMessage());
            var upd = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE page SET page_namespace = 0, page_title = 'Dup' WHERE page_id = " + id));
            assertEquals(1062, upd.getErrorCode(), upd.getMessage());
            assertEquals(1, st.executeUpdate("UPDATE page SET page_title = 'Moved', page_namespace = 4 WHERE page_id = " + id));
            var missing = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO page (page_id, page_title) VALUES (990, 'x')"));
            assertRefusal(missing, missing.getMessage());
            assertRefusal(assertThrows(SQLException.class, () -> st.executeUpdate("INSERT IGNORE INTO page (page_id, page_namespace, page_title) VALUES (990, 0, 'x')")), "IGNORE");
        }
        for (TestRouter r : List.of(a, b, c)) {
            assertEquals(onShards(BY_NAME, 0, "Dup"), read(r, BY_NAME, 0, "Dup"));
            assertEquals(1, read(r, BY_NAME, 0, "Dup").size());
            assertEquals(onShards(BY_NAME, 4, "Moved"), read(r, BY_NAME, 4, "moved"));
            assertEquals(1, read(r, BY_NAME, 4, "Moved").size());
            assertEquals(0, read(r, BY_NAME, 1, "Dup").size(), "its old tuple has no row");
        }
    }

    @Test
    @Order(4)
    void twoRoutersInsertingTheSameTupleAtOnceOneGets1062() throws Exception {
        var pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                String title = "Race-" + round;
                int first = 2000 + 2 * round; // consecutive ids: two partitions (DEFAULT NEW hash(page_id))
                SameKeyRace.exactlyOneWins(pool, List.of(b, c), "INSERT INTO page (page_id, page_namespace, page_title) VALUES (?, 0, ?)",
                        List.of(new Object[] {first, title}, new Object[] {first + 1, title.toUpperCase(Locale.ROOT)}), title);
                assertEquals(1, onShards(BY_NAME, 0, title).size(), title);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(5)
    void movedRowsAreFoundByTheirTuplesThroughEveryRouter() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int id = 600; id < 610; id++) {
                st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + id + ", 0, 'M-" + id + "')");
                st.executeUpdate("INSERT INTO revision VALUES (" + id + ", 1)");
            }
            for (TestRouter r : List.of(b, c)) for (int id = 600; id < 610; id++) read(r, BY_NAME, 0, "M-" + id); // their guesses, made stale below
            for (int id = 600; id < 610; id++) {
                int target = (partitionsOf("SELECT 1 FROM page WHERE page_id = " + id).first() + 1 + id % 3) % 4;
                assertEquals(2, st.executeUpdate("ALTER TABLE page SET PARTITION = p" + target + " WHERE page_id = " + id));
                assertEquals(List.of(target), List.copyOf(partitionsOf(BY_NAME, 0, "M-" + id)));
            }
        }
        for (TestRouter r : List.of(a, b, c)) {
            for (int id = 600; id < 610; id++) assertEquals(onShards(BY_NAME, 0, "M-" + id), read(r, BY_NAME, 0, "m-" + id), "M-" + id);
        }
        try (Connection lutra = b.connect(); var st = lutra.createStatement()) {
            var dup = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (699, 0, 'M-603')"));
            assertEquals(1062, dup.getErrorCode(), "a moved tuple is still unique: its entry follows the row; " + dup.getMessage());
        }
    }

    /**
     * Router A reads and writes by tuples (trying where it guesses their rows live) while router B moves rows, changes
     * their tuples, deletes them and gives their tuples to new rows elsewhere: every answer and every count equals the
     * shards' rows, and both guesses that hit and stale ones happen.
     */
    @Test
    @Order(6)
    void readsAndWritesThroughAStaleRouterAnswerWhatTheShardsHold() throws Exception {
        long seed = Long.getLong("sectuple.seed", System.nanoTime());
        System.out.println("SecondaryLookupTupleIT guesses seed " + seed);
        var random = new Random(seed);
        var live = new TreeMap<Integer, String>(); // page id → its title (namespace 7)
        int nextId = 3000;
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            for (int i = 0; i < 12; i++, nextId++) {
                st.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + nextId + ", 7, 'G-" + i + "')");
                live.put(nextId, "G-" + i);
            }
        }
        var stats = a.server.stats();
        long guessed = stats.secondaryGuessed();
        long missed = stats.secondaryGuessMissed();
        try (Connection lutra = a.connect(); Connection other = b.connect(); var onB = other.createStatement();
             var write = lutra.prepareStatement("UPDATE page SET page_len = page_len + 1 WHERE page_namespace = 7 AND page_title = ?")) {
            for (int step = 0; step < 60; step++) {
                var ids = new ArrayList<>(live.keySet());
                int id = ids.get(random.nextInt(ids.size()));
                String title = live.get(id);
                switch (random.nextInt(4)) {
                    case 0 -> onB.executeUpdate("ALTER TABLE page SET PARTITION = p" + random.nextInt(4) + " WHERE page_id = " + id);
                    case 1 -> {
                        String next = "G-" + (100 + step);
                        onB.executeUpdate("UPDATE page SET page_namespace = 7, page_title = '" + next + "' WHERE page_id = " + id);
                        live.put(id, next);
                    }
                    case 2 -> { // the tuple given to a new row, most likely on another partition
                        onB.executeUpdate("DELETE FROM page WHERE page_id = " + id);
                        live.remove(id);
                        onB.executeUpdate("INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + nextId + ", 7, '" + title + "')");
                        live.put(nextId++, title);
                    }
                    default -> { // a write by the tuple through A
                        var before = onShards(BY_NAME, 7, title);
                        write.setString(1, random.nextBoolean() ? title : title.toLowerCase(Locale.ROOT));
                        assertEquals(before.size(), write.executeUpdate(), "step " + step + " (seed " + seed + ")");
                        for (var e : before.entrySet()) e.setValue(e.getValue() + 1);
                        assertEquals(before, onShards(BY_NAME, 7, title), "step " + step + " (seed " + seed + ")");
                    }
                }
                var checked = new java.util.LinkedHashSet<String>();
                checked.add(title);
                if (live.containsKey(id)) checked.add(live.get(id));
                var titles = new ArrayList<>(live.values());
                while (checked.size() < 5) checked.add(titles.get(random.nextInt(titles.size())));
                for (String t : checked) {
                    String spelled = random.nextBoolean() ? t : t.toUpperCase(Locale.ROOT);
                    assertEquals(onShards(BY_NAME, 7, t), read(lutra, BY_NAME, 7, spelled), "step " + step + ", " + spelled + " (seed " + seed + ")");
                }
            }
        }
        assertTrue(stats.secondaryGuessed() > guessed, "some reads and writes answered where A guessed");
        assertTrue(stats.secondaryGuessMissed() > missed, "some guesses were stale, and the entries answered");
    }

    /**
     * Three routers at once, each a thread of random inserts, updates of the tuple (both columns), writes and deletes by
     * the tuple, deletes and moves by id; then every tuple's read through every router equals what the shards hold, and
     * no tuple is on two rows.
     */
    @Test
    @Order(7)
    void differentialUnderConcurrentWritesThroughThreeRouters() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SecondaryLookupTupleIT differential seed " + seed);
        RandomWritesThroughRouters.run(List.of(a, b, c), seed, 120, random -> {
            int id = 5000 + random.nextInt(60);
            int ns = 10 + random.nextInt(2);
            String title = "D-" + random.nextInt(20);
            return switch (random.nextInt(8)) {
                case 0, 1 -> "INSERT INTO page (page_id, page_namespace, page_title) VALUES (" + id + ", " + ns + ", '" + title + "')";
                case 2 -> "UPDATE page SET page_namespace = " + ns + ", page_title = '" + title + "' WHERE page_id = " + id;
                case 3 -> "UPDATE page SET page_len = page_len + 1 WHERE page_namespace = " + ns + " AND page_title = '" + title + "'";
                case 4 -> "DELETE FROM page WHERE page_id = " + id;
                case 5 -> "DELETE FROM page WHERE page_title = '" + title + "' AND page_namespace = " + ns;
                case 6 -> "ALTER TABLE page SET PARTITION = p" + random.nextInt(4) + " WHERE page_id = " + id;
                default -> "INSERT INTO tags VALUES (" + (100 + id) + ", " + random.nextInt(3) + ", 'b" + random.nextInt(4) + "')";
            };
        });
        for (TestRouter r : List.of(a, b, c)) {
            for (int ns = 10; ns < 12; ns++) {
                for (int n = 0; n < 20; n++) {
                    var truth = onShards(BY_NAME, ns, "D-" + n);
                    assertTrue(truth.size() <= 1, ns + ":D-" + n + " on several rows: " + truth);
                    assertEquals(truth, read(r, BY_NAME, ns, "D-" + n), ns + ":D-" + n);
                }
            }
            for (int x = 0; x < 3; x++) {
                for (int y = 0; y < 4; y++) {
                    String sql = "SELECT id, a FROM tags WHERE a = ? AND b = ?";
                    assertEquals(onShards(sql, x, "b" + y), read(r, sql, x, "b" + y), x + ", b" + y);
                }
            }
        }
    }

    @Test
    @Order(8)
    void createRefusesDuplicateTuplesAndMissingIndexes() throws Exception {
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.execute("CREATE TABLE pairs (id INT PRIMARY KEY, x INT, y INT, KEY (x, y)) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
            st.executeUpdate("INSERT INTO pairs VALUES (1, 1, 1), (2, 1, 1), (3, 1, 2)");
            var noUnique = assertThrows(SQLException.class, () -> st.execute("CREATE SECONDARY LOOKUP pairs_xy ON pairs (x, y) UNIQUE"));
            assertEquals(1082, noUnique.getErrorCode(), noUnique.getMessage());
            var noIndex = assertThrows(SQLException.class, () -> st.execute("CREATE SECONDARY LOOKUP pairs_yx ON pairs (y, id)"));
            assertTrue(noIndex.getErrorCode() == 1082 || noIndex.getErrorCode() == 1064, noIndex.getMessage());
            st.execute("CREATE SECONDARY LOOKUP pairs_yx ON pairs (y, x)"); // an index beginning with both columns, in any order
            assertEquals(onShards("SELECT id, x FROM pairs WHERE x = 1 AND y = 1"), read(a, "SELECT id, x FROM pairs WHERE x = 1 AND y = 1"));
            assertEquals(2, read(b, "SELECT id, x FROM pairs WHERE y = ? AND x = ?", 1, 1).size());
            st.execute("DROP SECONDARY LOOKUP pairs_yx");
            st.execute("DROP TABLE pairs");
            // each partition's unique index holds its own rows only: a tuple on two partitions fails a UNIQUE CREATE, which keeps nothing
            st.execute("CREATE TABLE upairs (id INT PRIMARY KEY, x INT, y VARCHAR(10), UNIQUE KEY (y, x)) PARTITION BY hash(id) ON (p0, p1, p2, p3)");
            st.executeUpdate("INSERT INTO upairs VALUES (1, 1, 'a'), (2, 1, 'A'), (3, 2, 'a')"); // ids 1 and 2 on two partitions; 'a' = 'A'
            var dup = assertThrows(SQLException.class, () -> st.execute("CREATE SECONDARY LOOKUP upairs_xy ON upairs (x, y) UNIQUE"));
            assertEquals(1062, dup.getErrorCode(), dup.getMessage());
            assertFalse(explain(a, "SELECT id FROM upairs WHERE x = 1 AND y = 'a'").contains("secondary lookup"), "nothing kept");
            assertEquals(1, st.executeUpdate("DELETE FROM upairs WHERE id = 2"));
            st.execute("CREATE SECONDARY LOOKUP upairs_xy ON upairs (x, y) UNIQUE");
            assertTrue(explain(a, "SELECT id FROM upairs WHERE x = 1 AND y = 'a'").contains("by secondary lookup upairs_xy"));
            assertEquals(onShards("SELECT id, x FROM upairs WHERE x = 1 AND y = 'a'"), read(c, "SELECT id, x FROM upairs WHERE y = 'A' AND x = 1"));
            var again = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO upairs VALUES (2, 1, 'A')"));
            assertEquals(1062, again.getErrorCode(), again.getMessage());
            st.execute("DROP TABLE upairs");
        }
    }
}
