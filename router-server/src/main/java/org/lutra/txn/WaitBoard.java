package org.lutra.txn;

import org.lutra.backend.Backends;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Where routers tell each other which backend transactions are branches of which of their transactions, so that a cycle
 * through another router's transactions is seen whole: table {@value #TABLE} in partition 0's database, rows
 * {@code (partition, trx_id) → (gtrid, start)}. A backend's lock-wait views name transactions by InnoDB trx id and
 * connection id only; a router knows its own connections, not another router's.
 *
 * <p>A router publishes a transaction of its own only while it waits for a lock and its branches wait or are waited for on two
 * backends or more (the only way it can be part of a cycle across shards), and renews the rows at every check while it waits.
 * Readers take the rows renewed within {@value #CURRENT_SECONDS} s. A row left behind by a transaction that ended, or by a
 * router that died, misleads nobody on MariaDB: a trx id names one InnoDB transaction, which belongs to one branch for its whole
 * life, and MariaDB gives a locking transaction a real trx id, never reused (the server keeps the counter across restarts).
 * (MySQL 8 prints a placeholder id for a transaction that has only locked, which the same connection's next transaction may
 * show again: there the renewal window is what bounds a stale row, and two agreeing checks are what the detector acts on.)
 * Rows not renewed for {@value #KEEP_SECONDS} s are deleted. A MEMORY table: nothing here needs to outlive a restart, and a
 * write costs no log flush.
 */
final class WaitBoard implements AutoCloseable {
    static final String TABLE = "lutra_lock_waits";
    private static final int KEEP_SECONDS = 60;
    /** Rows renewed within this long are read: a waiting transaction's router renews them about every 0.1 s. */
    private static final int CURRENT_SECONDS = 2;
    private static final String DDL = "CREATE TABLE IF NOT EXISTS " + TABLE + " ("
            + "partition_name VARCHAR(64) NOT NULL, trx_id BIGINT UNSIGNED NOT NULL, gtrid VARBINARY(64) NOT NULL, started_ms BIGINT NOT NULL,"
            + " renewed TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), PRIMARY KEY (partition_name, trx_id)) ENGINE=MEMORY";
    private static final Executor SAME_THREAD = Runnable::run;

    /** Transaction {@code gtrid} (started at {@code startedMillis}) has branch {@code trxId} on the server of {@code partition}. */
    record Row(String partition, long trxId, String gtrid, long startedMillis) {}

    private final Backends.Placement placement;
    private Connection connection;

    WaitBoard(Backends.Placement placement) {
        this.placement = placement;
    }

    static void install(Backends backends) throws SQLException {
        try (Connection c = backends.placement(0).borrow(); var st = c.createStatement()) {
            st.execute(DDL);
        }
    }

    /** Publishes (or renews) {@code rows}, and deletes every router's rows not renewed for a while. */
    synchronized void publish(List<Row> rows) throws SQLException {
        if (rows.isEmpty()) return;
        try {
            var c = connection();
            try (var ps = c.prepareStatement("INSERT INTO " + TABLE + " (partition_name, trx_id, gtrid, started_ms) VALUES (?, ?, ?, ?)"
                    + " ON DUPLICATE KEY UPDATE renewed = CURRENT_TIMESTAMP(6)")) {
                for (Row r : rows) {
                    ps.setString(1, r.partition());
                    ps.setLong(2, r.trxId());
                    ps.setString(3, r.gtrid());
                    ps.setLong(4, r.startedMillis());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (var ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE renewed < NOW(6) - INTERVAL ? SECOND")) {
                ps.setInt(1, KEEP_SECONDS);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /** Every router's rows renewed lately (a router renews its rows at every check while its transaction waits). */
    synchronized List<Row> read() throws SQLException {
        var rows = new ArrayList<Row>();
        try (var ps = connection().prepareStatement("SELECT partition_name, trx_id, gtrid, started_ms FROM " + TABLE
                + " WHERE renewed > NOW(6) - INTERVAL ? SECOND")) {
            ps.setInt(1, CURRENT_SECONDS);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) rows.add(new Row(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getLong(4)));
            }
        } catch (SQLException e) {
            close();
            throw e;
        }
        return rows;
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            Connection c = placement.connectFresh();
            try {
                c.setNetworkTimeout(SAME_THREAD, placement.pingTimeoutMillis());
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
