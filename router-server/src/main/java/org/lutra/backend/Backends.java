package org.lutra.backend;

import com.zaxxer.hikari.HikariDataSource;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Where partitions live: one HikariCP pool per partition (its backend server, its own database
 * there), so a pooled connection never needs a USE before a statement.
 */
public final class Backends implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Backends.class);

    /**
     * @param pool    the connections statements run on
     * @param scratch a small pool of its own for temporary tables ({@code placement.ScratchConnection}): a
     *                statement holds one while its derived SELECTs borrow from {@code pool}, so that
     *                many such statements at once cannot take every connection they wait for
     * @param locking a small pool whose connections are never in auto-commit, for the short
     *                transactions of locking reads ({@code placement.ScratchConnection#transaction}): the read
     *                itself starts the transaction, with no START TRANSACTION round trip
     * @param transactions the pool of the transactions' branches, whose connections are never in auto-commit either
     *                (a branch's first statement starts its transaction, with no BEGIN): taken only through
     *                {@link #begin}, as {@link TransactionConnection}s, never for an auto-commit statement
     * @param pingTimeoutMillis how long a statement may wait on the server before it is pinged, and the ping
     *                answered ({@link BackendWatch})
     * @param waiting the connections borrowed from {@code pool} now, for the {@link BackendWatch}
     * @param carried the session variables each pooled connection (of either pool) carries now
     */
    public record Placement(int partition, String name, String backend, String database, HikariDataSource pool, HikariDataSource scratch,
                            HikariDataSource locking, HikariDataSource transactions,
                            int pingTimeoutMillis, int lockWaitSeconds, BackendWatch.Waiting waiting, SessionState.Carried carried, RoutingFence fence) {
        /**
         * How long a move batch waits for any lock: it yields. A batch holds its rows' locks while it waits for more
         * (a client's rows, the move fence), and a client's locking statement may hold what the batch waits for while
         * it waits for the batch's rows — across servers no shard sees that cycle, and only a lock wait timeout breaks
         * it. The batch's timeout being the shorter one, the batch is the one that ends: rolled back (its locks
         * released, the client's statement goes on) and retried ({@code maintain.MoveJobs}). Seconds: MySQL's unit.
         */
        public static final int YIELDING_LOCK_WAIT_SECONDS = 1;

        /**
         * Makes {@code c}, a connection of this placement's pools, wait {@link #YIELDING_LOCK_WAIT_SECONDS} for a lock (a move's);
         * {@link #restoreLockWaits} sets it back before it returns to its pool.
         */
        public void yieldLocks(Connection c) throws SQLException {
            setLockWait(c, YIELDING_LOCK_WAIT_SECONDS);
        }

        /** Sets {@code c}'s lock wait back to the configured one every pooled connection starts with. */
        public void restoreLockWaits(Connection c) throws SQLException {
            setLockWait(c, lockWaitSeconds);
        }

        private static void setLockWait(Connection c, int seconds) throws SQLException {
            try (var st = c.createStatement()) {
                st.execute("SET SESSION innodb_lock_wait_timeout = " + seconds);
            }
        }

        /**
         * A pooled connection at {@code isolation} (a java.sql.Connection level; TRANSACTION_NONE
         * means REPEATABLE READ, MySQL's default). The level is set on the driver's own connection,
         * not through the pool's proxy: Connector/J (useLocalSessionState) sends a SET only when
         * the level differs from what that connection already has, and the pool, which never saw
         * the change, does not send another to reset it on return. Connections thus keep the last
         * level they ran at, and every borrower states the level it needs.
         */
        public Connection borrow(int isolation) throws SQLException {
            fence.check(); // a statement routes only with a fresh catalog lease
            Connection c = pool.getConnection();
            try {
                fence.check(); // the wait for a connection may have outlasted it
            } catch (SQLException | RuntimeException e) {
                c.close(); // back to the pool unused
                throw e;
            }
            waiting.add(c); // watched until it goes back to the pool: every use of it may wait on the server
            try {
                c.unwrap(Connection.class).setTransactionIsolation(isolation == Connection.TRANSACTION_NONE ? Connection.TRANSACTION_REPEATABLE_READ : isolation);
                return c;
            } catch (SQLException | RuntimeException e) {
                waiting.remove(c);
                pool.evictConnection(c);
                throw e;
            }
        }

        /**
         * A connection of the transactions pool at {@code isolation} (as {@link #borrow(int)} sets it), for one
         * partition's branch of a transaction: at {@code autocommit=0} with no transaction open, so the branch's first
         * statement (or {@code XA START}) starts it. Fenced by the catalog lease and watched by the {@link BackendWatch}
         * as {@link #borrow(int)}'s connections are.
         */
        public TransactionConnection begin(int isolation) throws SQLException {
            fence.check();
            Connection c = transactions.getConnection();
            try {
                fence.check();
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            waiting.add(c);
            try {
                c.unwrap(Connection.class).setTransactionIsolation(isolation == Connection.TRANSACTION_NONE ? Connection.TRANSACTION_REPEATABLE_READ : isolation);
                return new TransactionConnection(this, transactions, c);
            } catch (SQLException | RuntimeException e) {
                waiting.remove(c);
                transactions.evictConnection(c);
                throw e;
            }
        }

        /**
         * A pooled connection for the router's own reads and writes (lookup loading, the decision
         * log, recovery): with the servers' defaults, whatever session variables it last carried.
         */
        public Connection borrow() throws SQLException {
            Connection c = pool.getConnection(); // the router's own work: not fenced by the catalog lease
            waiting.add(c);
            try {
                c.unwrap(Connection.class).setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            } catch (SQLException | RuntimeException e) {
                waiting.remove(c);
                pool.evictConnection(c);
                throw e;
            }
            carry(c, SessionState.EMPTY, pool);
            return c;
        }

        /**
         * A new connection to this partition's database, not from a pool: for a command that must not
         * meet a pooled connection lost together with the one that failed (a KILL of every connection,
         * a server restart) — the pool hands out a connection used within the last half second without
         * checking it. The caller closes it.
         */
        public Connection connectFresh() throws SQLException {
            return java.sql.DriverManager.getConnection(pool.getJdbcUrl(), freshProperties());
        }

        /**
         * What a connection to this partition opened without a pool (from the pool's URL) needs besides that URL: the user,
         * the password, and the pool's driver properties, which hold its TLS options ({@link org.lutra.config.BackendTls}) — without them
         * MariaDB Connector/J would connect in plain text to a backend the URL requires TLS for.
         */
        public java.util.Properties freshProperties() {
            var props = new java.util.Properties();
            props.putAll(pool.getDataSourceProperties());
            props.setProperty("user", pool.getUsername());
            if (pool.getPassword() != null) props.setProperty("password", pool.getPassword());
            return props;
        }

        /**
         * Makes a connection borrowed from {@code from} (this placement's pool or scratch pool)
         * carry a session's variables, with one SET only if it carries others. If the SET fails,
         * the connection's state is unknown: it is evicted (closed) and the error thrown.
         */
        public void carry(Connection c, SessionState state, HikariDataSource from) throws SQLException {
            try {
                carried.apply(c, state);
            } catch (SQLException | RuntimeException e) {
                carried.forget(c);
                waiting.remove(c);
                from.evictConnection(c);
                throw e;
            }
        }
    }

    private final List<Placement> placements;
    private volatile Catalog catalog;
    private final BackendWatch watch;
    private final RoutingFence fence;

    private Backends(List<Placement> placements, Catalog catalog, RoutingFence fence) {
        this.placements = List.copyOf(placements);
        this.catalog = catalog;
        this.watch = new BackendWatch(this.placements);
        this.fence = fence;
    }

    /** By lookup group (owner, lower case): when this router's catalog last lost a secondary lookup of the group (System.nanoTime). */
    private final java.util.Map<String, Long> secondaryGone = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether lookup group {@code owner} provably has no replicated keys, for a statement's scans to skip asking each partition:
     * a table of the group has a built secondary lookup in the live catalog. CREATE SECONDARY LOOKUP records it built only
     * after it found no replicated key in the group (under the move fence, once every router refused to replicate keys of it),
     * and from BUILDING on replicating a key of the group is refused ({@link #hasSecondaryLookup}, {@code maintain.Mover}).
     * A BUILDING one proves nothing: CREATE may still find a replicated key and be refused.
     */
    public boolean noReplicatedKeys(String owner) {
        return secondaryIn(owner, true);
    }

    /** Whether a table of lookup group {@code owner} has a secondary lookup in the live catalog, BUILDING ones included. */
    public boolean hasSecondaryLookup(String owner) {
        return secondaryIn(owner, false);
    }

    private boolean secondaryIn(String owner, boolean builtOnly) {
        Catalog c = catalog;
        for (var s : c.secondaries()) {
            if (builtOnly && s.building()) continue;
            TableDef t = c.table(s.table());
            if (t != null && t.partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp l && l.owner().equalsIgnoreCase(owner)) return true;
        }
        return false;
    }

    /** When this router's catalog last lost a secondary lookup of group {@code owner} (System.nanoTime), or null. */
    public Long secondaryGoneAt(String owner) {
        return secondaryGone.get(owner.toLowerCase(java.util.Locale.ROOT));
    }

    /** The live catalog (see {@link org.lutra.catalog.LiveCatalog}). */
    public Catalog catalog() {
        return catalog;
    }

    /**
     * The live catalog changed. When a table this router knew was altered or dropped, every pooled
     * connection is retired (each as it comes back): their server-side prepared statements were
     * prepared against the old definition, and Connector/J keeps their result columns
     * (a {@code SELECT *} cached before an ADD COLUMN would read the new column's values into nothing).
     */
    public void catalogChanged(Catalog next) {
        Catalog before = this.catalog;
        this.catalog = next;
        for (var s : before.secondaries()) {
            if (next.secondary(s.name()) == null && before.table(s.table()) != null
                    && before.table(s.table()).partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp l) {
                secondaryGone.put(l.owner().toLowerCase(java.util.Locale.ROOT), System.nanoTime());
            }
        }
        boolean changed = before.tables().stream().anyMatch(t -> next.table(t.name()) == null
                || !java.util.Objects.equals(next.table(t.name()).createText(), t.createText()));
        if (!changed) return;
        for (var p : placements) {
            p.pool().getHikariPoolMXBean().softEvictConnections();
            p.scratch().getHikariPoolMXBean().softEvictConnections();
            p.locking().getHikariPoolMXBean().softEvictConnections();
            p.transactions().getHikariPoolMXBean().softEvictConnections();
        }
        log.info("catalog changed: backend connections renewed (their prepared statements knew the old table definitions)");
    }

    /**
     * The router's own tables on one partition, created at start after the catalog's: those of the placement protocol
     * ({@code placement.PlacementTables}), which is a layer above the connections.
     */
    @FunctionalInterface
    public interface PartitionTables {
        void install(java.sql.Statement st, Catalog catalog, int partition) throws SQLException;
    }

    /**
     * Creates each partition's database, the tables placed on it and {@code tables} (IF NOT EXISTS: existing data is
     * kept), then opens the pools ({@link BackendSetup}).
     */
    public static Backends open(RouterConfig config, Catalog catalog, PartitionTables tables) throws SQLException {
        var fence = new RoutingFence();
        return new Backends(BackendSetup.openPlacements(config, catalog, tables, fence), catalog, fence);
    }

    /** What every statement's connection is checked against (the catalog lease). */
    public RoutingFence fence() {
        return fence;
    }

    /** MySQL's client error "Lost connection to server during query" (SQLState HY000). */
    private static final int LOST_CONNECTION = 2013;

    /**
     * A backend's error as the client sees it: prefixed with the partition and backend. A lost
     * backend connection is not the client's: its 08xxx state becomes HY000 / 2013, because the
     * protocol reserves 08 for errors after which the router closes the client's session.
     */
    public static SQLException located(Placement placement, SQLException e) {
        String where = "[" + placement.name() + "@" + placement.backend() + "] ";
        String state = BackendDriver.state(e);
        if (state != null && state.startsWith("08")) {
            return new SQLException(where + "lost connection to the backend: " + BackendDriver.message(e), "HY000",
                    e.getErrorCode() != 0 ? e.getErrorCode() : LOST_CONNECTION, e);
        }
        return new SQLException(where + BackendDriver.message(e), state, e.getErrorCode(), e);
    }

    /**
     * {@link #located(Placement, SQLException)} for a failure on {@code connection}: if the
     * {@link BackendWatch} closed it because its server stopped answering, the error says so.
     */
    public static SQLException located(Placement placement, SQLException e, Connection connection) {
        // null: a transaction's connection already given back (its result closed after the transaction ended)
        if (connection == null || !placement.waiting().cutOff(connection)) return located(placement, e);
        return new SQLException("[" + placement.name() + "@" + placement.backend() + "] the backend did not answer for "
                + placement.pingTimeoutMillis() + " ms, nor a ping after it (frozen or unreachable): the router closed the connection"
                + " (an auto-commit write sent there may or may not have been applied; a transaction's work there is rolled back)",
                "HY000", LOST_CONNECTION, e);
    }

    private volatile Boolean mariaDb;

    /**
     * Whether every backend is a MariaDB server (its version says so), read once from each backend's
     * connection handshake: no round trip. What MariaDB alone has is used only then ({@code SET STATEMENT}).
     */
    public boolean mariaDb() throws SQLException {
        Boolean known = mariaDb;
        if (known == null) {
            known = true;
            for (Placement p : placements) {
                try (Connection c = p.borrow()) {
                    known &= c.getMetaData().getDatabaseProductVersion().contains("MariaDB");
                }
            }
            mariaDb = known;
        }
        return known;
    }

    public Placement placement(int partition) {
        return placements.get(partition);
    }

    public List<Placement> placements() {
        return placements;
    }

    /** Connections borrowed from the partition pools (statement, scratch, locking and transactions) right now. */
    public int activeConnections() {
        int active = 0;
        for (var p : placements) {
            active += p.pool().getHikariPoolMXBean().getActiveConnections() + p.scratch().getHikariPoolMXBean().getActiveConnections()
                    + p.locking().getHikariPoolMXBean().getActiveConnections() + p.transactions().getHikariPoolMXBean().getActiveConnections();
        }
        return active;
    }

    @Override
    public void close() {
        watch.close();
        placements.forEach(p -> {
            p.pool().close();
            p.scratch().close();
            p.locking().close();
            p.transactions().close();
        });
    }
}
