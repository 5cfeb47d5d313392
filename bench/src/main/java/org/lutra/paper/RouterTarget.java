package org.lutra.paper;

import org.lutra.workload.Placement;
import org.lutra.workload.Scheme;
import org.lutra.workload.Workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A router (in the benchmark's {@link RouterHost} process) over the first {@code n} backends of a cluster, one partition each, with a
 * workload's schema for one scheme, its lookup maps, and its rows loaded through the router.
 */
final class RouterTarget implements Target {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    static final String USER = "bench";
    static final String PASSWORD = "bench";

    private final Cluster cluster;
    private final String scheme;
    private final int backends;
    private final String database;
    private final RouterHostProcess host;
    private final String url;
    private final Connection status;

    private RouterTarget(Cluster cluster, String scheme, int backends, String database, RouterHostProcess host, int port) throws SQLException {
        this.cluster = cluster;
        this.scheme = scheme;
        this.backends = backends;
        this.database = database;
        this.host = host;
        this.url = "jdbc:lutra://127.0.0.1:" + port + "/" + database;
        this.status = DriverManager.getConnection(url, USER, PASSWORD);
    }

    /**
     * Writes the run's schema and router config under {@code dir} (the maps are in {@code dir/maps}, the router's
     * map_dir), starts the router, places every key of each map with {@code LOAD LOOKUP TABLE} and then loads the rows.
     */
    static RouterTarget deploy(Cluster cluster, RouterHostProcess host, Workload workload, Scheme scheme, int backends, Placement placement,
                               int clients, Path dir, Terminal terminal) throws IOException, SQLException {
        if (backends > cluster.size()) throw new IllegalArgumentException(backends + " backends asked, the cluster has " + cluster.size());
        String database = String.format(Locale.ROOT, "lb_%s_%s%d_%d", workload.name(), scheme.name().replaceAll("[^a-z0-9]", ""), backends,
                SEQUENCE.incrementAndGet());
        Path mapDir = dir.resolve("maps");
        Files.createDirectories(mapDir);
        Files.writeString(dir.resolve("schema.sql"), workload.schema(scheme, backends));
        for (var map : placement.maps()) { // the router reads map files only inside its map_dir
            if (!Files.isSameFile(mapDir, map.file().toAbsolutePath().getParent())) {
                Files.copy(map.file(), mapDir.resolve(map.file().getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        var yaml = new StringBuilder();
        yaml.append("database: ").append(database).append('\n')
                .append("schema: schema.sql\n")
                .append("users:\n  - { name: ").append(USER).append(", password: ").append(PASSWORD).append(" }\n")
                .append("backends:\n");
        for (int i = 0; i < backends; i++) {
            // a transaction holds a connection on each partition it touches until it ends, and a join or a subquery that the
            // router materializes takes one of the partition's scratch connections (a quarter of the pool): room for every client
            yaml.append(String.format(Locale.ROOT, "  - { name: shard%d, url: \"%s\", user: %s, password: \"%s\", pool_size: %d }%n",
                    i, cluster.backendUrl(i), cluster.user(), cluster.password(), 4 * clients + 8));
        }
        yaml.append("partitions:\n");
        for (int i = 0; i < backends; i++) yaml.append("  - { name: p").append(i).append(", backend: shard").append(i).append(" }\n");
        yaml.append("lookups: []\n"); // the maps are loaded with LOAD LOOKUP TABLE, as an administrator loads a partitioner's
        yaml.append("placement:\n  log_poll_ms: -1\n") // one router: no other router's changes to follow
                .append("transactions:\n  router_name: bench").append(SEQUENCE.get()).append('\n')
                .append("catalog:\n  map_dir: maps\n  move_pause_ms: -1\n");
        int port = startOnAFreePort(host, dir.resolve("router.yaml"), yaml.toString());
        RouterTarget target;
        try {
            target = new RouterTarget(cluster, scheme.name(), backends, database, host, port);
        } catch (SQLException e) {
            host.stopRouter();
            throw e;
        }
        try (Connection c = target.connect()) {
            for (var map : placement.maps()) {
                // the tables are empty: LOAD places every key at once (its plan's "place" rows), and nothing is left to move.
                // (APPLY would hand the rowless keys to a background move, which then moves the rows loaded before it reaches
                // them, during the measured run.)
                String load = "LOAD LOOKUP TABLE " + map.table() + " FROM '" + map.file().getFileName() + "' FORMAT csv";
                terminal.progress("  " + target.label() + ": " + load);
                try (var st = c.createStatement(); var plan = st.executeQuery(load)) {
                    while (plan.next()) {
                        String action = plan.getString("Action");
                        if (!action.equals("place") && !action.equals("in place")) {
                            throw new SQLException(load + ": '" + action + "' for " + plan.getLong("Keys") + " keys: the tables should be empty", "HY000");
                        }
                    }
                } catch (SQLException e) {
                    throw new SQLException(load + ": " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
                }
            }
            boolean replicated = placement.maps().stream().anyMatch(Placement.MapFile::replicated) || !placement.statements().isEmpty();
            Loader.load(target::connect, workload.data(), terminal, target.label(), replicated ? 1 : 4);
            int done = 0;
            for (String statement : placement.statements()) {
                terminal.progress("  " + target.label() + ": placing, " + (++done) + " of " + placement.statements().size() + " statements");
                try (var st = c.createStatement()) {
                    st.execute(statement);
                }
            }
            for (String ddl : workload.afterLoad(scheme)) {
                terminal.progress("  " + target.label() + ": " + ddl);
                try (var st = c.createStatement()) {
                    st.execute(ddl);
                } catch (SQLException e) {
                    throw new SQLException(ddl + ": " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
                }
            }
        } catch (SQLException | RuntimeException e) {
            target.close();
            throw e;
        }
        return target;
    }

    String label() {
        return scheme + " on " + backends + " backend" + (backends == 1 ? "" : "s");
    }

    @Override
    public String scheme() {
        return scheme;
    }

    @Override
    public int backends() {
        return backends;
    }

    @Override
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, USER, PASSWORD);
    }

    @Override
    public List<Connection> databases() throws SQLException {
        var out = new ArrayList<Connection>();
        try {
            for (int i = 0; i < backends; i++) out.add(cluster.direct(i, database + "_p" + i));
        } catch (SQLException e) {
            for (Connection c : out) c.close();
            throw e;
        }
        return out;
    }

    @Override
    public List<String> awaitNoMoves(double seconds) throws SQLException, InterruptedException {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (true) {
            var running = new ArrayList<String>();
            try (var rs = status.createStatement().executeQuery("SHOW MOVES")) {
                while (rs.next()) {
                    String state = rs.getString("State");
                    if (!state.equals("done")) running.add("move " + rs.getLong("Id") + " (" + rs.getString("Statement") + ") " + state);
                }
            }
            if (running.isEmpty() || System.nanoTime() > until) return running;
            Thread.sleep(200);
        }
    }

    @Override
    public RouterStatus routerStatus() throws SQLException {
        return RouterStatus.read(status, backends);
    }

    @Override
    public long routerCpuTicks() {
        return ProcFs.processTicks(host.pid());
    }

    @Override
    public long routerJitTicks() {
        return host.compilerTicks();
    }

    @Override
    public void close() {
        try {
            status.close();
        } catch (SQLException ignored) {
            // the router is going away anyway
        }
        try {
            host.stopRouter();
        } catch (IOException e) {
            System.err.println("stopping the router: " + e.getMessage());
        }
        var dbs = new ArrayList<String>();
        for (int i = 0; i < backends; i++) dbs.add(database + "_p" + i);
        Cluster.dropDatabases(cluster, backends, dbs);
    }

    /**
     * Starts the router on a port free when probed; another process (a test JVM beside this one) may take it before the
     * router binds it, so a port found taken is probed again, a few times.
     */
    private static int startOnAFreePort(RouterHostProcess host, Path config, String yaml) throws IOException {
        for (int attempt = 1; ; attempt++) {
            int port = org.lutra.cli.bench.RouterProcess.freePort();
            Files.writeString(config, "listen: 127.0.0.1:" + port + "\n" + yaml);
            try {
                host.startRouter(config);
                return port;
            } catch (IOException e) {
                if (attempt == 3 || e.getMessage() == null || !e.getMessage().contains("Address already in use")) throw e;
            }
        }
    }
}
