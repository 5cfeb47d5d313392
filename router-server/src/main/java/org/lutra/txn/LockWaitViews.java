package org.lutra.txn;

import org.lutra.exec.Backends;
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
 * serves these views from a snapshot it renews only when nobody has read it for 100 ms (trx0i_s.cc,
 * {@code CACHE_MIN_IDLE_TIME}): a read may return an old snapshot, and reads less than 100 ms apart — this router's, another
 * router's, a monitoring tool's — keep it old. So every read proves its freshness: it runs inside a transaction of its own
 * (which INNODB_TRX then lists) and carries a round number in a comment; the snapshot lists that transaction's current query
 * only if it was taken during this very read. A stale snapshot is not used.
 *
 * <p>MySQL 8: {@code performance_schema.data_lock_waits} with {@code threads}, read live (no snapshot cache).
 */
final class LockWaitViews implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockWaitViews.class);
    private static final Executor SAME_THREAD = Runnable::run;
    private static final String MARK = "lutra deadlock check ";

    private static final String MARIADB = "SELECT /*" + MARK + "%d*/ 0, r.trx_id, r.trx_mysql_thread_id, w.requested_lock_id, b.trx_id,"
            + " b.trx_mysql_thread_id FROM information_schema.INNODB_LOCK_WAITS w"
            + " JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id"
            + " JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id"
            + " UNION ALL SELECT 1, NULL, NULL, trx_query, NULL, NULL FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()";
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
    private long round;

    LockWaitViews(Backends.Placement placement) {
        this.backend = placement.backend();
        this.placement = placement;
    }

    /** Whether the server refused the views (a missing privilege, an engine without them): this backend is left to the lock wait timeout. */
    boolean refused() {
        return refused;
    }

    /** The server's lock waits now, or a snapshot marked stale. Only the detector's thread calls it. */
    synchronized Snapshot read() throws SQLException {
        try {
            Connection c = connection();
            try (Statement st = c.createStatement()) {
                if (mariaDb) {
                    long n = ++round;
                    st.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT"); // listed by INNODB_TRX, with the query it runs
                    try {
                        return rows(st, MARIADB.formatted(n), MARK + n + "*/");
                    } finally {
                        st.execute("COMMIT");
                    }
                }
                return rows(st, MYSQL, null);
            }
        } catch (SQLException e) {
            if (e.getErrorCode() == 1227 || e.getErrorCode() == 1142 || e.getErrorCode() == 1109 || e.getErrorCode() == 1146) {
                refused = true;
                log.warn("deadlock detection: backend {} refuses its lock-wait views ({}); deadlocks across shards through it end at"
                        + " lock_wait_timeout_seconds (the detector needs the PROCESS privilege on MariaDB, SELECT on performance_schema"
                        + " on MySQL)", backend, e.getMessage());
            }
            close();
            throw e;
        }
    }

    private static Snapshot rows(Statement st, String sql, String mark) throws SQLException {
        var waits = new ArrayList<Wait>();
        boolean fresh = mark == null;
        try (var rs = st.executeQuery(sql)) {
            while (rs.next()) {
                if (rs.getInt(1) == 1) {
                    String query = rs.getString(4);
                    fresh |= query != null && query.contains(mark);
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
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            connection = c;
        }
        return connection;
    }

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
