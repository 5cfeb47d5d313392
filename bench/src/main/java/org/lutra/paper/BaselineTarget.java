package org.lutra.paper;

import org.lutra.workload.Workload;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The paper's "one machine": every row in one MariaDB (the cluster's first server, behind the
 * same gate or cap as every shard), the clients on Connector/J straight to it, configured as
 * HikariCP's documentation recommends for MySQL (server-side prepared statements, cached).
 */
final class BaselineTarget implements Target {
    static final String ONE_MACHINE = "one machine";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String CLIENT_OPTIONS = "?useServerPrepStmts=true&cachePrepStmts=true&prepStmtCacheSize=250&prepStmtCacheSqlLimit=2048"
            + "&useLocalSessionState=true&rewriteBatchedStatements=true&cacheResultSetMetadata=true&cacheServerConfiguration=true"
            + "&elideSetAutoCommits=true&maintainTimeStats=false&allowPublicKeyRetrieval=true&useSSL=false";

    /**
     * The measured clients' driver and options: MariaDB Connector/J with server-side prepared statements, as the router
     * reaches its shards, so that one machine's answers cost its shard what a partition's cost (Connector/J's reads of
     * prepared statements carry their column definitions every time, MariaDB Connector/J's do not).
     */
    private static final String MEASURED_OPTIONS = "?useServerPrepStmts=true&cachePrepStmts=true&prepStmtCacheSize=512";

    private final Cluster cluster;
    private final String database;

    private BaselineTarget(Cluster cluster, String database) {
        this.cluster = cluster;
        this.database = database;
    }

    static BaselineTarget deploy(Cluster cluster, Workload workload, Terminal terminal) throws SQLException {
        String database = "lb_" + workload.name() + "_base_" + SEQUENCE.incrementAndGet();
        try (Connection c = cluster.direct(0, null); var st = c.createStatement()) {
            st.execute("CREATE DATABASE `" + database + "`");
        }
        var target = new BaselineTarget(cluster, database);
        try (Connection c = DriverManager.getConnection(cluster.backendUrl(0) + database + CLIENT_OPTIONS, cluster.user(), cluster.password());
             var st = c.createStatement()) {
            for (String ddl : workload.plainSchema()) st.execute(ddl);
            Loader.load(() -> cluster.direct(0, database + CLIENT_OPTIONS), workload.data(), terminal, ONE_MACHINE);
        } catch (SQLException | RuntimeException e) {
            target.close();
            throw e;
        }
        return target;
    }

    @Override
    public String scheme() {
        return ONE_MACHINE;
    }

    @Override
    public int backends() {
        return 1;
    }

    @Override
    public Connection connect() throws SQLException {
        String url = cluster.backendUrl(0).replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
        return DriverManager.getConnection(url + database + MEASURED_OPTIONS, cluster.user(), cluster.password());
    }

    @Override
    public List<Connection> databases() throws SQLException {
        return List.of(cluster.direct(0, database));
    }

    @Override
    public RouterStatus routerStatus() {
        return null;
    }

    @Override
    public long routerCpuTicks() {
        return -1;
    }

    @Override
    public void close() {
        Cluster.dropDatabases(cluster, 1, List.of(database));
    }
}
