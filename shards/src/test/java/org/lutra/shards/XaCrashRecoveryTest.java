package org.lutra.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the router's XA coordinator relies on from a shard: a branch that reached XA PREPARE
 * survives its connection and a crash of the server (kill -9, restart on the same data dir),
 * still holds its locks, and any connection can then finish it by its xid. Runs on a shard of
 * its own, since it kills it.
 */
class XaCrashRecoveryTest {
    private static EmbeddedShards shards;

    @BeforeAll
    static void start() throws Exception {
        shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(1).withWorkDir(Path.of("target", "lutra-shards-test")));
    }

    @AfterAll
    static void stop() {
        if (shards != null) shards.close();
    }

    @Test
    void preparedBranchSurvivesKillAndRestart() throws Exception {
        String db = tableWithCommittedRow("xa_crash");
        Connection owner = shards.connect(0, db);
        prepare(owner, "x1", "INSERT INTO t VALUES (2, 'prepared')");
        String urlBefore = shards.url(0);

        shards.kill(0);
        assertThrows(SQLException.class, () -> owner.createStatement().execute("SELECT 1"), "the server is gone");
        shards.restart(0);

        assertEquals(urlBefore, shards.url(0), "same port after restart");
        try (Connection c = shards.connect(0, db)) {
            assertEquals(List.of("x1"), xaRecover(c), "the prepared branch survived the crash");
            assertEquals(List.of("1:committed"), rows(c), "committed row kept, prepared row not yet visible");
            c.createStatement().execute("SET SESSION innodb_lock_wait_timeout = 1");
            var locked = assertThrows(SQLException.class, () -> c.createStatement().executeQuery("SELECT * FROM t WHERE id = 2 FOR UPDATE"));
            assertEquals(1205, locked.getErrorCode(), "the recovered branch still holds its row lock: " + locked.getMessage());

            c.createStatement().execute("XA COMMIT 'x1'");
            assertEquals(List.of(), xaRecover(c));
            assertEquals(List.of("1:committed", "2:prepared"), rows(c));
        }
        owner.close();
        shards.dropDatabase(db);
    }

    @Test
    void preparedBranchOutlivesItsConnectionAndOnlyThenBelongsToAnyone() throws Exception {
        String db = tableWithCommittedRow("xa_detach");
        try (Connection other = shards.connect(0, db)) {
            try (Connection owner = shards.connect(0, db)) {
                prepare(owner, "x2", "INSERT INTO t VALUES (3, 'prepared')");
                // While its connection lives the branch is that connection's: others get XAER_NOTA.
                var e = assertThrows(SQLException.class, () -> other.createStatement().execute("XA ROLLBACK 'x2'"));
                assertEquals(1397, e.getErrorCode(), e.getMessage());
            }
            // Disconnecting does not roll a prepared branch back (MariaDB >= 10.5): it waits, detached.
            assertEquals(List.of("x2"), xaRecover(other));
            finishDetached(other, "XA ROLLBACK 'x2'");
            assertEquals(List.of(), xaRecover(other));
            assertEquals(List.of("1:committed"), rows(other));
        }
        shards.dropDatabase(db);
    }

    @Test
    void closeStopsARestartedServerAndDeletesItsData() throws Exception {
        var own = EmbeddedShards.start(EmbeddedShards.Options.defaults(1).withWorkDir(Path.of("target", "lutra-shards-test")));
        Path work = own.workDir();
        long pid;
        try (own) {
            own.kill(0);
            own.kill(0); // twice is harmless
            own.restart(0);
            own.restart(0); // a running shard is shut down and started again
            try (Connection c = own.connect(0)) {
                assertTrue(c.isValid(2));
            }
            pid = Long.parseLong(Files.readString(work.resolve("shard-0/mariadbd.pid")).trim());
        }
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the restarted server is stopped by close");
        assertFalse(Files.exists(work));
        assertThrows(IllegalStateException.class, () -> own.kill(0));
        assertThrows(IllegalStateException.class, () -> own.restart(0));
    }

    @Test
    void externalShardsRefuseToKillWithAReason() {
        Shards external = Shards.external(List.of("jdbc:mysql://db1:3306/"), "root", "");
        assertFalse(external.canKill());
        var e = assertThrows(UnsupportedOperationException.class, () -> external.kill(0));
        assertTrue(e.getMessage().contains("started elsewhere"), e.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> external.restart(0));
    }

    private static String tableWithCommittedRow(String prefix) throws SQLException {
        String db = shards.createDatabase(prefix);
        try (Connection c = shards.connect(0, db); var st = c.createStatement()) {
            st.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB");
            st.execute("INSERT INTO t VALUES (1, 'committed')");
        }
        return db;
    }

    private static void prepare(Connection c, String xid, String sql) throws SQLException {
        try (var st = c.createStatement()) {
            st.execute("XA START '" + xid + "'");
            st.execute(sql);
            st.execute("XA END '" + xid + "'");
            st.execute("XA PREPARE '" + xid + "'");
        }
    }

    /**
     * The server lets go of a closed connection's branch asynchronously to the client's close;
     * until then the xid is still "someone else's" (1397), so retry for a while.
     */
    private static void finishDetached(Connection c, String statement) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (var st = c.createStatement()) {
                st.execute(statement);
                return;
            } catch (SQLException e) {
                if (e.getErrorCode() != 1397 || System.nanoTime() > deadline) throw e;
                Thread.sleep(20);
            }
        }
    }

    private static List<String> xaRecover(Connection c) throws SQLException {
        var xids = new ArrayList<String>();
        try (var rs = c.createStatement().executeQuery("XA RECOVER")) {
            while (rs.next()) xids.add(rs.getString("data"));
        }
        return xids;
    }

    private static List<String> rows(Connection c) throws SQLException {
        var rows = new ArrayList<String>();
        try (var rs = c.createStatement().executeQuery("SELECT id, v FROM t ORDER BY id")) {
            while (rs.next()) rows.add(rs.getInt(1) + ":" + rs.getString(2));
        }
        return rows;
    }
}
