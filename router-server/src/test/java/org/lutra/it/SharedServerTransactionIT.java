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

import static org.junit.jupiter.api.Assertions.*;

/**
 * Four partitions on two servers (p0, p2 on shard 0; p1, p3 on shard 1): partitions sharing a
 * server are separate branches of a transaction, in their own databases there.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedServerTransactionIT {
    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "sharedtxn", TransactionIT.SCHEMA, new RouterConfig.Transactions("shared", 2, 1, 5), 2);
        try (var c = router.connect()) {
            c.createStatement().executeUpdate("INSERT INTO accounts (id, balance) VALUES (1, 100), (101, 100), (201, 100), (301, 100)");
        }
    }

    @AfterAll
    void stop() throws Exception {
        router.close();
    }

    @Test
    void partitionsOnOneServerCommitAndRollBackTogether() throws SQLException {
        long twoPhase = router.server.transactions().stats().twoPhaseCommits.sum();
        try (var c = router.connect()) {
            c.setAutoCommit(false);
            move(c, 1, 201, 10);   // p0 -> p2, both on shard 0
            move(c, 101, 301, 5);  // p1 -> p3, both on shard 1
            c.commit();
            move(c, 1, 301, 50);
            c.rollback();
        }
        assertEquals(twoPhase + 1, router.server.transactions().stats().twoPhaseCommits.sum());
        assertEquals(90, direct(0, 1));
        assertEquals(95, direct(1, 101));
        assertEquals(110, direct(2, 201));
        assertEquals(105, direct(3, 301));
        assertEquals(0, router.server.transactions().recovery().pass(), "nothing left prepared on either server");
    }

    private static void move(Connection c, int from, int to, int amount) throws SQLException {
        try (var ps = c.prepareStatement("UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
            ps.setInt(1, -amount);
            ps.setInt(2, from);
            assertEquals(1, ps.executeUpdate());
            ps.setInt(1, amount);
            ps.setInt(2, to);
            assertEquals(1, ps.executeUpdate());
        }
    }

    private long direct(int partition, int id) throws SQLException {
        try (var c = router.partition(partition); var rs = c.createStatement().executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
