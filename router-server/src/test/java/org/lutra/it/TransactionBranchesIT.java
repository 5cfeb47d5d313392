package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * How a transaction over several partitions opens and ends its branches, read in the shards' own general logs, through
 * the MySQL listener (as sysbench and every MySQL client reach it): a transaction declared READ ONLY runs plain
 * transactions on every partition (no XA; no BEGIN either: the first statement starts each, as on one MariaDB with
 * auto-commit off), and each keeps its snapshot; one that only read commits its
 * XA branches with XA END and XA COMMIT .. ONE PHASE (one round trip: the pair is pipelined), never a prepare; one that
 * wrote on two partitions prepares the other writer with XA END and XA PREPARE and commits both.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionBranchesIT {
    static final String SCHEMA = "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);";
    static final int ROWS = 40;

    TestRouter router;
    GeneralLog log;
    /** Per partition, one id placed there. */
    final int[] idOn = new int[4];

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "txbranch", SCHEMA);
        log = new GeneralLog(shards);
        try (Connection lutra = router.connect(); var st = lutra.createStatement()) {
            for (int id = 1; id <= ROWS; id++) st.executeUpdate("INSERT INTO t VALUES (" + id + ", " + id + ")");
        }
        for (int p = 0; p < 4; p++) {
            try (Connection c = router.partition(p); var st = c.createStatement(); var rs = st.executeQuery("SELECT MIN(id) FROM t")) {
                assertTrue(rs.next());
                idOn[p] = rs.getInt(1);
                assertTrue(idOn[p] > 0, "partition " + p + " holds rows");
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (router != null) router.close();
    }

    private static long sum(Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT SUM(v) FROM t")) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    /** The statements of {@code sent} on shard {@code server} (partition i on shard i), without the router's reads of its own tables. */
    private static List<String> on(List<GeneralLog.Statement> sent, int server) {
        var out = new ArrayList<String>();
        for (var s : sent) if (s.server() == server) out.add(s.text().startsWith("XA ") ? s.text().replaceAll(" X'.*", "") : kind(s.text()));
        return out;
    }

    private static String kind(String sql) {
        if (sql.startsWith("SELECT SUM(v)")) return "sum";
        if (sql.startsWith("UPDATE")) return "update";
        return sql;
    }

    @Test
    void aReadOnlyTransactionRunsPlainBranchesThatKeepTheirSnapshots() throws Exception {
        try (Connection mysql = router.connectMysql("useServerPrepStmts=true"); Connection other = router.connect(); var st = mysql.createStatement()) {
            st.execute("START TRANSACTION READ ONLY");
            long[] first = new long[1];
            var opened = log.during(() -> first[0] = sum(mysql));
            // another client changes rows on two partitions and commits: the read-only transaction's snapshots do not see it
            try (var w = other.createStatement()) {
                w.executeUpdate("UPDATE t SET v = v + 100 WHERE id IN (" + idOn[1] + ", " + idOn[2] + ")");
            }
            long[] again = new long[1];
            var ended = log.during(() -> {
                again[0] = sum(mysql);
                var refused = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE t SET v = 0 WHERE id = " + idOn[3]));
                assertEquals(1792, refused.getErrorCode(), refused.getMessage());
                st.execute("COMMIT");
            });
            assertEquals(first[0], again[0], "each partition's snapshot is kept until COMMIT");
            assertEquals(first[0] + 200, sum(mysql), "after COMMIT a new transaction sees the other client's rows");
            for (int server = 0; server < 4; server++) {
                assertEquals(List.of("sum"), on(opened, server), "shard" + server + ": a plain transaction, no XA, no BEGIN: " + opened);
                assertEquals(List.of("sum", "COMMIT"), on(ended, server), "shard" + server + ": " + ended);
            }
        } finally {
            try (Connection c = router.connect(); var w = c.createStatement()) {
                w.executeUpdate("UPDATE t SET v = id");
            }
        }
    }

    @Test
    void aTransactionThatOnlyReadCommitsItsXaBranchesInOnePhase() throws Exception {
        try (Connection mysql = router.connectMysql("useServerPrepStmts=true"); var st = mysql.createStatement()) {
            sum(mysql); // warm: the plan and the connections
            var sent = log.during(() -> {
                st.execute("BEGIN");
                sum(mysql);
                st.execute("COMMIT");
            });
            int plain = 0;
            for (int server = 0; server < 4; server++) {
                var statements = on(sent, server);
                if (!statements.getFirst().equals("XA START")) {
                    plain++;
                    assertEquals(List.of("sum", "COMMIT"), statements, "the first partition's plain transaction, no BEGIN: " + sent);
                } else {
                    assertEquals(List.of("XA START", "sum", "XA END", "XA COMMIT"), statements, "shard" + server + ": " + sent);
                }
            }
            assertEquals(1, plain, sent.toString());
            assertTrue(sent.stream().filter(s -> s.text().startsWith("XA COMMIT")).allMatch(s -> s.text().endsWith(" ONE PHASE")), sent.toString());
        }
    }

    @Test
    void aTransactionThatWroteOnTwoPartitionsPreparesAndCommitsBoth() throws Exception {
        try (Connection mysql = router.connectMysql("useServerPrepStmts=true"); var st = mysql.createStatement()) {
            var sent = log.during(() -> {
                st.execute("BEGIN");
                st.executeUpdate("UPDATE t SET v = v + 1000 WHERE id = " + idOn[1]);
                st.executeUpdate("UPDATE t SET v = v + 1000 WHERE id = " + idOn[2]);
                st.execute("COMMIT");
            });
            assertEquals(List.of("update", "COMMIT"), on(sent, 1), "the coordinator (its decision row is the log's), no BEGIN: " + sent);
            assertEquals(List.of("XA START", "update", "XA END", "XA PREPARE", "XA COMMIT"), on(sent, 2), sent.toString());
            for (int p : new int[] {1, 2}) {
                try (Connection c = router.partition(p); var q = c.createStatement(); var rs = q.executeQuery("SELECT v FROM t WHERE id = " + idOn[p])) {
                    assertTrue(rs.next());
                    assertEquals(idOn[p] + 1000, rs.getInt(1), "committed on partition " + p);
                }
                try (Connection c = router.partition(p); var q = c.createStatement(); var rs = q.executeQuery("XA RECOVER")) {
                    assertFalse(rs.next(), "nothing left prepared on partition " + p);
                }
            }
        } finally {
            try (Connection c = router.connect(); var w = c.createStatement()) {
                w.executeUpdate("UPDATE t SET v = id");
            }
        }
    }
}
