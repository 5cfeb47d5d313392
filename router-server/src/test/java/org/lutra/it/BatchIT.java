package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * JDBC batches through Lutra: one request per batch, single-row INSERTs combined into multi-row
 * INSERTs per partition, update counts per entry as Connector/J gives them on one server, the
 * counts so far on failure, atomic inside a transaction.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BatchIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE items (id BIGINT PRIMARY KEY, body VARCHAR(2000), n INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code CHAR(2) COLLATE utf8mb4_bin PRIMARY KEY, name VARCHAR(64)) REPLICATED;
            """;

    Differential differential;
    Connection lutra;
    Connection reference;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "batchit", SCHEMA);
        lutra = differential.lutra;
        reference = differential.reference;
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @BeforeEach
    void empty() throws SQLException {
        lutra.setAutoCommit(true);
        for (String t : List.of("users", "items", "country")) {
            for (Connection c : List.of(lutra, reference)) { // some tests write through Lutra alone
                try (var st = c.createStatement()) {
                    st.executeUpdate("DELETE FROM " + t);
                }
            }
        }
    }

    /** Runs the same prepared batch on both sides; the update counts must be equal. */
    private int[] bothPrepared(String sql, List<Object[]> entries) throws SQLException {
        int[] expected = preparedBatch(reference, sql, entries);
        int[] actual = preparedBatch(lutra, sql, entries);
        assertArrayEquals(expected, actual, sql);
        return actual;
    }

    private static int[] preparedBatch(Connection c, String sql, List<Object[]> entries) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            for (Object[] e : entries) {
                for (int i = 0; i < e.length; i++) ps.setObject(i + 1, e[i]);
                ps.addBatch();
            }
            return ps.executeBatch();
        }
    }

    private void sameRows(String sql) throws SQLException {
        assertEquals(rows(reference, sql), rows(lutra, sql), sql);
    }

    private static List<List<Object>> rows(Connection c, String sql) throws SQLException {
        var out = new ArrayList<List<Object>>();
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            while (rs.next()) {
                var row = new ArrayList<Object>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) row.add(rs.getObject(i));
                out.add(row);
            }
        }
        return out;
    }

    private static List<Object[]> users(int from, int to) {
        var out = new ArrayList<Object[]>();
        for (int i = from; i <= to; i++) out.add(new Object[] {i, "user" + i});
        return out;
    }

    @Test
    void preparedInsertsLandWhereSingleInsertsWould() throws SQLException {
        var stats = differential.router.server.stats();
        long statementsBefore = stats.singlePartition() + stats.multiPartition();
        int[] counts = bothPrepared("INSERT INTO users (id, name) VALUES (?, ?)", users(1, 2500));
        assertEquals(3, stats.singlePartition() + stats.multiPartition() - statementsBefore, "three multi-row INSERTs: 1000, 1000 and 500 rows");
        assertEquals(2500, counts.length);
        for (int c : counts) assertEquals(1, c);
        sameRows("SELECT id, name, karma FROM users ORDER BY id");
        // the lookup table learned every new row's partition: a point read goes to one partition and finds it
        try (var ps = lutra.prepareStatement("SELECT name FROM users WHERE id = ?")) {
            ps.setInt(1, 1777);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals("user1777", rs.getString(1));
            }
        }
        for (int p = 0; p < 4; p++) {
            try (var c = differential.router.partition(p); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM users")) {
                rs.next();
                assertTrue(rs.getInt(1) > 400, "rows spread over the partitions: p" + p + " has " + rs.getInt(1));
            }
        }
        // literals in the text, parameters for the rest; and a replicated table
        bothPrepared("INSERT INTO items (id, body, n) VALUES (?, 'fixed', ?)", List.of(new Object[] {1L, 10}, new Object[] {2L, 20}, new Object[] {3L, null}));
        bothPrepared("INSERT INTO country VALUES (?, ?)", List.of(new Object[] {"fr", "France"}, new Object[] {"de", "Germany"}));
        sameRows("SELECT * FROM items ORDER BY id");
        sameRows("SELECT * FROM country ORDER BY code");
    }

    @Test
    void otherStatementsCountAsConnectorJCountsThem() throws SQLException {
        bothPrepared("INSERT INTO users (id, name) VALUES (?, ?)", users(1, 20));
        bothPrepared("UPDATE users SET karma = karma + ? WHERE id <= ?", List.of(new Object[] {1, 5}, new Object[] {2, 10}, new Object[] {3, 0}));
        bothPrepared("INSERT INTO users (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE karma = karma + 10",
                List.of(new Object[] {3, "x"}, new Object[] {30, "new"}, new Object[] {4, "y"}));
        bothPrepared("INSERT IGNORE INTO users (id, name) VALUES (?, ?)", List.of(new Object[] {40, "a"}, new Object[] {41, "b"}));
        bothPrepared("DELETE FROM users WHERE id = ?", List.of(new Object[] {7}, new Object[] {999}, new Object[] {8}));
        sameRows("SELECT id, name, karma FROM users ORDER BY id");
        for (Connection c : List.of(reference, lutra)) {
            try (var st = c.createStatement()) {
                st.addBatch("UPDATE users SET karma = 0 WHERE id IN (1, 2, 3)");
                st.addBatch("INSERT INTO users (id, name) VALUES (100, 'hundred'), (101, 'hundred and one')");
                st.addBatch("DELETE FROM users WHERE id > 20");
                st.addBatch("UPDATE users SET name = 'nobody' WHERE id = 12345");
                assertArrayEquals(new int[] {3, 2, 5, 0}, st.executeBatch(), c.getClass().getName());
            }
        }
        sameRows("SELECT id, name, karma FROM users ORDER BY id");
    }

    @Test
    void aFailureReportsTheCountsSoFarAndKeepsWhatWasDone() throws SQLException {
        differential.both("INSERT INTO users (id, name) VALUES (1500, 'taken')");
        var e = assertThrows(BatchUpdateException.class, () -> preparedBatch(lutra, "INSERT INTO users (id, name) VALUES (?, ?)", users(1, 2500)));
        assertEquals("23000", e.getSQLState(), e.getMessage());
        assertEquals(1062, e.getErrorCode());
        // entries 1..1000 ran as one group and committed; the group of entries 1001..2000 failed as a whole
        assertEquals(1000, e.getUpdateCounts().length, e.getMessage());
        assertTrue(e.getMessage().contains("batch entries 1001 to 2000"), e.getMessage());
        assertEquals(List.of(List.of(1001L)), rows(lutra, "SELECT COUNT(*) FROM users"));
        assertEquals(List.of(List.of(1000L)), rows(lutra, "SELECT COUNT(*) FROM users WHERE id <= 1000"));

        // entries run one by one stop at the failing one, as Connector/J does
        var statements = List.of("UPDATE users SET karma = 1 WHERE id = 1", "INSERT INTO users (id, name) VALUES (2, 'dup')",
                "UPDATE users SET karma = 1 WHERE id = 3");
        var ours = assertThrows(BatchUpdateException.class, () -> statementBatch(lutra, statements));
        assertArrayEquals(new int[] {1}, ours.getUpdateCounts());
        assertEquals(List.of(List.of(1)), rows(lutra, "SELECT karma FROM users WHERE id = 1"));
        assertEquals(List.of(List.of(0)), rows(lutra, "SELECT karma FROM users WHERE id = 3"));
        var select = assertThrows(BatchUpdateException.class, () -> statementBatch(lutra, List.of("SELECT * FROM users")));
        assertTrue(select.getMessage().contains("result set"), select.getMessage());
    }

    private static int[] statementBatch(Connection c, List<String> sqls) throws SQLException {
        try (var st = c.createStatement()) {
            for (String s : sqls) st.addBatch(s);
            return st.executeBatch();
        }
    }

    @Test
    void insideATransactionTheBatchIsPartOfIt() throws SQLException {
        lutra.setAutoCommit(false);
        preparedBatch(lutra, "INSERT INTO users (id, name) VALUES (?, ?)", users(1, 300));
        lutra.rollback();
        assertEquals(List.of(List.of(0L)), rows(lutra, "SELECT COUNT(*) FROM users"));
        preparedBatch(lutra, "INSERT INTO users (id, name) VALUES (?, ?)", users(1, 300));
        lutra.commit();
        assertEquals(List.of(List.of(300L)), rows(lutra, "SELECT COUNT(*) FROM users"));
        lutra.commit();

        // a failing batch rolls back the whole transaction, the statements before it included
        try (var st = lutra.createStatement()) {
            st.executeUpdate("UPDATE users SET karma = 5 WHERE id = 1");
        }
        var e = assertThrows(BatchUpdateException.class, () -> preparedBatch(lutra, "INSERT INTO users (id, name) VALUES (?, ?)", users(290, 310)));
        assertEquals("23000", e.getSQLState());
        assertThrows(SQLException.class, () -> lutra.commit());
        lutra.rollback();
        lutra.setAutoCommit(true);
        assertEquals(List.of(List.of(300L, 0)), rows(lutra, "SELECT COUNT(*), MAX(karma) FROM users"));
    }

    @Test
    void aBatchLargerThanAFrameIsSentInPieces() throws SQLException {
        // the test router's frame limit is 1 MiB: 2,000 entries of 1,500 characters make several requests
        var entries = new ArrayList<Object[]>();
        for (long i = 1; i <= 2000; i++) entries.add(new Object[] {i, "x".repeat(1500), (int) i});
        int[] counts = bothPrepared("INSERT INTO items (id, body, n) VALUES (?, ?, ?)", entries);
        assertEquals(2000, counts.length);
        sameRows("SELECT COUNT(*), SUM(n), SUM(LENGTH(body)) FROM items");
        assertEquals(Statement.SUCCESS_NO_INFO, -2); // the count an INSERT IGNORE group gives when it skipped rows
    }
}
