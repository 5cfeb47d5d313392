package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.Refusals;
import org.lutra.catalog.Partitioning;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * End to end through the real driver, router and four embedded MariaDB shards: every answer is
 * compared with the same statement on one unpartitioned database holding the same rows.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma DECIMAL(10,2), born DATE)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE tweets (id BIGINT PRIMARY KEY, author INT NOT NULL, body VARCHAR(280), at DATETIME(3))
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE tags (tag VARCHAR(32) COLLATE utf8mb4_bin PRIMARY KEY, uses INT)
              PARTITION BY range(tag) ON (p0 < 'h', p1 < 'p', p2);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY, name VARCHAR(64)) REPLICATED;
            """;

    TestRouter router;
    Connection lutra;
    Connection reference;
    String refDb;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "routerit", SCHEMA);
        lutra = router.connect();
        refDb = router.database + "_ref";
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("CREATE DATABASE `" + refDb + "`");
        }
        reference = DriverManager.getConnection(shards.url(0, refDb), shards.user(), shards.password());
        for (var t : router.server.catalog().tables()) {
            reference.createStatement().execute(t.ddl());
        }
        both("INSERT INTO country (code, name) VALUES ('CH', 'Switzerland'), ('DE', 'Germany'), ('US', 'United States')");
        for (int id = 1; id <= 120; id++) {
            bothPrepared("INSERT INTO users (id, name, karma, born) VALUES (?, ?, ?, ?)", id, "user" + id, new java.math.BigDecimal(id + ".25"),
                    java.sql.Date.valueOf("1990-01-" + String.format("%02d", id % 28 + 1)));
        }
        both("INSERT INTO followers (source, destination) VALUES (1, 2), (1, 3), (1, 4), (2, 1), (7, 1), (7, 9), (100, 5)");
        for (long id = 1; id <= 300; id++) {
            bothPrepared("INSERT INTO tweets (id, author, body, at) VALUES (?, ?, ?, ?)", id, (int) (id % 120 + 1), "tweet #" + id,
                    java.sql.Timestamp.valueOf("2024-02-29 12:00:00." + String.format("%03d", id)));
        }
        both("INSERT INTO tags (tag, uses) VALUES ('apple', 1), ('Hello', 2), ('java', 3), ('zebra', 4), ('Zulu', 5), ('mango', 6)");
    }

    @AfterAll
    void stop(Shards shards) throws Exception {
        if (lutra != null) lutra.close();
        if (reference != null) reference.close();
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS `" + refDb + "`");
        }
        if (router != null) router.close();
    }

    @Test
    void queriesAnswerAsOneUnpartitionedDatabase() throws SQLException {
        for (String sql : List.of(
                "SELECT * FROM users WHERE id = 17",
                "SELECT * FROM users WHERE id IN (2, 19, 27, 77, 999)",
                "SELECT id, name FROM users WHERE name LIKE 'user1%'",
                "SELECT * FROM users",
                "SELECT COUNT(*) FROM followers WHERE source = 1",
                "SELECT destination FROM followers WHERE source = 7",
                "SELECT * FROM followers WHERE source IN (1, 2, 100)",
                "SELECT * FROM tweets WHERE id IN (5, 6, 7, 8, 250)",
                "SELECT body, at FROM tweets WHERE author = 3",
                "SELECT * FROM tags WHERE tag = 'Hello'",
                "SELECT * FROM tags WHERE tag IN ('apple', 'zebra', 'Zulu', 'nope')",
                "SELECT * FROM tags",
                "SELECT * FROM country WHERE code = 'DE'",
                "SELECT name FROM country",
                "SELECT 1 + 1, 'x'",
                "SELECT * FROM users WHERE id = 5000")) {
            assertEquals(rows(reference, sql), rows(lutra, sql), sql);
        }
    }

    @Test
    void limitOverSeveralPartitionsIsReapplied() throws SQLException {
        try (var rs = lutra.createStatement().executeQuery("SELECT id FROM tweets LIMIT 7")) {
            int n = 0;
            while (rs.next()) n++;
            assertEquals(7, n);
        }
    }

    @Test
    void parametersAreRoutedByValue() throws SQLException {
        String sql = "SELECT id, name, karma, born FROM users WHERE id IN (?, ?, ?) AND name <> ?";
        try (var ps = lutra.prepareStatement(sql); var ref = reference.prepareStatement(sql)) {
            for (var p : List.of(ps, ref)) {
                p.setInt(1, 3);
                p.setLong(2, 64);
                p.setString(3, "101");
                p.setString(4, "nobody");
            }
            assertEquals(rows(ref.executeQuery()), rows(ps.executeQuery()));
        }
        long before = router.server.stats().singlePartition();
        try (var ps = lutra.prepareStatement("SELECT name FROM users WHERE id = ?")) {
            ps.setInt(1, 42);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals("user42", rs.getString(1));
            }
        }
        assertEquals(before + 1, router.server.stats().singlePartition(), "an equality on the lookup key reads one partition");
    }

    @Test
    void writesCountLikeMySql() throws SQLException {
        for (String sql : List.of(
                "UPDATE users SET karma = karma + 1 WHERE id IN (10, 11, 12, 13, 14)",
                "UPDATE users SET name = 'renamed' WHERE id = 15",
                "UPDATE tweets SET body = 'edited' WHERE author = 4",
                "DELETE FROM tweets WHERE id IN (290, 291, 292)",
                "INSERT INTO users (id, name) VALUES (500, 'new1'), (501, 'new2'), (502, 'new3'), (503, 'new4')",
                "INSERT INTO followers (source, destination) VALUES (500, 1), (501, 1), (55, 56)",
                "DELETE FROM users WHERE id = 503",
                "UPDATE country SET name = 'Deutschland' WHERE code = 'DE'")) {
            assertEquals(reference.createStatement().executeUpdate(sql), lutra.createStatement().executeUpdate(sql), sql);
        }
        for (String sql : List.of("SELECT * FROM users WHERE id >= 10 AND id < 16", "SELECT * FROM users WHERE id > 400",
                "SELECT * FROM followers", "SELECT * FROM tweets WHERE author = 4", "SELECT * FROM country")) {
            assertEquals(rows(reference, sql), rows(lutra, sql), sql);
        }
    }

    @Test
    void newKeysFollowDefaultRuleAndSameAsRowsFollowTheirOwner() throws SQLException {
        both("INSERT INTO users (id, name) VALUES (777, 'placed')");
        var users = (Partitioning.LookedUp) router.server.catalog().table("users").partitioning();
        int home = users.table().get(777L);
        assertEquals(777 % 4, home, "DEFAULT NEW ON hash(id)");
        both("INSERT INTO followers (source, destination) VALUES (777, 1)");
        try (var c = router.partition(home); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM followers WHERE source = 777")) {
            rs.next();
            assertEquals(1, rs.getInt(1), "the follower row lives with its user");
        }
    }

    @Test
    void emptyAnswersOnALookupTableCostOnePartitionWhenTheOwnerIsThere() throws SQLException {
        long fallbacks = router.server.stats().fallbacks();
        // user 50 exists and follows nobody: the follower rows would live with user 50, so the
        // empty answer from user 50's partition is the whole answer
        for (String sql : List.of("SELECT * FROM followers WHERE source = 50", "SELECT destination FROM followers WHERE source IN (50, 51)",
                "SELECT * FROM users WHERE id = 50 AND karma < 0", "SELECT * FROM users WHERE id IN (50, 1) AND name = 'user1'")) {
            assertEquals(rows(reference, sql), rows(lutra, sql), sql);
        }
        for (String sql : List.of("UPDATE users SET karma = 1 WHERE id = 50 AND karma < 0", "DELETE FROM followers WHERE source = 50")) {
            assertEquals(reference.createStatement().executeUpdate(sql), lutra.createStatement().executeUpdate(sql), sql);
        }
        assertEquals(fallbacks, router.server.stats().fallbacks(), "no statement was asked of other partitions");

        // a key that exists nowhere: its home row says "at home", where nothing is: no other partition is asked
        String missing = "SELECT * FROM followers WHERE source = 100000";
        assertEquals(rows(reference, missing), rows(lutra, missing));
        assertEquals(fallbacks, router.server.stats().fallbacks(), "a key that exists nowhere is not looked for everywhere");
        // a stale cache entry: the home row says where the key lives
        var users = (Partitioning.LookedUp) router.server.catalog().table("users").partitioning();
        int real = users.table().get(7L);
        users.table().put(7L, (real + 1) % 4);
        String moved = "SELECT * FROM followers WHERE source = 7 AND destination > 100";
        assertEquals(rows(reference, moved), rows(lutra, moved));
        String follows = "SELECT * FROM followers WHERE source = 7";
        users.table().put(7L, (real + 1) % 4);
        assertEquals(rows(reference, follows), rows(lutra, follows));
        assertEquals(real, users.table().get(7L), "the router learned where user 7 lives");
    }

    @Test
    void staleLookupEntriesStillGiveRightAnswers() throws SQLException {
        var users = (Partitioning.LookedUp) router.server.catalog().table("users").partitioning();
        int real = users.table().get(33L);
        int wrong = (real + 1) % 4;
        users.table().put(33L, wrong);
        long fallbacks = router.server.stats().fallbacks();
        assertEquals(rows(reference, "SELECT * FROM users WHERE id = 33"), rows(lutra, "SELECT * FROM users WHERE id = 33"));
        assertEquals(real, users.table().get(33L), "the router learned where user 33 lives");
        assertTrue(router.server.stats().fallbacks() > fallbacks);

        users.table().put(34L, (users.table().get(34L) + 2) % 4);
        users.table().put(35L, (users.table().get(35L) + 1) % 4);
        String in = "SELECT * FROM users WHERE id IN (34, 35, 36)";
        assertEquals(rows(reference, in), rows(lutra, in));
        users.table().put(36L, (users.table().get(36L) + 3) % 4);
        String update = "UPDATE users SET karma = 0 WHERE id IN (35, 36)";
        assertEquals(reference.createStatement().executeUpdate(update), lutra.createStatement().executeUpdate(update));
        users.table().remove(1L); // owner of followers rows; also a miss must not lose rows
        users.table().put(7L, (users.table().get(7L) + 1) % 4);
        for (String sql : List.of("SELECT * FROM users WHERE id IN (34, 35, 36)", "SELECT COUNT(*) FROM followers WHERE source = 7",
                "SELECT * FROM followers WHERE source = 1")) {
            assertEquals(rows(reference, sql), rows(lutra, sql), sql);
        }
    }

    @Test
    void rowsStreamInBatches() throws SQLException {
        try (var st = lutra.createStatement()) {
            st.setFetchSize(7);
            try (var rs = st.executeQuery("SELECT id FROM tweets")) {
                int n = 0;
                while (rs.next()) n++;
                assertEquals(rows(reference, "SELECT id FROM tweets").size(), n);
            }
            st.setFetchSize(5);
            try (var rs = st.executeQuery("SELECT id FROM users")) {
                assertTrue(rs.next()); // leave the cursor open, then close it early
            }
            assertEquals(1, rows(lutra, "SELECT 1").size(), "the session goes on after an early close");
        }
    }

    @Test
    void tableNamesAreCaseInsensitiveAndSentAsTheCatalogSpellsThem() throws SQLException {
        // the backends compare table names case-sensitively (lower_case_table_names=0), as on Linux
        for (String[] pair : List.of(
                new String[] {"SELECT * FROM USERS WHERE id = 3", "SELECT * FROM users WHERE id = 3"},
                new String[] {"SELECT USERS.name FROM USERS WHERE USERS.id IN (4, 5)", "SELECT users.name FROM users WHERE users.id IN (4, 5)"},
                new String[] {"SELECT COUNT(*) FROM Tweets", "SELECT COUNT(*) FROM tweets"},
                new String[] {"SELECT u.name FROM Users u JOIN Followers f ON f.source = u.id WHERE u.id = 1",
                        "SELECT u.name FROM users u JOIN followers f ON f.source = u.id WHERE u.id = 1"},
                new String[] {"SELECT Country.name FROM Country ORDER BY Country.code", "SELECT country.name FROM country ORDER BY country.code"})) {
            assertEquals(rows(reference, pair[1]), rows(lutra, pair[0]), pair[0]);
        }
        assertEquals(reference.createStatement().executeUpdate("UPDATE users SET karma = 7 WHERE id = 6"),
                lutra.createStatement().executeUpdate("UPDATE USERS SET karma = 7 WHERE id = 6"));
        assertEquals(rows(reference, "SELECT * FROM users WHERE id = 6"), rows(lutra, "SELECT * FROM users WHERE id = 6"));
    }

    @Test
    void characterSetStatementsClientsSendOnConnect() throws SQLException {
        for (String sql : List.of("SET NAMES utf8mb4", "SET NAMES 'utf8'", "set names utf8mb4;", "SET CHARACTER SET utf8mb4",
                "SET character_set_client = utf8mb4", "SET SESSION character_set_results = 'utf8mb4'", "SET character_set_results = NULL")) {
            assertEquals(0, lutra.createStatement().executeUpdate(sql), sql);
        }
        for (String sql : List.of("SET NAMES latin1", "SET character_set_results = latin1", "SET NAMES utf8mb4 COLLATE utf8mb4_bin",
                "SET character_set_client = NULL", "SET character_set_results = 'NULL'")) {
            assertRefusal(sql);
        }
        assertEquals(rows(reference, "SELECT name FROM users WHERE id = 9"), rows(lutra, "SELECT name FROM users WHERE id = 9"));
        try (var rs = lutra.createStatement().executeQuery("SELECT @@version")) {
            assertTrue(rs.next() && rs.getString(1).contains("MariaDB"), "the backend's version");
        }
    }

    @Test
    void badStatementsGetClearErrorsAndTheSessionGoesOn() throws SQLException {
        assertSqlState("42S02", "SELECT * FROM nosuch");
        assertSqlState("42000", "SELEKT * FROM users");
        // once refused, now answered over copies of the tables: answered as one MariaDB answers
        for (String sql : List.of(
                "SELECT * FROM users u JOIN followers f ON f.destination = u.id WHERE EXISTS (SELECT 1 FROM tweets t WHERE t.author = u.id)"
                        + " ORDER BY u.id, f.source",
                "SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM tweets t WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = t.author) ORDER BY id")) {
            assertEquals(rows(reference, sql), rows(lutra, sql), sql);
        }
        assertRefusal("UPDATE users SET id = id + 1000 WHERE id = 1"); // a routing column set from the row itself
        assertSqlState("42S22", "SELECT nosuchcolumn FROM users WHERE id = 1");
        assertSqlState("23000", "INSERT INTO users (id, name) VALUES (1, 'duplicate')");
        assertEquals(rows(reference, "SELECT * FROM users WHERE id = 2"), rows(lutra, "SELECT * FROM users WHERE id = 2"));
    }

    private void assertRefusal(String sql) {
        Refusals.assertRefusal(assertThrows(SQLException.class, () -> lutra.createStatement().execute(sql), sql), sql);
    }

    private void assertSqlState(String state, String sql) {
        var e = assertThrows(SQLException.class, () -> lutra.createStatement().execute(sql), sql);
        assertEquals(state, e.getSQLState(), sql + " -> " + e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }

    /**
     * A statement run again is told its columns are the ones it holds (Execute.known_columns,
     * ResultSet.same_columns) only when they are: the router compares with the very list it named.
     */
    @Test
    void columnsAreSentOnceAndAgainWhenTheyDiffer() throws Exception {
        try (var session = new RawSession(router)) {
            var point = org.lutra.protocol.Execute.newBuilder().setSql("SELECT id, name FROM users WHERE id = 1");
            session.execute(1, point);
            var first = session.answer().getResultSet();
            assertEquals(List.of("id", "name"), first.getColumnsList().stream().map(org.lutra.protocol.Column::getName).toList());
            assertFalse(first.getSameColumns());
            session.execute(2, point.clone().setKnownColumns(first.getColumnsId()));
            var again = session.answer().getResultSet();
            assertTrue(again.getSameColumns(), again.toString());
            assertEquals(0, again.getColumnsCount());
            assertEquals(first.getColumnsId(), again.getColumnsId());
            assertEquals(first.getFirstBatch().getRowsList(), again.getFirstBatch().getRowsList());
            session.execute(3, org.lutra.protocol.Execute.newBuilder().setSql("SELECT name, id FROM users WHERE id = 1").setKnownColumns(first.getColumnsId()));
            var swapped = session.answer().getResultSet();
            assertFalse(swapped.getSameColumns());
            assertEquals(List.of("name", "id"), swapped.getColumnsList().stream().map(org.lutra.protocol.Column::getName).toList());
            assertNotEquals(first.getColumnsId(), swapped.getColumnsId());
            session.execute(4, point.clone().setKnownColumns(first.getColumnsId() + 1_000));
            var unknown = session.answer().getResultSet();
            assertFalse(unknown.getSameColumns(), "a list the router never named is never 'the same'");
            assertEquals(2, unknown.getColumnsCount());
        }
    }

    /** Through the driver: statements run again, with other shapes and after an ALTER, describe their results as Connector/J does. */
    @Test
    void resultsDescribeTheirColumnsAsConnectorJAcrossExecutions() throws SQLException {
        for (var c : List.of(lutra, reference)) {
            c.createStatement().execute("CREATE TABLE shapes (id INT PRIMARY KEY, a INT)"
                    + (c == lutra ? " PARTITION BY hash(id) ON (p0, p1, p2, p3)" : ""));
            c.createStatement().execute("INSERT INTO shapes (id, a) VALUES (1, 10), (2, 20)");
        }
        try (var ls = lutra.createStatement(); var rs = reference.createStatement();
             var lp = lutra.prepareStatement("SELECT * FROM shapes WHERE id = ?"); var rp = reference.prepareStatement("SELECT * FROM shapes WHERE id = ?")) {
            for (String sql : List.of("SELECT id, a FROM shapes WHERE id = 1", "SELECT id, a FROM shapes WHERE id = 1", "SELECT a, id FROM shapes WHERE id = 2",
                    "SELECT a AS id, id AS a FROM shapes WHERE id = 2", "SELECT id, a FROM shapes WHERE id = 1", "SELECT COUNT(*) FROM shapes")) {
                assertEquals(described(rs.executeQuery(sql)), described(ls.executeQuery(sql)), sql);
            }
            for (int round = 0; round < 3; round++) {
                if (round == 2) {
                    for (var c : List.of(lutra, reference)) c.createStatement().execute("ALTER TABLE shapes ADD COLUMN b VARCHAR(8)");
                }
                for (int id : new int[] {1, 2}) {
                    lp.setInt(1, id);
                    rp.setInt(1, id);
                    assertEquals(described(rp.executeQuery()), described(lp.executeQuery()), "round " + round + ", id " + id);
                }
            }
        } finally {
            for (var c : List.of(lutra, reference)) c.createStatement().execute("DROP TABLE shapes");
        }
    }

    /** A result's labels, names, tables and types, then its rows. */
    private static String described(ResultSet rs) throws SQLException {
        var md = rs.getMetaData();
        var sb = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            sb.append(md.getColumnLabel(i)).append('/').append(md.getColumnName(i)).append('/').append(md.getTableName(i)).append('/')
                    .append(md.getColumnType(i)).append(' ');
        }
        sb.append(rows(rs));
        rs.close();
        return sb.toString();
    }

    // ---- helpers ----

    private void both(String sql) throws SQLException {
        assertEquals(reference.createStatement().executeUpdate(sql), lutra.createStatement().executeUpdate(sql), sql);
    }

    private void bothPrepared(String sql, Object... params) throws SQLException {
        for (var c : List.of(lutra, reference)) {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
                assertEquals(1, ps.executeUpdate());
            }
        }
    }

    /** Rows as text, sorted: partitions answer in any order. */
    static List<String> rows(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            return rows(rs);
        }
    }

    static List<String> rows(ResultSet rs) throws SQLException {
        var out = new ArrayList<String>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            var sb = new StringBuilder();
            for (int i = 1; i <= n; i++) {
                sb.append(i > 1 ? "|" : "").append(rs.getMetaData().getColumnLabel(i)).append('=').append(rs.getString(i));
            }
            out.add(sb.toString());
        }
        out.sort(null);
        return out;
    }
}
