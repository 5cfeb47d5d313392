package org.lutra.txn;

import org.lutra.backend.Backends;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.concurrent.Executor;

/**
 * Makes router names unique by construction: a router holds a named lock ({@code GET_LOCK}) for
 * its {@code router_name} and logical database on partition 0's server, on a connection of its
 * own, for as long as it runs. Recovery resolves the branches of "its own earlier lives" at once,
 * so two live routers with one name would roll back each other's transactions in flight; with the
 * lock, the second refuses to start and names the holder.
 *
 * <p>The server releases a named lock when the holding connection ends, so a router that crashed
 * (or was killed) frees its name as soon as its server notices the closed socket — no lease to
 * wait out, no clocks. A starting router waits {@value #START_WAIT_SECONDS} s for the lock, long
 * enough for a just-killed predecessor's connection to be closed. A frozen or partitioned router
 * keeps its name until its server drops the connection: refusing a second router then is the
 * safe side.
 *
 * <p>A watcher (virtual thread) checks every {@value #CHECK_MILLIS} ms that the lock is still
 * held by this connection, and takes it again on a new connection if the old one was lost (say,
 * the server restarted). If another router took the name meanwhile, this router is
 * {@link #takenOver()}: it then refuses to commit with two-phase commit, whose branches the other
 * would take for an earlier life's (the decision log's fence keeps even that safe, see
 * {@link DecisionLog}, but every such commit would fail).
 */
final class RouterNameLock implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RouterNameLock.class);
    static final int START_WAIT_SECONDS = 5;
    private static final long CHECK_MILLIS = 2_000;
    private static final int STATEMENT_TIMEOUT_MILLIS = 5_000;
    private static final Executor SAME_THREAD = Runnable::run;

    private final Backends.Placement placement;
    private final String router;
    private final String lockName;
    private final Thread watcher;
    private Connection connection;
    private volatile boolean takenOver;
    private volatile boolean closed;

    private RouterNameLock(Backends.Placement placement, String router, Connection connection) {
        this.placement = placement;
        this.router = router;
        this.lockName = lockName(router, placement.database());
        this.connection = connection;
        this.watcher = Thread.ofPlatform().daemon().name("lutra-router-name").unstarted(this::watch); // platform: see BackendThreads
    }

    /** Takes {@code router}'s name on {@code placement}'s server, or fails saying who holds it. */
    static RouterNameLock acquire(Backends.Placement placement, String router) throws SQLException {
        Connection c = open(placement);
        try {
            String name = lockName(router, placement.database());
            if (!getLock(c, name, START_WAIT_SECONDS)) {
                throw new SQLException("router name '" + router + "' is in use: a live router holds it for database "
                        + placement.database() + " (" + holder(c, name) + " on " + placement.backend() + "). Every router sharing"
                        + " these backends needs a transactions.router_name of its own: recovery takes a prepared branch of its"
                        + " name for one of its own earlier lives and rolls it back at once", "HY000", 0);
            }
            var lock = new RouterNameLock(placement, router, c);
            lock.watcher.start();
            return lock;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Another router took this router's name while it had lost its lock connection. */
    boolean takenOver() {
        return takenOver;
    }

    private void watch() {
        while (!closed) {
            try {
                Thread.sleep(CHECK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            if (closed) return;
            try {
                if (!held()) retake();
            } catch (SQLException e) {
                log.warn("router name '{}': cannot check its lock on {} yet: {}", router, placement.backend(), e.getMessage());
                dropConnection();
            }
        }
    }

    private synchronized boolean held() throws SQLException {
        if (connection == null) return false;
        try (PreparedStatement ps = connection.prepareStatement("SELECT IS_USED_LOCK(?) = CONNECTION_ID()")) {
            ps.setString(1, lockName);
            try (var rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private synchronized void retake() throws SQLException {
        dropConnection();
        Connection c = open(placement);
        if (getLock(c, lockName, 0)) {
            connection = c;
            if (takenOver) log.warn("router name '{}' is this router's again", router);
            takenOver = false;
            return;
        }
        String who = holder(c, lockName);
        c.close();
        if (!takenOver) {
            log.error("router name '{}' was taken by another router ({}) while this router's lock connection was lost: this router"
                    + " refuses two-phase commits until it has its name back; give each router its own transactions.router_name",
                    router, who);
        }
        takenOver = true;
    }

    private synchronized void dropConnection() {
        if (connection == null) return;
        try {
            connection.close();
        } catch (SQLException ignored) {
            // it is gone either way
        }
        connection = null;
    }

    private static Connection open(Backends.Placement p) throws SQLException {
        var props = p.freshProperties();
        props.setProperty("connectTimeout", String.valueOf(STATEMENT_TIMEOUT_MILLIS));
        Connection c = DriverManager.getConnection(p.pool().getJdbcUrl(), props);
        c.setNetworkTimeout(SAME_THREAD, STATEMENT_TIMEOUT_MILLIS + START_WAIT_SECONDS * 1000);
        return c;
    }

    private static boolean getLock(Connection c, String name, int waitSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(?, ?)")) {
            ps.setString(1, name);
            ps.setInt(2, waitSeconds);
            try (var rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    /** Who holds {@code name}, as far as the server can tell (its client address and connection id). */
    private static String holder(Connection c, String name) {
        try (PreparedStatement ps = c.prepareStatement("SELECT ID, HOST FROM information_schema.PROCESSLIST WHERE ID = IS_USED_LOCK(?)")) {
            ps.setString(1, name);
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) return "holder not visible";
                String host = rs.getString(2);
                return (host == null || host.isBlank() ? "" : "connected from " + host + ", ") + "connection " + rs.getLong(1);
            }
        } catch (SQLException e) {
            return "holder unknown: " + e.getMessage();
        }
    }

    /** GET_LOCK names are server-wide and at most 64 characters: router name plus the partition's database, hashed if long. */
    static String lockName(String router, String database) {
        String name = "lutra:" + router + "@" + database;
        if (name.length() <= 64) return name;
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(database.getBytes(StandardCharsets.UTF_8));
            return "lutra:" + router + "@" + HexFormat.of().formatHex(hash).substring(0, 40);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        closed = true;
        watcher.interrupt();
        dropConnection(); // the server releases the lock with the connection
    }
}
