package org.lutra.txn;

import org.lutra.backend.Backends;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One backend server's lock waits, as its own views show them, read on a connection of the deadlock detector's own (not a
 * pooled one: when lock waits have taken every pooled connection, the detector must still get through).
 *
 * <p>MariaDB: {@code information_schema.INNODB_LOCK_WAITS} joined with {@code INNODB_TRX} (trx id to connection id). InnoDB
 * serves these views from a copy it renews only once nobody has read it for 100 ms (trx0i_s.cc,
 * {@code CACHE_MIN_IDLE_TIME}): a read may get an old copy, and reads less than 100 ms apart — this router's, another
 * router's, a monitoring tool's — keep it old. So every read proves how recent its copy is. The connection keeps a transaction
 * open that has inserted one row into a temporary table of its own for each read so far; a read first inserts one more, and
 * the copy is used only if it shows that transaction with as many rows modified ({@code trx_rows_modified}): it was taken after
 * the insert, whoever's read renewed it — with several routers, one's renewal serves all. A temporary table's rows take no
 * locks, and the transaction reads nothing consistently, so it holds back no purge; it ends with the connection, which is
 * closed when the detector goes idle and renewed every {@value #MARKS_PER_CONNECTION} reads.
 *
 * <p>MySQL 8: {@code performance_schema.data_lock_waits} with {@code threads}, read live (no copy).
 */
final class LockWaitViews implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockWaitViews.class);
    private static final Executor SAME_THREAD = Runnable::run;
    private static final String MARKS = "lutra_deadlock_marks";
    private static final int MARKS_PER_CONNECTION = 10_000;

    private static final String MARIADB = "SELECT 0, r.trx_id, r.trx_mysql_thread_id, w.requested_lock_id, b.trx_id,"
            + " b.trx_mysql_thread_id FROM information_schema.INNODB_LOCK_WAITS w"
            + " JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id"
            + " JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id"
            + " UNION ALL SELECT 1, trx_rows_modified, NULL, NULL, NULL, NULL FROM information_schema.INNODB_TRX"
            + " WHERE trx_mysql_thread_id = CONNECTION_ID()";
    private static final String MYSQL = "SELECT 0, w.REQUESTING_ENGINE_TRANSACTION_ID, rt.PROCESSLIST_ID, w.REQUESTING_ENGINE_LOCK_ID,"
            + " w.BLOCKING_ENGINE_TRANSACTION_ID, bt.PROCESSLIST_ID FROM performance_schema.data_lock_waits w"
            + " JOIN performance_schema.threads rt ON rt.THREAD_ID = w.REQUESTING_THREAD_ID"
            + " JOIN performance_schema.threads bt ON bt.THREAD_ID = w.BLOCKING_THREAD_ID";

    /** On {@code backend}, transaction {@code waiterTrx} (of connection {@code waiterThread}) waits for lock {@code lockId}, which {@code holderTrx} holds. */
    record Wait(long waiterTrx, long waiterThread, String lockId, long holderTrx, long holderThread) {}

    /** The waits of one read; {@code fresh} false: the server answered from a snapshot older than the read (not to be used). */
    record Snapshot(boolean fresh, List<Wait> waits) {}

    final String backend;
    /** The first partition on this backend: the detector's connection is to its database. */
    final Backends.Placement placement;
    private Connection connection;
    private Boolean mariaDb;
    private boolean refused;
    /** Rows the connection's open transaction has inserted into its temporary table (MariaDB): one per read. */
    private long marks;

    LockWaitViews(Backends.Placement placement) {
        this.backend = placement.backend();
        this.placement = placement;
    }

    /** Whether the server refused the views (a missing privilege, an engine without them): this backend is left to the lock wait timeout. */
    boolean refused() {
        return refused;
    }

    /**
     * Before a read: one more row inserted by the connection's transaction (MariaDB; nothing on MySQL), so that the read can
     * tell a copy taken after this moment. Only the detector's thread calls it.
     */
    synchronized void mark() throws SQLException {
        try {
            if (connection != null && marks >= MARKS_PER_CONNECTION) close(); // a new connection: copies older than it cannot show its id
            Connection c = connection();
            if (!mariaDb) return;
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO " + MARKS + " VALUES (0)");
            }
            marks++;
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** The server's lock waits, marked stale unless the copy they come from was taken after the last {@link #mark}. */
    synchronized Snapshot read() throws SQLException {
        try (Statement st = connection().createStatement()) {
            return mariaDb ? rows(st, MARIADB, marks) : rows(st, MYSQL, -1);
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private SQLException failed(SQLException e) {
        if (e.getErrorCode() == 1227 || e.getErrorCode() == 1044 || e.getErrorCode() == 1142 || e.getErrorCode() == 1109 || e.getErrorCode() == 1146) {
            refused = true;
            log.warn("deadlock detection: backend {} refuses its lock-wait views ({}); deadlocks across shards through it end at"
                    + " lock_wait_timeout_seconds (the detector needs the PROCESS and CREATE TEMPORARY TABLES privileges on MariaDB, SELECT on performance_schema"
                    + " on MySQL)", backend, e.getMessage());
        }
        close();
        return e;
    }

    /** @param marks the rows the connection's transaction has modified, which a copy taken after the last insert shows; -1: live views */
    private static Snapshot rows(Statement st, String sql, long marks) throws SQLException {
        var waits = new ArrayList<Wait>();
        boolean fresh = marks < 0;
        try (var rs = st.executeQuery(sql)) {
            while (rs.next()) {
                if (rs.getInt(1) == 1) {
                    fresh |= marks > 0 && rs.getLong(2) == marks;
                } else {
                    waits.add(new Wait(rs.getLong(2), rs.getLong(3), rs.getString(4), rs.getLong(5), rs.getLong(6)));
                }
            }
        }
        return new Snapshot(fresh, waits);
    }

    /** Stops the statement connection {@code threadId} runs on this server (it fails with 1317); a connection between statements is unaffected. */
    synchronized void killQuery(long threadId) throws SQLException {
        try (Statement st = connection().createStatement()) {
            st.execute("KILL QUERY " + threadId); // a number the server gave, not a client's value
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            Connection c = placement.connectFresh();
            try {
                c.setNetworkTimeout(SAME_THREAD, placement.pingTimeoutMillis()); // a frozen server costs a round at most this
                if (mariaDb == null) mariaDb = c.getMetaData().getDatabaseProductVersion().contains("MariaDB");
                if (mariaDb) {
                    try (Statement st = c.createStatement()) {
                        st.execute("CREATE TEMPORARY TABLE " + MARKS + " (n INT) ENGINE=InnoDB");
                        st.execute("START TRANSACTION");
                    }
                }
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            connection = c;
            marks = 0;
        }
        return connection;
    }

    /** Closes the connection (ending its transaction); the next read opens another. */
    @Override
    public synchronized void close() {
        if (connection == null) return;
        try {
            connection.close();
        } catch (SQLException ignored) {
            // gone already
        }
        connection = null;
    }
}
