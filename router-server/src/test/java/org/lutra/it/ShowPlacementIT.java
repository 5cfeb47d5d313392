package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * SHOW PARTITIONS, SHOW LOOKUP TABLES and SHOW LOOKUP t FOR key through the driver, each answer
 * checked against what the test finds on the shards itself (each partition's own database, read
 * past the router), and the counters against the statements the test ran.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShowPlacementIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE tweets (id BIGINT PRIMARY KEY, body VARCHAR(280)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE tags (tag VARCHAR(32) COLLATE utf8mb4_bin PRIMARY KEY) PARTITION BY range(tag) ON (p0 < 'h', p1 < 'p', p2);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY) REPLICATED;
            """;
    static final int USERS = 40;

    TestRouter router;
    Connection lutra;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "showit", SCHEMA);
        lutra = router.connect();
        try (var ps = lutra.prepareStatement("INSERT INTO users (id, name) VALUES (?, ?)")) {
            for (int id = 1; id <= USERS; id++) {
                ps.setInt(1, id);
                ps.setString(2, "user" + id);
                ps.executeUpdate();
            }
        }
        lutra.createStatement().executeUpdate("INSERT INTO followers (source, destination) VALUES (1, 2), (1, 3), (2, 1)");
    }

    @AfterAll
    void stop() throws Exception {
        if (lutra != null) lutra.close();
        if (router != null) router.close();
    }

    @Test
    void showPartitionsNamesWhereEachPartitionLivesAndWhatIsOnIt() throws SQLException {
        var rows = rows(lutra, "SHOW PARTITIONS");
        assertEquals(4, rows.size(), rows.toString());
        for (int p = 0; p < 4; p++) {
            var row = rows.get(p);
            assertEquals("p" + p, row.get("Partition"));
            assertEquals(String.valueOf(p), row.get("Id"));
            assertEquals("shard" + (p % router.servers), row.get("Backend"));
            try (var c = router.partition(p)) {
                assertEquals(c.getCatalog(), row.get("Database"), "the database the test reaches partition p" + p + " in");
                assertEquals(String.valueOf(tablesOn(c)), row.get("Tables"), "the tables the router created in p" + p + "'s database");
            }
            assertEquals("8", row.get("Pool_size"));
        }
        assertNoConnectionsBorrowed();
        assertEquals(List.of("5", "5", "5", "4"), rows.stream().map(r -> r.get("Tables")).toList(), "tags is on p0..p2 only");

        // one point read on user 7's partition: one more sub-query there, none elsewhere
        int home = partitionHolding("users", "id", 7);
        var before = rows.stream().map(r -> Long.parseLong(r.get("Sub_queries"))).toList();
        rows(lutra, "SELECT name FROM users WHERE id = 7");
        var after = rows(lutra, "SHOW PARTITIONS").stream().map(r -> Long.parseLong(r.get("Sub_queries"))).toList();
        for (int p = 0; p < 4; p++) assertEquals(before.get(p) + (p == home ? 1 : 0), after.get(p), "sub-queries on p" + p);
    }

    @Test
    void showLookupForSaysWhereTheShardsHoldEachRow() throws SQLException {
        for (int id = 1; id <= USERS; id++) {
            String actual = "p" + partitionHolding("users", "id", id);
            var row = single(lutra, "SHOW LOOKUP users FOR " + id);
            assertEquals(Map.of("Table", "users", "Key", String.valueOf(id), "Partition", actual, "Source", "lookup entry"), row, "user " + id);
        }
        int one = partitionHolding("users", "id", 1);
        assertEquals(one, partitionHolding("followers", "source", 1), "follower rows live with user 1");
        var follower = single(lutra, "SHOW LOOKUP followers FOR 1");
        assertEquals("p" + one, follower.get("Partition"));
        assertEquals("lookup entry (lookup table of users)", follower.get("Source"));

        // keys normalized as the INT column compares them: '7', 7.0 and ' 7' are 7
        var seven = single(lutra, "SHOW LOOKUP users FOR 7");
        for (String key : List.of("'7'", "7.0", "' 7'", "+7")) assertEquals(seven, single(lutra, "SHOW LOOKUP users FOR " + key), key);
        try (var ps = lutra.prepareStatement("SHOW LOOKUP users FOR ?")) {
            ps.setLong(1, 7);
            try (var rs = ps.executeQuery()) {
                assertEquals(List.of(seven), rows(rs));
            }
        }
    }

    @Test
    void aKeyWithoutEntryGoesWhereDefaultNewPutsItAndHashAndRangeByTheirRules() throws SQLException {
        var absent = single(lutra, "SHOW LOOKUP users FOR 1001");
        assertEquals("no entry: DEFAULT NEW hash(id)", absent.get("Source"));
        lutra.createStatement().executeUpdate("INSERT INTO users (id, name) VALUES (1001, 'new')");
        assertEquals("p" + partitionHolding("users", "id", 1001), absent.get("Partition"), "the insert went where SHOW LOOKUP said");
        assertEquals(Map.of("Table", "users", "Key", "1001", "Partition", absent.get("Partition"), "Source", "lookup entry"),
                single(lutra, "SHOW LOOKUP users FOR 1001"));

        for (long id : new long[] {7, 10, 4096, -3}) {
            var shown = single(lutra, "SHOW LOOKUP tweets FOR " + id);
            assertEquals("hash(id) rule", shown.get("Source"));
            lutra.createStatement().executeUpdate("INSERT INTO tweets (id, body) VALUES (" + id + ", 'x')");
            assertEquals("p" + partitionHolding("tweets", "id", id), shown.get("Partition"), "tweet " + id);
        }
        for (String tag : List.of("apple", "h", "Zulu", "mango", "zebra")) {
            var shown = single(lutra, "SHOW LOOKUP tags FOR '" + tag + "'");
            assertEquals("range(tag) rule", shown.get("Source"));
            assertEquals(tag, shown.get("Key"));
            lutra.createStatement().executeUpdate("INSERT INTO tags (tag) VALUES ('" + tag + "')");
            assertEquals("p" + partitionHolding("tags", "tag", tag), shown.get("Partition"), "tag " + tag);
        }
    }

    @Test
    void countersMoveWithCachedHitsMissesBroadcastsAndAFallbackToWhereTheHomeRowPoints() throws SQLException {
        var users = lookupTable("users");
        assertEquals("id", users.get("Column"));
        assertEquals("followers", users.get("Same_as"));
        assertEquals("p0, p1, p2, p3", users.get("Partitions"));
        assertEquals(String.valueOf(rowsOnShards("users")), users.get("Keys"), "one entry per user row on the shards");
        assertFalse(users.get("Representation").isEmpty());
        assertTrue(Long.parseLong(users.get("Bytes")) > 0, users.toString());
        assertEquals(List.of("users"), lookupTables().stream().map(r -> r.get("Table")).toList(), "one lookup table: followers shares users'");

        var base = counters();
        rows(lutra, "SELECT name FROM users WHERE id = 5"); // cached, and the row is there
        assertEquals(delta(base, 1, 0, 0, 0, 0), counters(), "a cached hit");

        base = counters();
        rows(lutra, "SELECT name FROM users WHERE name = 'user5'"); // no key: every partition
        assertEquals(delta(base, 0, 0, 1, 0, 0), counters(), "a broadcast");

        base = counters();
        assertEquals(List.of(), rows(lutra, "SELECT name FROM users WHERE id = 5000")); // no entry: DEFAULT NEW's partition, then the others
        assertEquals(delta(base, 0, 1, 0, 0, 0), counters(), "a miss: its home row says it lives at home, so no other partition is asked");

        // user 6 moves from its partition to the next one as another router's move leaves it (its
        // home row names the new partition), but on the shards directly: this router's entry is now stale
        int from = partitionHolding("users", "id", 6);
        int to = (from + 1) % 4;
        int home = 6 % 4; // DEFAULT NEW ON hash(id): the key's home
        try (var a = router.partition(from); var b = router.partition(to); var h = router.partition(home)) {
            h.createStatement().executeUpdate("INSERT INTO lutra_place_users (k, partitions) VALUES (6, 'p" + to + "')"
                    + " ON DUPLICATE KEY UPDATE partitions = VALUES(partitions)");
            assertEquals(1, a.createStatement().executeUpdate("DELETE FROM users WHERE id = 6"));
            assertEquals(1, b.createStatement().executeUpdate("INSERT INTO users (id, name) VALUES (6, 'user6')"));
        }
        assertEquals("p" + from, single(lutra, "SHOW LOOKUP users FOR 6").get("Partition"), "SHOW LOOKUP tells the cache, stale or not");
        base = counters();
        var found = rows(lutra, "SELECT name FROM users WHERE id = 6");
        assertEquals(List.of(Map.of("name", "user6")), found, "the answer is right anyway");
        assertEquals(delta(base, 1, 0, 0, 1, 1), counters(), "a stale hit: the home row named the partition, the row was there, the entry was learned");
        assertEquals("p" + to, single(lutra, "SHOW LOOKUP users FOR 6").get("Partition"), "the learned entry");

        base = counters();
        rows(lutra, "SELECT name FROM users WHERE id = 6");
        assertEquals(delta(base, 1, 0, 0, 0, 0), counters(), "the learned entry is a plain hit now");

        base = counters();
        lutra.createStatement().executeUpdate("UPDATE followers SET destination = 9 WHERE source = 2"); // SAME AS: users' counters
        assertEquals(delta(base, 1, 0, 0, 0, 0), counters(), "a SAME AS table's statement counts on its owner's lookup table");
    }

    @Test
    void answersAreTheSameInsideATransactionWhichGoesOnUntouched() throws SQLException {
        var outside = List.of(rows(lutra, "SHOW LOOKUP users FOR 3"), rows(lutra, "SHOW LOOKUP tweets FOR 3"));
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            // a hash-placed row: a lookup-placed one would leave its entry behind after the rollback
            c.createStatement().executeUpdate("INSERT INTO tweets (id, body) VALUES (2002, 'in txn')");
            int home = partitionHolding("tweets", "id", 2002, false);
            var partitions = rows(c, "SHOW PARTITIONS");
            assertTrue(Long.parseLong(partitions.get(home).get("Transaction_connections_active")) >= 1, "the open transaction holds its connection on p" + home);
            assertEquals(outside, List.of(rows(c, "SHOW LOOKUP users FOR 3"), rows(c, "SHOW LOOKUP tweets FOR 3")));
            assertEquals(1, rows(c, "SHOW LOOKUP TABLES").size());
            assertEquals(List.of(Map.of("body", "in txn")), rows(c, "SELECT body FROM tweets WHERE id = 2002"), "still in the transaction");
            c.rollback();
            assertEquals(List.of(), rows(c, "SELECT body FROM tweets WHERE id = 2002"), "the SHOWs committed nothing");
        }
        assertNoConnectionsBorrowed();
    }

    @Test
    void errorsAreMySqlsAndTheSessionGoesOn() throws SQLException {
        assertError("SHOW LOOKUP nope FOR 1", "42S02", 1146);
        assertError("SHOW LOOKUP country FOR 'CH'", "HY000", 1347);
        assertError("SHOW LOOKUP users FOR", "42000", 1064);
        assertError("SHOW LOOKUP users FOR 1 2", "42000", 1064);
        assertError("SHOW PARTITIONS now", "42000", 1064);
        assertError("SHOW LOOKUP users FOR 'seven'", "22007", 1292);
        assertEquals("users", single(lutra, "SHOW LOOKUP users FOR 1").get("Table"));
    }

    // ---- facts from the shards, past the router ------------------------------------------------

    /** The partition whose own database holds the row; fails unless exactly one does. */
    private int partitionHolding(String table, String column, Object key) throws SQLException {
        return partitionHolding(table, column, key, true);
    }

    /** @param committed false: the row is in another connection's open transaction (read uncommitted) */
    private int partitionHolding(String table, String column, Object key, boolean committed) throws SQLException {
        var holders = new ArrayList<Integer>();
        for (int p = 0; p < 4; p++) {
            try (var c = router.partition(p); var st = c.createStatement()) {
                if (!committed) st.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM `" + table + "` WHERE `" + column + "` = '" + key + "'")) {
                    rs.next();
                    if (rs.getInt(1) > 0) holders.add(p);
                }
            } catch (SQLException noSuchTable) {
                if (!"42S02".equals(noSuchTable.getSQLState())) throw noSuchTable; // tags is not on p3
            }
        }
        assertEquals(1, holders.size(), table + " " + key + " is on partitions " + holders);
        return holders.getFirst();
    }

    private long rowsOnShards(String table) throws SQLException {
        long n = 0;
        for (int p = 0; p < 4; p++) {
            try (var c = router.partition(p); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM `" + table + "`")) {
                rs.next();
                n += rs.getLong(1);
            }
        }
        return n;
    }

    /** The application's tables in a partition's database (the router keeps its XA decisions there too, as lutra_*). */
    private static long tablesOn(Connection c) throws SQLException {
        long n = 0;
        try (var rs = c.createStatement().executeQuery("SHOW TABLES")) {
            while (rs.next()) if (!rs.getString(1).startsWith("lutra_")) n++;
        }
        return n;
    }

    // ---- the router's answers ------------------------------------------------------------------

    private List<Map<String, String>> lookupTables() throws SQLException {
        return rows(lutra, "SHOW LOOKUP TABLES");
    }

    private Map<String, String> lookupTable(String name) throws SQLException {
        return lookupTables().stream().filter(r -> r.get("Table").equals(name)).findFirst().orElseThrow();
    }

    /** hits, misses, broadcasts, fallbacks, learned of users' lookup table. */
    private List<Long> counters() throws SQLException {
        var row = lookupTable("users");
        return List.of("Hits", "Misses", "Broadcasts", "Fallbacks", "Learned").stream().map(c -> Long.parseLong(row.get(c))).toList();
    }

    private static List<Long> delta(List<Long> base, long... d) {
        var out = new ArrayList<Long>();
        for (int i = 0; i < d.length; i++) out.add(base.get(i) + d[i]);
        return out;
    }

    /** No partition has a connection borrowed (a background recovery pass borrows one briefly: asked again for a second). */
    private void assertNoConnectionsBorrowed() throws SQLException {
        List<String> active = List.of();
        for (int i = 0; i < 20; i++) {
            active = rows(lutra, "SHOW PARTITIONS").stream().map(r -> r.get("Connections_active") + "+" + r.get("Transaction_connections_active")).toList();
            if (active.equals(List.of("0+0", "0+0", "0+0", "0+0"))) return;
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        fail("connections borrowed per partition with no statement running and no transaction open: " + active);
    }

    private void assertError(String sql, String state, int code) {
        var e = assertThrows(SQLException.class, () -> rows(lutra, sql), sql);
        assertEquals(state, e.getSQLState(), sql + ": " + e.getMessage());
        assertEquals(code, e.getErrorCode(), sql + ": " + e.getMessage());
    }

    private static Map<String, String> single(Connection c, String sql) throws SQLException {
        var rows = rows(c, sql);
        assertEquals(1, rows.size(), sql + ": " + rows);
        return rows.getFirst();
    }

    static List<Map<String, String>> rows(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            return rows(rs);
        }
    }

    /** Rows in the router's order, each column label to getString (null as null). */
    static List<Map<String, String>> rows(ResultSet rs) throws SQLException {
        var out = new ArrayList<Map<String, String>>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            var row = new LinkedHashMap<String, String>();
            for (int i = 1; i <= n; i++) row.put(rs.getMetaData().getColumnLabel(i), rs.getString(i));
            out.add(row);
        }
        return out;
    }
}
