package org.lutra.it;

import com.mysql.cj.jdbc.JdbcConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MySQL listener's session-level commands, each run with Connector/J at the listener and the same at one plain
 * MariaDB holding the same rows, and compared: cursors fetched in several COM_STMT_FETCH steps, multi-statement text
 * with several results, the autocommit and in-transaction status flags after SQL changes them, COM_INIT_DB,
 * COM_RESET_CONNECTION, KILL QUERY / KILL CONNECTION, Statement.cancel() and query timeouts, and a transaction over
 * two partitions committed and rolled back.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlSessionCommandsIT {
    static final int ROWS = 2500;
    Differential differential;
    String referenceUrl;
    String referenceDatabase;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "mysqlsess", "CREATE TABLE t (id INT PRIMARY KEY, v INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n");
        var values = new ArrayList<String>();
        for (int i = 1; i <= ROWS; i++) values.add("(" + i + ", " + (i * 7 % 1000) + ")");
        differential.both("INSERT INTO t VALUES " + String.join(", ", values));
        try (var st = differential.reference.createStatement(); var rs = st.executeQuery("SELECT DATABASE()")) {
            rs.next();
            referenceDatabase = rs.getString(1);
            referenceUrl = shards.url(0, referenceDatabase);
        }
    }

    @AfterAll
    void stop() throws Exception {
        differential.close();
    }

    interface Script {
        void run(Side side, List<String> out) throws Exception;
    }

    /** One side of the comparison: how to open a connection to it, and its database's name. */
    record Side(String name, Opener opener, String database) {
        Connection open(String options) throws SQLException {
            return opener.open(options);
        }
    }

    interface Opener {
        Connection open(String options) throws SQLException;
    }

    private Side lutra() {
        return new Side("lutra", o -> differential.router.connectMysql(o), differential.router.database);
    }

    private Side reference() {
        return new Side("reference", o -> {
            var shards = differential.router.shards;
            return DriverManager.getConnection(referenceUrl + (o.isEmpty() ? "" : (referenceUrl.contains("?") ? "&" : "?") + o), shards.user(),
                    shards.password());
        }, referenceDatabase);
    }

    /** Runs {@code script} against the listener and against one MariaDB; both must tell the same story. */
    private List<String> same(Script script) throws Exception {
        var viaLutra = new ArrayList<String>();
        var viaReference = new ArrayList<String>();
        script.run(lutra(), viaLutra);
        script.run(reference(), viaReference);
        assertEquals(viaReference, viaLutra);
        return viaLutra;
    }

    private static String error(SQLException e) {
        return "error " + e.getErrorCode() + " " + e.getSQLState();
    }

    private static List<String> rows(ResultSet rs) throws SQLException {
        var out = new ArrayList<String>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            var row = new StringBuilder();
            for (int i = 1; i <= n; i++) row.append(i > 1 ? "|" : "").append(rs.getString(i));
            out.add(row.toString());
        }
        return out;
    }

    @Test
    void aCursorIsFetchedInSeveralSteps() throws Exception {
        var out = same((side, o) -> {
            try (var c = side.open("useCursorFetch=true&defaultFetchSize=100");
                 var ps = c.prepareStatement("SELECT id, v FROM t WHERE id > ? ORDER BY id")) {
                ps.setInt(1, 10);
                try (var rs = ps.executeQuery()) {
                    var rows = rows(rs);
                    o.add("rows " + rows.size());
                    o.addAll(rows);
                }
                // a second cursor on the same statement, left half read, then the statement is executed again
                ps.setInt(1, ROWS - 250);
                try (var rs = ps.executeQuery()) {
                    for (int i = 0; i < 120 && rs.next(); i++) o.add("half " + rs.getInt(1));
                }
                ps.setInt(1, ROWS - 5);
                try (var rs = ps.executeQuery()) {
                    o.addAll(rows(rs));
                }
            }
        });
        assertEquals("rows " + (ROWS - 10), out.get(0));
    }

    @Test
    void multiStatementTextGivesEachResult() throws Exception {
        same((side, o) -> {
            try (var c = side.open("allowMultiQueries=true"); var st = c.createStatement()) {
                boolean rs = st.execute("SELECT COUNT(*) FROM t; UPDATE t SET v = v + 0 WHERE id <= 3; SELECT id FROM t WHERE id IN (4, 2) ORDER BY id;"
                        + " INSERT INTO t VALUES (9001, 1), (9002, 2); DELETE FROM t WHERE id > 9000");
                while (true) {
                    if (rs) {
                        try (var r = st.getResultSet()) {
                            o.add("rows " + rows(r));
                        }
                    } else if (st.getUpdateCount() >= 0) {
                        o.add("count " + st.getUpdateCount());
                    } else {
                        break;
                    }
                    rs = st.getMoreResults();
                }
                try {
                    st.execute("SELECT 1; SELECT nope FROM t; SELECT 2");
                    o.add("first " + rows(st.getResultSet()));
                    o.add("more " + st.getMoreResults());
                } catch (SQLException e) {
                    o.add(error(e));
                }
            }
        });
    }

    @Test
    void statusFlagsFollowTheSession() throws Exception {
        same((side, o) -> {
            try (var c = side.open(""); var st = c.createStatement()) {
                var server = ((JdbcConnection) c).getSession().getServerSession();
                o.add("start autocommit " + c.getAutoCommit() + " in transaction " + server.inTransactionOnServer());
                st.execute("SET autocommit = 0");
                o.add("after SET autocommit = 0: " + c.getAutoCommit() + " in transaction " + server.inTransactionOnServer());
                st.executeQuery("SELECT v FROM t WHERE id = 1").close();
                o.add("after a read: in transaction " + server.inTransactionOnServer());
                st.execute("COMMIT");
                o.add("after COMMIT: in transaction " + server.inTransactionOnServer());
                st.execute("SET autocommit = 1");
                o.add("after SET autocommit = 1: " + c.getAutoCommit());
                st.execute("BEGIN");
                o.add("after BEGIN: in transaction " + server.inTransactionOnServer() + " autocommit " + c.getAutoCommit());
                st.executeUpdate("UPDATE t SET v = v WHERE id = 2");
                st.execute("ROLLBACK");
                o.add("after ROLLBACK: in transaction " + server.inTransactionOnServer());
                st.execute("START TRANSACTION");
                o.add("after START TRANSACTION: in transaction " + server.inTransactionOnServer());
                st.execute("SET autocommit = 1"); // commits the open transaction, as MySQL does
                o.add("after SET autocommit = 1 in a transaction: in transaction " + server.inTransactionOnServer());
            }
        });
    }

    @Test
    void initDbAndResetConnection() throws Exception {
        same((side, o) -> {
            try (var c = side.open(""); var st = c.createStatement()) {
                c.setCatalog(side.database());
                o.add("catalog is the database " + side.database().equals(c.getCatalog()));
                try {
                    c.setCatalog("no_such_database_here");
                    o.add("setCatalog accepted");
                } catch (SQLException e) {
                    o.add("setCatalog " + error(e));
                }
                o.add("rows " + rows(st.executeQuery("SELECT COUNT(*) FROM t")));
                st.execute("SET @x = 42");
                c.setAutoCommit(false);
                st.executeUpdate("INSERT INTO t VALUES (8001, 1)");
                ((JdbcConnection) c).resetServerState(); // COM_RESET_CONNECTION
                var server = ((JdbcConnection) c).getSession().getServerSession();
                o.add("after reset: in transaction " + server.inTransactionOnServer());
                try (var st2 = c.createStatement()) {
                    o.add("variable " + rows(st2.executeQuery("SELECT @x")));
                    o.add("uncommitted row " + rows(st2.executeQuery("SELECT COUNT(*) FROM t WHERE id = 8001")));
                }
            }
            try (var c = side.open(""); var st = c.createStatement()) {
                o.add("from another session " + rows(st.executeQuery("SELECT COUNT(*) FROM t WHERE id = 8001")));
            }
        });
    }

    /** Runs {@code sql} on {@code c} in the background; its outcome as text. */
    private static CompletableFuture<String> inBackground(Connection c, Statement st, String sql) {
        return CompletableFuture.supplyAsync(() -> {
            try (var rs = st.executeQuery(sql)) {
                return "rows " + rows(rs);
            } catch (SQLException e) {
                return error(e) + " " + e.getClass().getSimpleName();
            }
        });
    }

    /** Sends {@code kill} until {@code running} is done: a KILL QUERY that came before the statement started does nothing. */
    private static void killUntilDone(CompletableFuture<String> running, KillAction kill) throws Exception {
        for (int i = 0; i < 300 && !running.isDone(); i++) {
            Thread.sleep(100);
            kill.run();
        }
        assertTrue(running.isDone(), "the statement ended after it was killed");
    }

    interface KillAction {
        void run() throws Exception;
    }

    @Test
    void killQueryAndCancelEndTheStatementOnly() throws Exception {
        same((side, o) -> {
            var victim = side.open("");
            try (var killer = side.open("")) {
                long id = ((JdbcConnection) victim).getId();
                var st = victim.createStatement();
                var running = inBackground(victim, st, "SELECT SLEEP(20)");
                killUntilDone(running, () -> killer.createStatement().execute("KILL QUERY " + id));
                o.add("KILL QUERY: " + running.get());
                o.add("the session goes on: " + rows(victim.createStatement().executeQuery("SELECT COUNT(*) FROM t WHERE id <= 10")));

                var cancelled = inBackground(victim, st, "SELECT SLEEP(20)");
                killUntilDone(cancelled, st::cancel); // Connector/J: KILL QUERY from a connection of its own
                // Connector/J reports a cancel as 1317 (the server's interruption) or as its own MySQLStatementCancelledException
                // (error 0), as its two threads race (see cancelReportsTheInterruptionAsMariaDbDoes)
                o.add("cancel: " + cancelled.get().replaceFirst("^error 1317 70100 MySQLQueryInterruptedException$|^error 0 null MySQLStatementCancelledException$",
                        "cancelled"));
                o.add("the session goes on: " + rows(victim.createStatement().executeQuery("SELECT COUNT(*) FROM t WHERE id <= 20")));

                var timed = victim.createStatement();
                timed.setQueryTimeout(1);
                try {
                    o.add("timeout: " + rows(timed.executeQuery("SELECT SLEEP(20)")));
                } catch (SQLException e) {
                    o.add("timeout: " + error(e) + " " + e.getClass().getSimpleName());
                }
                o.add("the session goes on: " + rows(victim.createStatement().executeQuery("SELECT COUNT(*) FROM t WHERE id <= 30")));
            }
        });
    }

    /**
     * Connector/J's cancel() sends KILL QUERY on a connection of its own and marks the statement cancelled once the KILL is
     * answered; an error the victim reads after that mark is reported as its own MySQLStatementCancelledException (error 0),
     * one it reads before as the server's 1317 / 70100 (MySQLQueryInterruptedException). MariaDB answers the KILL while
     * the stopped statement's error may still be on its way, so against it either comes out as the client's two threads
     * race (here: 1317 in about half the runs). The listener answers the KILL only after that error is written (checked on
     * the wire below), which is MariaDB's order when its victim is the faster; the client's threads still race. Each
     * cancel() is sent once the statement runs on a shard: a cancel() before it starts marks the statement all the same.
     */
    @Test
    void cancelReportsTheInterruptionAsMariaDbDoes() throws Exception {
        for (var side : List.of(lutra(), reference())) {
            var outcomes = new java.util.TreeMap<String, Integer>();
            try (var victim = side.open("")) {
                for (int i = 0; i < 6; i++) {
                    var st = victim.createStatement();
                    String marker = "SELECT SLEEP(20) AS cancel_" + side.name() + "_" + i;
                    var cancelled = inBackground(victim, st, marker);
                    awaitOnAShard(marker);
                    st.cancel();
                    String outcome = cancelled.get();
                    assertTrue(outcome.matches("error 1317 70100 MySQLQueryInterruptedException|error 0 null MySQLStatementCancelledException"), outcome);
                    outcomes.merge(outcome, 1, Integer::sum);
                    assertEquals("[1]", rows(victim.createStatement().executeQuery("SELECT 1")).toString(), "the session goes on");
                }
            }
            System.out.println("MysqlSessionCommandsIT cancel() through " + side.name() + ": " + outcomes);
        }
    }

    /**
     * COM_STMT_PREPARE alone changes nothing and takes nothing, as on MariaDB (which runs nothing at prepare time): the
     * listener learns a prepared SELECT's columns by running it once with NULL parameters in a session of its own, but not
     * a statement whose run could write, lock or wait. A stored function that writes (created on every partition behind
     * the router, which refuses routines), a named lock, a sequence, a locking read and SLEEP are prepared with Connector/J's
     * server-side statements and closed unexecuted; then nothing was written, the lock is free, the sequence unused.
     */
    @Test
    void preparingAStatementRunsNothingThatWritesLocksOrWaits() throws Exception {
        String effects = "CREATE TABLE IF NOT EXISTS prep_effects (n INT)";
        String function = "CREATE FUNCTION IF NOT EXISTS prep_bump(x INT) RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO prep_effects VALUES (1); RETURN 1; END";
        var onShards = new ArrayList<Connection>();
        for (int p = 0; p < differential.router.shards.size(); p++) onShards.add(differential.router.partition(p));
        onShards.add(differential.newReference());
        try {
            for (var c : onShards) {
                try (var st = c.createStatement()) {
                    st.execute(effects);
                    st.execute(function);
                }
            }
            for (var c : List.of(differential.lutra, differential.reference)) {
                try (var st = c.createStatement()) {
                    st.execute("CREATE SEQUENCE IF NOT EXISTS prep_seq");
                }
            }
            same((side, o) -> {
                try (var c = side.open("useServerPrepStmts=true"); var other = side.open("")) {
                    for (String sql : List.of("SELECT prep_bump(?) AS b", "SELECT `prep_bump`(?) AS b", "SELECT prep_bump(1) AS b, id FROM t WHERE id = ?",
                            "SELECT GET_LOCK('lutra_prep_lock', 0) AS g, ? AS p", "SELECT NEXTVAL(prep_seq) AS n, ? AS p",
                            "SELECT v FROM t WHERE id = 7 OR ? IS NULL FOR UPDATE", "SELECT SLEEP(1) AS s, ? AS p")) {
                        try (var ps = c.prepareStatement(sql)) {
                            o.add("prepared " + sql + ": " + ps.getParameterMetaData().getParameterCount() + " parameter(s)");
                        }
                    }
                    o.add("the named lock is free: " + rows(other.createStatement().executeQuery("SELECT IS_FREE_LOCK('lutra_prep_lock')")));
                    o.add("the sequence's next value: " + rows(other.createStatement().executeQuery("SELECT NEXTVAL(prep_seq)")));
                    try (var ps = c.prepareStatement("SELECT prep_bump(?) AS b")) {
                        ps.setInt(1, 1);
                        o.add("executed: " + rows(ps.executeQuery()));
                    }
                }
                int written = 0;
                for (var c : side.name().equals("lutra") ? onShards.subList(0, onShards.size() - 1) : onShards.subList(onShards.size() - 1, onShards.size())) {
                    written += Integer.parseInt(rows(c.createStatement().executeQuery("SELECT COUNT(*) FROM prep_effects")).getFirst());
                }
                o.add("rows the function wrote: " + written);
            });
        } finally {
            for (var c : onShards) c.close();
        }
    }

    /** Waits until a shard runs {@code sql} (the reference's own statement, or the router's for the listener's session). */
    private void awaitOnAShard(String sql) throws Exception {
        var shards = differential.router.shards;
        for (int i = 0; i < 300; i++) {
            for (int s = 0; s < shards.size(); s++) {
                try (var c = shards.connect(s); var st = c.createStatement();
                     var rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + sql.substring(sql.indexOf("cancel_")) + "%'"
                             + " AND INFO NOT LIKE '%PROCESSLIST%'")) {
                    rs.next();
                    if (rs.getInt(1) > 0) return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError(sql + " never ran on a shard");
    }

    /**
     * The order behind the outcome above, on the wire: the listener answers a KILL QUERY only after the error of the
     * statement it stopped is written, so that error is in the victim's socket by the time the killer reads the OK.
     * A KILL that comes before the statement started stops nothing (and the statement then runs on): sent again.
     */
    @Test
    void aKillQueryIsAnsweredAfterTheErrorOfTheStatementItStopped() throws Exception {
        for (int round = 0; round < 5; round++) {
            try (var victim = new RawMysqlClient(differential.router.server.mysqlPort(), 0); var killer = differential.router.connectMysql("")) {
                assertEquals(0, victim.login(TestRouter.USER, TestRouter.PASSWORD, differential.router.database)[0]);
                victim.command(RawMysqlClient.COM_QUERY, "SELECT SLEEP(20)".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                boolean stopped = false;
                for (int i = 0; i < 100 && !stopped; i++) {
                    killer.createStatement().execute("KILL QUERY " + victim.connectionId);
                    stopped = victim.available() > 0;
                    if (!stopped) {
                        Thread.sleep(100);
                        assertEquals(0, victim.available(), "round " + round + ": the victim's error came after the KILL's answer");
                    }
                }
                assertTrue(stopped, "the statement was stopped");
                byte[] error = victim.readPacket();
                assertEquals((byte) 0xFF, error[0]);
                assertEquals(1317, (error[1] & 0xFF) | (error[2] & 0xFF) << 8);
                assertEquals("#70100", new String(error, 3, 6, java.nio.charset.StandardCharsets.US_ASCII));
            }
        }
    }

    @Test
    void killConnectionEndsTheSessionAndItsTransaction() throws Exception {
        same((side, o) -> {
            var victim = side.open("");
            try (var killer = side.open("")) {
                long id = ((JdbcConnection) victim).getId();
                victim.setAutoCommit(false);
                victim.createStatement().executeUpdate("INSERT INTO t VALUES (8101, 1)");
                killer.createStatement().execute("KILL CONNECTION " + id);
                try {
                    victim.createStatement().executeQuery("SELECT 1").close();
                    o.add("the killed session answered");
                } catch (SQLException e) {
                    o.add("the killed session: SQLState class " + (e.getSQLState() == null ? null : e.getSQLState().substring(0, 2)));
                }
                o.add("its insert " + rows(killer.createStatement().executeQuery("SELECT COUNT(*) FROM t WHERE id = 8101")));
                try {
                    killer.createStatement().execute("KILL 987654");
                    o.add("killing no session accepted");
                } catch (SQLException e) {
                    o.add("KILL of no session: " + error(e));
                }
            } finally {
                try {
                    victim.close(); // Connector/J rolls back on close: on a killed session that may fail either way
                } catch (SQLException expected) {
                    // the session is gone, which is what the test checks above
                }
            }
        });
    }

    @Test
    void aTransactionOverTwoPartitionsCommitsAndRollsBack() throws Exception {
        int a = 7001, b = 7002;
        same((side, o) -> {
            try (var c = side.open(""); var st = c.createStatement()) {
                c.setAutoCommit(false);
                st.executeUpdate("INSERT INTO t VALUES (" + a + ", 1), (" + b + ", 2)");
                st.executeUpdate("UPDATE t SET v = v + 100 WHERE id IN (1, 2, 3, 4)");
                c.commit();
                st.executeUpdate("UPDATE t SET v = -1 WHERE id IN (" + a + ", " + b + ", 1, 2, 3, 4)");
                st.executeUpdate("DELETE FROM t WHERE id IN (5, 6, 7, 8)");
                c.rollback();
                c.setAutoCommit(true);
            }
            try (var c = side.open(""); var st = c.createStatement()) {
                o.add("rows " + rows(st.executeQuery("SELECT id, v FROM t WHERE id IN (" + a + ", " + b + ", 1, 2, 3, 4, 5, 6, 7, 8) ORDER BY id")));
            }
        });
        int holding = 0;
        for (int p = 0; p < 4; p++) {
            try (var c = differential.router.partition(p); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM t WHERE id BETWEEN 1 AND 8")) {
                rs.next();
                if (rs.getInt(1) > 0) holding++;
            }
        }
        assertTrue(holding >= 2, "the transaction's rows are on " + holding + " partitions");
    }
}
