package org.lutra.it;

import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A router for one test class: partitions p0..p3 on the shared shards, in databases named after
 * a fresh logical database, so test classes never see each other's rows.
 */
final class TestRouter implements AutoCloseable {
    static final String USER = "app";
    static final String PASSWORD = "s3cret";

    final String database;
    final RouterServer server;
    final Shards shards;
    final RouterConfig config;
    final int servers;

    TestRouter(Shards shards, String prefix, String schema) throws IOException, SQLException {
        this(shards, prefix, schema, null);
    }

    TestRouter(Shards shards, String prefix, String schema, RouterConfig.Transactions transactions) throws IOException, SQLException {
        this(shards, prefix, schema, transactions, shards.size());
    }

    /** Partitions p0..p3 of which partition i lives on shard {@code i % servers}. */
    TestRouter(Shards shards, String prefix, String schema, RouterConfig.Transactions transactions, int servers)
            throws IOException, SQLException {
        this(shards, prefix, schema, transactions, servers, null);
    }

    TestRouter(Shards shards, String prefix, String schema, RouterConfig.Transactions transactions, int servers,
               RouterConfig.Limits limits) throws IOException, SQLException {
        this(shards, prefix, schema, transactions, servers, limits, 8);
    }

    TestRouter(Shards shards, String prefix, String schema, RouterConfig.Transactions transactions, int servers,
               RouterConfig.Limits limits, int poolSize) throws IOException, SQLException {
        this(shards, prefix, schema, transactions, servers, limits, poolSize, 0);
    }

    /** @param pingTimeoutMillis each backend's ping_timeout_ms (0 = the default) */
    TestRouter(Shards shards, String prefix, String schema, RouterConfig.Transactions transactions, int servers,
               RouterConfig.Limits limits, int poolSize, int pingTimeoutMillis) throws IOException, SQLException {
        this(shards, (prefix + "_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36)).toLowerCase(), schema, transactions,
                servers, limits, poolSize, pingTimeoutMillis, null);
    }

    /**
     * A router for logical database {@code database}: a second one with the same database shares the first
     * one's partitions (give it another transactions.router_name).
     */
    TestRouter(Shards shards, String database, String schema, RouterConfig.Transactions transactions, int servers,
               RouterConfig.Limits limits, int poolSize, int pingTimeoutMillis, RouterConfig.CatalogSettings catalog) throws IOException, SQLException {
        this.shards = shards;
        this.servers = servers;
        this.database = database;
        Path schemaFile = Files.createTempFile("lutra-schema", ".sql");
        Files.writeString(schemaFile, schema);
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < servers; i++) {
            backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), poolSize, pingTimeoutMillis));
        }
        for (int i = 0; i < shards.size(); i++) {
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + (i % servers), null));
        }
        this.config = new RouterConfig("127.0.0.1:0", database, schemaFile,
                List.of(new RouterConfig.User(USER, PASSWORD, null)), backends, partitions, List.of(), 1 << 20, 1000, transactions, limits, null, catalog)
                .withMysql("127.0.0.1:0"); // every test router also speaks MySQL's protocol (MysqlProtocolIT, the differential suites)
        config.validate();
        this.server = RouterServer.start(config);
    }

    /** Another router on the same backends and databases, named {@code name} (its own XA ids), with {@code lookups} map files. */
    TestRouter(TestRouter first, String name, List<RouterConfig.LookupSource> lookups) throws IOException, SQLException {
        this.shards = first.shards;
        this.servers = first.servers;
        this.database = first.database;
        var c = first.config;
        var t = c.transactions();
        var transactions = new RouterConfig.Transactions(name, t.lockWaitSeconds(), t.recoverySeconds(), t.recoveryGraceSeconds(),
                t.prepareTimeoutMillis(), t.decisionTimeoutMillis(), t.commitTimeoutMillis(), t.deadlockCheckMillis());
        this.config = new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), c.backends(), c.partitions(), lookups,
                c.maxFrameBytes(), c.planCacheSize(), transactions, c.limits(), c.tls());
        config.validate();
        this.server = RouterServer.start(config);
    }

    /** Another router on the same backends and databases, named {@code name}, with catalog settings of its own (map_dir, move_pause_ms). */
    TestRouter(TestRouter first, String name, RouterConfig.CatalogSettings catalog) throws IOException, SQLException {
        this.shards = first.shards;
        this.servers = first.servers;
        this.database = first.database;
        var c = first.config;
        var t = c.transactions();
        var transactions = new RouterConfig.Transactions(name, t.lockWaitSeconds(), t.recoverySeconds(), t.recoveryGraceSeconds(),
                t.prepareTimeoutMillis(), t.decisionTimeoutMillis(), t.commitTimeoutMillis(), t.deadlockCheckMillis());
        this.config = new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), c.backends(), c.partitions(), List.of(),
                c.maxFrameBytes(), c.planCacheSize(), transactions, c.limits(), c.tls(), catalog);
        config.validate();
        this.server = RouterServer.start(config);
    }

    /** Another router on the same backends and databases with {@code config} (derived from {@code first.config}). */
    TestRouter(TestRouter first, RouterConfig config) throws IOException, SQLException {
        this.shards = first.shards;
        this.servers = first.servers;
        this.database = first.database;
        this.config = config;
        config.validate();
        this.server = RouterServer.start(config);
    }

    /** {@code first}'s config for another router named {@code name}, listening on {@code listen}, with these lookups and placement settings. */
    static RouterConfig configLike(TestRouter first, String name, String listen, List<RouterConfig.LookupSource> lookups,
                                   RouterConfig.Placement placement) {
        var c = first.config;
        var t = c.transactions();
        var transactions = new RouterConfig.Transactions(name, t.lockWaitSeconds(), t.recoverySeconds(), t.recoveryGraceSeconds(),
                t.prepareTimeoutMillis(), t.decisionTimeoutMillis(), t.commitTimeoutMillis(), t.deadlockCheckMillis());
        return new RouterConfig(listen, c.database(), c.schema(), c.users(), c.backends(), c.partitions(), lookups,
                c.maxFrameBytes(), c.planCacheSize(), transactions, c.limits(), c.tls(), c.catalog(), placement);
    }

    String url() {
        return "jdbc:lutra://127.0.0.1:" + server.port() + "/" + database;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), USER, PASSWORD);
    }

    /** {@code jdbc:mysql://} (or {@code jdbc:mariadb://}, by {@code scheme}) to the router's MySQL listener, with {@code options}. */
    String mysqlUrl(String scheme, String options) {
        return "jdbc:" + scheme + "://127.0.0.1:" + server.mysqlPort() + "/" + database + (options.isEmpty() ? "" : "?" + options);
    }

    /** Connector/J straight at the router's MySQL listener. */
    Connection connectMysql(String options) throws SQLException {
        return DriverManager.getConnection(mysqlUrl("mysql", options), USER, PASSWORD);
    }

    /** A plain MariaDB connection to partition {@code p}'s database, bypassing the router. */
    Connection partition(int p) throws SQLException {
        return DriverManager.getConnection(shards.url(p % servers, database + "_p" + p), shards.user(), shards.password());
    }

    /** Stops the router and leaves its partitions' databases (another router on them goes on). */
    void stopRouter() {
        server.close();
    }

    @Override
    public void close() throws SQLException {
        server.close();
        for (int i = 0; i < shards.size(); i++) {
            try (var c = shards.connect(i % servers); var st = c.createStatement()) {
                st.execute("SET SESSION lock_wait_timeout = 60"); // a leaked transaction fails the drop, not the build
                st.execute("DROP DATABASE IF EXISTS `" + database + "_p" + i + "`");
            }
        }
    }
}
