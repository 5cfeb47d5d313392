package org.lutra.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.config.BackendTls;
import org.lutra.config.RouterConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;

/**
 * How the router connects to its backends: each partition's database and tables created at start, the settings of its
 * pools (MariaDB Connector/J, TLS translated from the URL's Connector/J options), and plain Connector/J connections for
 * what runs without a pool (the stored catalog, its lease, DDL).
 */
public final class BackendSetup {
    private static final Logger log = LoggerFactory.getLogger(BackendSetup.class);

    private BackendSetup() {}

    /**
     * Connector/J settings for every backend connection. Server-side prepared statements so that
     * parameters travel as parameters (the client-side default splices them into the text), cached
     * per connection because plans repeat. Connector/J would send {@code SET net_write_timeout}
     * before and after every streamed result (two extra round trips per query):
     * netTimeoutForStreamingResults=0 stops that, and the pool's init SQL sets the timeout once.
     * Connector/J reads the socket unbuffered by default: two read() calls per packet, ten for a
     * one-row result; useUnbufferedInput=false reads a whole result in one (its read-ahead stream
     * would ask the socket available() before each read).
     */
    private static final String CONNECTOR_OPTIONS =
            "useServerPrepStmts=true&cachePrepStmts=true&prepStmtCacheSize=512&prepStmtCacheSqlLimit=8192"
            + "&useLocalSessionState=true&yearIsDateType=false&allowMultiQueries=false&netTimeoutForStreamingResults=0&useReadAheadInput=false&useUnbufferedInput=false";

    /** The Connector/J options of the router's backend connections (tests that compare drivers connect with them). */
    public static String connectorOptions() {
        return CONNECTOR_OPTIONS;
    }

    /** The server's wait for a streaming reader (Connector/J's netTimeoutForStreamingResults default). */
    private static final int STREAMING_WRITE_TIMEOUT_SECONDS = 600;

    /**
     * Creates each partition's database and the tables placed on it (IF NOT EXISTS: existing data is
     * kept), then opens each partition's pools.
     */
    static List<Backends.Placement> openPlacements(RouterConfig config, Catalog catalog, Backends.PartitionTables tables, RoutingFence fence)
            throws SQLException {
        var placements = new ArrayList<Backends.Placement>();
        for (var backend : config.backends()) { // before any connection: a start refuses what the pools cannot honour
            BackendTls.translate(backend.name(), backend.url());
        }
        var offers = new HashMap<String, BackendTls.ServerOffer>(); // by backend: whether its server offered TLS at start (PREFERRED's pools)
        try {
            for (int id = 0; id < config.partitions().size(); id++) {
                var p = config.partitions().get(id);
                var backend = config.backend(p.backend());
                String database = config.databaseOf(p);
                boolean ask = !offers.containsKey(backend.name()) && isPreferred(backend);
                boolean encrypted = createSchema(backend, database, id, catalog, tables, ask);
                if (ask) {
                    offers.put(backend.name(), encrypted ? BackendTls.ServerOffer.TLS : BackendTls.ServerOffer.NO_TLS);
                    log.info(encrypted
                            ? "backend {}: sslMode PREFERRED (Connector/J's default), and the server offers TLS: the pools use it (sslMode=trust,"
                                + " the certificate not checked, as PREFERRED does); decided at start"
                            : "backend {}: sslMode PREFERRED (Connector/J's default), and the server offers no TLS: the pools connect in plain text;"
                                + " decided at start (sslMode=REQUIRED or stronger encrypts every connection)", backend.name());
                }
                var hikari = poolConfig(backend, database, config.transactions().lockWaitSeconds(), offers.getOrDefault(backend.name(), BackendTls.ServerOffer.NO_TLS));
                hikari.setPoolName("lutra-" + p.name() + "@" + backend.name());
                var scratch = new HikariConfig();
                hikari.copyStateTo(scratch);
                scratch.setPoolName(hikari.getPoolName() + ":scratch");
                scratch.setMaximumPoolSize(Math.max(2, backend.poolSize() / 4));
                scratch.setMinimumIdle(0);
                var locking = new HikariConfig();
                scratch.copyStateTo(locking);
                locking.setPoolName(hikari.getPoolName() + ":locks");
                locking.setAutoCommit(false);
                // gap locks: a home row read that finds none must keep a move from writing one until the statement is done (HomeRows)
                locking.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
                placements.add(new Backends.Placement(id, p.name(), backend.name(), database, new HikariDataSource(hikari), new HikariDataSource(scratch),
                        new HikariDataSource(locking), new HikariDataSource(transactions(hikari)),
                        backend.pingTimeoutMillis(), config.transactions().lockWaitSeconds(), new BackendWatch.Waiting(), new SessionState.Carried(), fence));
            }
        } catch (SQLException | RuntimeException e) {
            placements.forEach(pl -> {
                pl.pool().close();
                pl.scratch().close();
                pl.locking().close();
                pl.transactions().close();
            });
            throw e;
        }
        return placements;
    }

    /**
     * The transactions pool's settings ({@link Backends.Placement#begin}): the statement pool's, its connections at
     * autocommit=0 (HikariCP sets it once per connection) so that a branch's first statement starts its transaction
     * with no BEGIN. As many as the statement pool, whose connections the branches pinned before: a transaction pins
     * one per partition it touches for its whole life. None kept idle beyond those in use lately: a router that runs
     * no transactions opens none.
     */
    private static HikariConfig transactions(HikariConfig statements) {
        var transactions = new HikariConfig();
        statements.copyStateTo(transactions);
        transactions.setPoolName(statements.getPoolName() + ":txn");
        transactions.setAutoCommit(false);
        transactions.setMinimumIdle(0);
        return transactions;
    }

    private static boolean isPreferred(RouterConfig.Backend backend) {
        return BackendTls.translate(backend.name(), backend.url()).connectorMode() == com.mysql.cj.conf.PropertyDefinitions.SslMode.PREFERRED;
    }

    /**
     * The settings of a partition's pool on {@code backend}, in {@code database}: MariaDB Connector/J ({@link BackendDriver}), the
     * backend URL's options carried over, its TLS options translated ({@link BackendTls}: a start refuses what cannot be).
     *
     * @param offer whether the server offered TLS to a Connector/J connection ({@link BackendTls#encrypted}): the pools of a URL in
     *              mode PREFERRED use TLS then, as Connector/J's connections do
     */
    public static HikariConfig poolConfig(RouterConfig.Backend backend, String database, int lockWaitSeconds, BackendTls.ServerOffer offer) {
        var tls = BackendTls.translate(backend.name(), backend.url(), offer);
        var hikari = new HikariConfig();
        // a server that accepts TCP but never answers (frozen) must not hold a new connection, or a KILL QUERY's, for ever
        hikari.setJdbcUrl(BackendDriver.url(withDatabase(tls.url(), database, ""), BackendDriver.OPTIONS
                + "&connectTimeout=" + backend.pingTimeoutMillis() + "&socketFactory=" + BlockingSocketFactory.Plain.class.getName()));
        hikari.setDataSourceProperties(tls.options());
        hikari.setUsername(backend.user());
        hikari.setPassword(backend.password());
        hikari.setMaximumPoolSize(backend.poolSize());
        hikari.setMinimumIdle(Math.min(2, backend.poolSize()));
        hikari.setConnectionTimeout(10_000);
        hikari.setAutoCommit(true);
        // Bounds every lock wait, including deadlocks across shards that no shard can see; and
        // gives a client that reads a streamed result slowly the time Connector/J would.
        // sql_mode: the server's own. MariaDB Connector/J asks for IGNORE_SPACE in its handshake (a fixed capability,
        // which makes built-in function names reserved words) and appends STRICT_TRANS_TABLES; Connector/J does neither.
        hikari.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = " + lockWaitSeconds
                + ", net_write_timeout = " + STREAMING_WRITE_TIMEOUT_SECONDS + ", sql_mode = @@global.sql_mode");
        return hikari;
    }

    /** Opens a plain connection (no pool) to {@code partition}'s database on its backend, creating the database if need be (at start). */
    public static Connection connectCreating(RouterConfig config, int partition) throws SQLException {
        var p = config.partitions().get(partition);
        var backend = config.backend(p.backend());
        try (Connection c = DriverManager.getConnection(backend.url(), backend.user(), backend.password()); var st = c.createStatement()) {
            st.execute("CREATE DATABASE IF NOT EXISTS `" + config.databaseOf(p).replace("`", "``") + "`");
        }
        return connect(config, partition, 0);
    }

    /**
     * Opens a plain connection (no pool) to {@code partition}'s existing database; with {@code socketTimeoutMillis}
     * above 0 no statement on it waits longer for the server (the connection is then broken).
     */
    public static Connection connect(RouterConfig config, int partition, int socketTimeoutMillis) throws SQLException {
        var p = config.partitions().get(partition);
        var backend = config.backend(p.backend());
        return DriverManager.getConnection(withDatabase(backend.url(), config.databaseOf(p)) + timeLimits(backend)
                + (socketTimeoutMillis > 0 ? "&socketTimeout=" + socketTimeoutMillis : ""), backend.user(), backend.password());
    }

    /** The connect timeout, kept by sockets that stay in blocking mode all the same ({@link BlockingSocketFactory}: one read() per result, not three). */
    private static String timeLimits(RouterConfig.Backend backend) {
        return "&connectTimeout=" + backend.pingTimeoutMillis() + "&socketFactory=" + BlockingSocketFactory.class.getName();
    }

    /**
     * Creates {@code partition}'s database and tables on {@code backend} with a Connector/J connection, then {@code tables}.
     *
     * @param askTls whether to return that connection's TLS (it asks the server: one round trip)
     * @return whether the connection runs over TLS, if asked; else false
     */
    private static boolean createSchema(RouterConfig.Backend backend, String database, int partition, Catalog catalog,
                                        Backends.PartitionTables tables, boolean askTls)
            throws SQLException {
        boolean encrypted;
        try (Connection c = DriverManager.getConnection(backend.url(), backend.user(), backend.password());
             var st = c.createStatement()) {
            encrypted = askTls && BackendTls.encrypted(c);
            st.execute("CREATE DATABASE IF NOT EXISTS `" + database.replace("`", "``") + "`");
            st.execute("USE `" + database.replace("`", "``") + "`");
            for (TableDef t : catalog.tablesInSchemaOrder()) {
                for (int p : t.partitioning().partitions()) {
                    if (p != partition) continue;
                    // a foreign key whose parent table is not on this partition: the shard would refuse it (the router enforces it)
                    boolean parentAway = org.lutra.catalog.ForeignKeys.parentMissingOn(catalog, t, partition);
                    if (parentAway) st.execute("SET foreign_key_checks = 0");
                    st.execute(ifNotExists(t.ddl()));
                    if (parentAway) st.execute("SET foreign_key_checks = 1");
                }
            }
            tables.install(st, catalog, partition);
        } catch (SQLException e) {
            throw new SQLException("cannot prepare database " + database + " on backend " + backend.name() + " (" + backend.redactedUrl() + "): "
                    + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
        log.info("partition {} ready in {} on {}", partition, database, backend.name());
        return encrypted;
    }

    public static String ifNotExists(String ddl) {
        String upper = ddl.toUpperCase(Locale.ROOT);
        if (upper.matches("(?s)CREATE\\s+SEQUENCE\\b.*")) {
            return upper.matches("(?s)CREATE\\s+SEQUENCE\\s+IF\\s+NOT\\s+EXISTS.*") ? ddl
                    : ddl.replaceFirst("(?i)CREATE\\s+SEQUENCE", "CREATE SEQUENCE IF NOT EXISTS");
        }
        return upper.matches("(?s)CREATE\\s+TABLE\\s+IF\\s+NOT\\s+EXISTS.*") ? ddl
                : ddl.replaceFirst("(?i)CREATE\\s+TABLE", "CREATE TABLE IF NOT EXISTS");
    }

    static String withDatabase(String url, String database) {
        return withDatabase(url, database, CONNECTOR_OPTIONS);
    }

    private static String withDatabase(String url, String database, String options) {
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        String params = query < 0 ? "" : url.substring(query + 1);
        int slash = base.indexOf('/', base.indexOf("//") + 2);
        String hostPart = slash < 0 ? base : base.substring(0, slash);
        String all = params.isEmpty() ? options : options.isEmpty() ? params : params + "&" + options;
        return hostPart + "/" + database + (all.isEmpty() ? "" : "?" + all);
    }
}
