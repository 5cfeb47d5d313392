package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

/**
 * setFetchSize streaming inside a transaction: a plain read streams from the pinned connections
 * (the shard is still sending while the client has its first rows), and a second statement of the
 * transaction while the first result set is open reads that result's rest into the router first,
 * so both answer right; past the bound the second statement (and a COMMIT) is refused and the transaction goes on.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionStreamingIT {
    static final String SCHEMA = """
            CREATE TABLE big (id BIGINT PRIMARY KEY, pad VARCHAR(1000) NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE small (id INT PRIMARY KEY, v INT NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final int PER_PARTITION = 25_000;
    static final int PAD = 800; // 25,000 x 800 bytes: 20 MB a partition, more than socket buffers and the 16 MB drain bound
    static final long ROWS = 4L * PER_PARTITION;

    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "txstreamit", SCHEMA);
        for (int p = 0; p < 4; p++) {
            // written on each partition directly, where hash(id) = id mod 4 puts them
            try (Connection c = router.partition(p); var st = c.createStatement()) {
                st.execute("SET SESSION max_recursive_iterations = 1000000");
                st.execute("INSERT INTO big (id, pad) WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < " + (PER_PARTITION - 1)
                        + ") SELECT n * 4 + " + p + ", REPEAT(CHAR(97 + n % 26), " + PAD + ") FROM s");
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (router != null) router.close();
    }

    @BeforeEach
    void small() throws SQLException {
        try (Connection c = router.connect(); var st = c.createStatement()) {
            st.execute("DELETE FROM small");
            st.execute("INSERT INTO small (id, v) VALUES (1, 10), (2, 20), (3, 30), (4, 40)");
        }
    }

    /** Statements of the big read still running on partition 0's server, seen past the router. */
    private int running(String marker) throws SQLException {
        try (Connection c = router.shards.connect(0); var st = c.createStatement();
             var rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + marker + "%' AND INFO NOT LIKE '%PROCESSLIST%'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aPlainReadStreamsFromThePinnedConnections() throws SQLException {
        try (Connection c = router.connect()) {
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.executeUpdate("UPDATE small SET v = v + 1 WHERE id = 1"); // the transaction holds its connections
                st.setFetchSize(100);
                try (var rs = st.executeQuery("SELECT id, pad, 'stream_a' AS marker FROM big")) {
                    for (int i = 0; i < 100; i++) assertTrue(rs.next());
                    assertTrue(running("stream_a") > 0, "partition 0's server is still sending when the client has its first rows");
                    long n = 100, sum = 0;
                    while (rs.next()) {
                        n++;
                        sum += rs.getLong(1);
                        assertEquals(PAD, rs.getString(2).length());
                    }
                    assertEquals(ROWS, n);
                    assertTrue(sum > 0);
                }
                assertEquals(0, running("stream_a"));
                try (var rs = st.executeQuery("SELECT v FROM small WHERE id = 1")) {
                    rs.next();
                    assertEquals(11, rs.getInt(1), "the transaction's own write, on the same connections");
                }
            }
            c.rollback();
        }
    }

    @Test
    void aSecondStatementWhileAResultIsOpenAnswersRightAndSoDoesTheFirst() throws SQLException {
        try (Connection c = router.connect()) {
            c.setAutoCommit(false);
            try (var first = c.createStatement(); var second = c.createStatement()) {
                first.setFetchSize(50);
                try (var rs = first.executeQuery("SELECT id FROM big ORDER BY id")) {
                    for (long expected = 0; expected < 10; expected++) {
                        assertTrue(rs.next());
                        assertEquals(expected, rs.getLong(1));
                    }
                    // uses every partition's pinned connection: the open stream's rest is read into the router first
                    assertEquals(4, second.executeUpdate("UPDATE small SET v = v + 1 WHERE id IN (1, 2, 3, 4)"));
                    try (var sum = second.executeQuery("SELECT SUM(v), COUNT(*) FROM small")) {
                        sum.next();
                        assertEquals(104, sum.getLong(1));
                    }
                    for (long expected = 10; expected < ROWS; expected++) {
                        assertTrue(rs.next(), "row " + expected);
                        assertEquals(expected, rs.getLong(1));
                    }
                    assertFalse(rs.next());
                }
            }
            c.rollback();
        }
        try (Connection c = router.connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT SUM(v) FROM small")) {
            rs.next();
            assertEquals(100, rs.getLong(1), "rolled back");
        }
    }

    @Test
    void pastTheBoundTheSecondStatementIsRefusedAndTheTransactionGoesOn() throws SQLException {
        try (Connection c = router.connect()) {
            c.setAutoCommit(false);
            try (var first = c.createStatement(); var second = c.createStatement()) {
                second.executeUpdate("UPDATE small SET v = v + 5 WHERE id = 1");
                first.setFetchSize(10);
                try (var rs = first.executeQuery("SELECT id, pad FROM big")) {
                    assertTrue(rs.next());
                    var e = assertThrows(SQLException.class, () -> second.executeQuery("SELECT v FROM small WHERE id = 1"));
                    assertTrue(e.getMessage().contains("still open") && e.getMessage().contains("MB unread"), e.getMessage());
                    // Connection.commit() closes open result sets first (CLOSE_CURSORS_AT_COMMIT); a COMMIT statement does not
                    var refusedCommit = assertThrows(SQLException.class, () -> second.execute("COMMIT"));
                    assertTrue(refusedCommit.getMessage().contains("MB unread"), refusedCommit.getMessage());
                    long n = 1;
                    while (rs.next()) n++;
                    assertEquals(ROWS, n, "the open result loses no row to the refused statement");
                }
                try (var rs = second.executeQuery("SELECT v FROM small WHERE id = 1")) {
                    rs.next();
                    assertEquals(15, rs.getInt(1), "the transaction went on");
                }
            }
            c.commit();
        }
        try (Connection c = router.connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT v FROM small WHERE id = 1")) {
            rs.next();
            assertEquals(15, rs.getInt(1));
        }
    }
}
