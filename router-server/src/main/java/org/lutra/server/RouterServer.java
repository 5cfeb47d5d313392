package org.lutra.server;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.LiveCatalog;
import org.lutra.ddl.CatalogLease;
import org.lutra.ddl.CatalogSeed;
import org.lutra.ddl.DdlRunner;
import org.lutra.catalog.Partition;
import org.lutra.catalog.SchemaParser;
import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.lutra.exec.Executor;
import org.lutra.placement.PlacementTables;
import org.lutra.exec.Stats;
import org.lutra.maintain.RouterLoader;
import org.lutra.plan.Planner;
import org.lutra.txn.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.SQLException;
import java.util.List;

/**
 * The router: reads the schema, opens the backends, fills the lookup tables, then accepts driver
 * connections ({@link LutraListener}) and, where configured, MySQL clients' ({@code mysql.MysqlListener}).
 */
public final class RouterServer implements AutoCloseable {
    public static final String VERSION = "Lutra 0.1.0";
    private static final Logger log = LoggerFactory.getLogger(RouterServer.class);

    private final RouterConfig config;
    private final LiveCatalog catalog;
    private final CatalogLease lease;
    private final DdlRunner ddl;
    private final Backends backends;
    private final Planner planner;
    private final Executor executor;
    private final org.lutra.maintain.MoveJobs moves;
    private final Transactions transactions;
    private final BackendIdentity backendIdentity;
    private volatile List<RouterLoader.Loaded> loaded = List.of();
    /** Where the lookup tables came from at start (null while warming up). */
    private volatile org.lutra.maintain.LookupStart.Started started;
    private final org.lutra.maintain.PlacementTailer tailer;
    private final LutraListener listener;
    /** TLS on the client port, or null for plaintext. */
    private final ClientTls tls;
    private final Credentials credentials;
    private final LoginThrottle loginThrottle;
    private final ClientSessions sessions;
    private final LoginGate loginGate = new LoginGate(this, "lutra");
    /** Closes sockets whose deadline passed (a login not finished in time) and sweeps idle sessions. */
    private final java.util.concurrent.ScheduledExecutorService deadlines = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("lutra-deadlines").unstarted(r));
    /** The MySQL-protocol listener, or null when the config has none. */
    private volatile org.lutra.server.mysql.MysqlListener mysql;

    /** Where the engine reports what it did (org.lutra.ops), RouterMetrics.NONE without monitoring. */
    private final org.lutra.exec.RouterMetrics metrics;

    private RouterServer(RouterConfig config, org.lutra.exec.RouterMetrics metrics) throws IOException, SQLException {
        this.config = config;
        this.metrics = metrics;
        this.sessions = new ClientSessions(config.limits(), metrics);
        List<String> partitionNames = config.partitions().stream().map(RouterConfig.PartitionPlacement::name).toList();
        // the stored catalog wins; the schema file seeds it with the tables it never held (CatalogSeed)
        var stored = CatalogSeed.load(config, SchemaParser.parse(Files.readString(config.schema()), partitionNames));
        Catalog start;
        try {
            start = SchemaParser.rebuild(stored.liveCreateTexts(), partitionNames, null);
        } catch (org.lutra.catalog.SchemaException e) {
            throw new SQLException("cannot read the stored catalog (version " + stored.version() + "): " + e.getMessage(), "HY000", 0, e);
        }
        this.catalog = new LiveCatalog(start, stored.version());
        this.backends = Backends.open(config, start, PlacementTables::install);
        Transactions txns = null;
        CatalogLease catalogLease = null;
        try {
            this.backendIdentity = BackendIdentity.read(backends);
            // In-doubt branches are resolved first, so the key scan below sees what they committed.
            this.transactions = txns = new Transactions(backends, config.transactions(), metrics);
            org.lutra.maintain.Collations.learn(start, backends); // before any key is routed or loaded
            var limits = config.limits();
            // no statement longer than a frame arrives: the shorter bounds what @@max_allowed_packet tells clients
            int longest = Math.min(limits.maxStatementBytes(), config.maxFrameBytes());
            this.planner = new Planner(start, config.database(), new Planner.Limits(longest, limits.maxNestingDepth(),
                    limits.maxOperatorChain(), limits.parseTimeoutMillis(), limits.planCacheBytes()));
            this.executor = new Executor(backends, metrics);
            this.tailer = new org.lutra.maintain.PlacementTailer(catalog, backends, executor.stats(), config.placement().logKeepSeconds());
            catalog.listen(new LiveCatalog.Listener() {
                @Override
                public void tableAdded(org.lutra.catalog.TableDef table) {
                    // a lookup group's placement table and triggers, as the start installs them for the tables it knows
                    for (int p : table.partitioning().partitions()) {
                        try (var c = backends.placement(p).borrow(); var st = c.createStatement()) {
                            org.lutra.placement.PlacementRows.install(st, backends.catalog(), table, p);
                        } catch (SQLException e) {
                            throw new IllegalStateException("cannot install the placement trigger of " + table.name() + " on partition " + p + ": "
                                    + e.getMessage(), e);
                        }
                    }
                }

                @Override
                public void installed(Catalog next, long version) {
                    planner.catalogChanged(next);
                    backends.catalogChanged(next);
                }
            });
            this.lease = catalogLease = new CatalogLease(config, catalog, backends);
            catalogLease.start(); // catches up with DDL other routers ran while this one loaded
            backends.fence().use(catalogLease::requireFresh);
            this.ddl = new DdlRunner(config, catalog, catalogLease, backends);
            this.moves = new org.lutra.maintain.MoveJobs(backends, config.transactions().routerName(), OwnTransaction.factory(txns), config.catalog(),
                    executor::moved);
            moves.install();
            this.tls = config.tls() == null ? null : ClientTls.load(config.tls());
            this.credentials = new Credentials(config.users());
            this.loginThrottle = new LoginThrottle(limits);
            if (config.trace() != null) txns.tracing(startTrace(config, start));
            this.listener = LutraListener.bind(this, config.listenHost(), config.listenPort());
        } catch (IOException | SQLException | RuntimeException e) {
            if (catalogLease != null) catalogLease.close();
            if (txns != null) txns.close();
            backends.close();
            throw e;
        }
    }

    /** The recording of live traffic the config asks for, its SAME AS tables from the catalog (docs/traces.md). */
    private static org.lutra.trace.TraceRecorder startTrace(RouterConfig config, Catalog catalog) throws IOException {
        var trace = config.trace();
        var sameAs = new java.util.HashMap<String, String>();
        for (var t : catalog.tables()) {
            if (t.partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp l && !l.owner().equalsIgnoreCase(t.name())) sameAs.put(t.name(), l.owner());
        }
        var recorder = org.lutra.trace.TraceRecorder.start(trace.file(), trace.sample(), trace.maxTransactions(), sameAs, List.of(
                "recorded by router '" + config.transactions().routerName() + "' from " + java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                        + ", sample " + trace.sample() + ", at most " + trace.maxTransactions() + " transactions",
                "keys: the routing column's values; a SAME AS table's rows name their owner's key"));
        log.info("recording a trace of {}% of transactions to {} (at most {})", 100 * trace.sample(), trace.file(), trace.maxTransactions());
        return recorder;
    }

    /** Starts a router; returns once it is accepting connections. */
    public static RouterServer start(RouterConfig config) throws IOException, SQLException {
        return start(config, org.lutra.exec.RouterMetrics.NONE);
    }

    /** As {@link #start(RouterConfig)}, reporting to {@code metrics} (org.lutra.ops.Operations starts a router so). */
    public static RouterServer start(RouterConfig config, org.lutra.exec.RouterMetrics metrics) throws IOException, SQLException {
        var server = new RouterServer(config, metrics);
        server.listener.start();
        try {
            if (config.mysql() != null) server.mysql = org.lutra.server.mysql.MysqlListener.start(server, config.mysql().listen());
            server.warmUp();
            server.moves.resumeMine(); // the moves this router was running when it stopped
        } catch (SQLException | IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        long idleNanos = config.limits().idleTimeoutSeconds() * 1_000_000_000L;
        long sweep = Math.max(100, Math.min(1_000, config.limits().idleTimeoutSeconds() * 250L));
        server.deadlines.scheduleWithFixedDelay(() -> server.sessions.closeIdle(System.nanoTime(), idleNanos), sweep, sweep,
                java.util.concurrent.TimeUnit.MILLISECONDS);
        log.info("{} listening on {}:{} for database '{}' ({} partitions), {}", VERSION, config.listenHost(), server.port(),
                config.database(), server.catalog.current().partitions().size(),
                server.tls == null ? "plaintext (no tls in the config)" : "TLS only, certificate " + server.tls.description());
        return server;
    }

    /**
     * Loads the lookup tables (a peer's, the snapshot file's or a backend scan: LookupStart) while the router already
     * answers: until they are in, every key misses and goes to its home, where the home rows say where it lives. Then
     * tails the change log from the position the tables reflect, and saves the snapshot file periodically.
     */
    private void warmUp() throws SQLException, IOException {
        org.lutra.placement.FailPoints.reach(org.lutra.placement.FailPoints.BEFORE_LOOKUP_LOAD);
        var from = org.lutra.maintain.LookupStart.load(catalog.current(), backends, config);
        tailer.seek(from.positions());
        try {
            tailer.pollOnce();
        } catch (SQLException e) {
            log.warn("placement log: {} (tailing goes on)", e.getMessage());
        }
        this.loaded = from.loaded();
        this.started = from;
        executor.stats().logPositions(tailer::positions);
        var placement = config.placement();
        tailer.start(placement.logPollMillis());
        if (placement.snapshotFile() != null && placement.snapshotIntervalSeconds() > 0) {
            deadlines.scheduleWithFixedDelay(this::saveSnapshot, placement.snapshotIntervalSeconds(), placement.snapshotIntervalSeconds(),
                    java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Writes the snapshot file (placement.snapshot_file), if there is one; a failure is logged, never fatal. */
    public void saveSnapshot() {
        var file = config.placement().snapshotFile();
        if (file == null || started == null) return;
        try {
            long begin = System.nanoTime();
            org.lutra.maintain.LookupStart.save(catalog.current(), tailer.positions(), file);
            log.info("lookup snapshot written to {} in {} ms", file, (System.nanoTime() - begin) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            log.warn("lookup snapshot {} not written: {}", file, e.getMessage());
        }
    }

    /** Where this router's lookup tables came from at start, and how long that took; null while it is warming up. */
    public org.lutra.maintain.LookupStart.Started started() {
        return started;
    }

    /** The change-log tailer (tests stop or step it). */
    public org.lutra.maintain.PlacementTailer tailer() {
        return tailer;
    }

    /** The client connections of every listener. */
    public ClientSessions sessions() {
        return sessions;
    }

    /** The logins' shared checks (throttle, database, sessions per user). */
    public LoginGate loginGate() {
        return loginGate;
    }

    /** The logins' shared checks for another listener, {@code listener} as the metrics name it ("mysql"). */
    public LoginGate loginGate(String listener) {
        return new LoginGate(this, listener);
    }

    /** The session of {@code user}, logged in from {@code address} through any listener. */
    public SessionCore openSession(long id, String user, String address) {
        return new SessionCore(id, user, address, this);
    }

    /** Open result sets one session may stream from the shards at once: each holds a connection of every partition it reads. */
    int streamingCursorsPerSession() {
        return Math.max(1, config.backends().stream().mapToInt(RouterConfig.Backend::poolSize).min().orElse(16) / 4);
    }

    /** Backend connections borrowed from the partition pools right now: 0 when no statement runs and no cursor or transaction is open. */
    public int activeBackendConnections() {
        return backends.activeConnections();
    }

    /** Backend connections the backend watch still counts as borrowed (it forgets returned and evicted ones). */
    public int watchedBackendConnections() {
        return backends.placements().stream().mapToInt(p -> p.waiting().size()).sum();
    }

    /** Every partition's placement: its backend, database and pools (health checks, the console). */
    public List<Backends.Placement> placements() {
        return backends.placements();
    }

    public int port() {
        return listener.port();
    }

    /** The MySQL-protocol listener's port; -1 when the config has none. */
    public int mysqlPort() {
        var m = mysql;
        return m == null ? -1 : m.port();
    }

    /** The session's evaluator of sequence functions (docs/ids-and-sequences.md). */
    SequenceValues sequenceValues() {
        return new SequenceValues(planner::catalog, backends, lease, config.database());
    }

    public RouterConfig config() {
        return config;
    }

    /** The catalog the router routes by now. */
    public Catalog catalog() {
        return catalog.current();
    }

    /** The live catalog: its version, and where a listener hears tables come and go. */
    public LiveCatalog liveCatalog() {
        return catalog;
    }

    CatalogLease lease() {
        return lease;
    }

    DdlRunner ddl() {
        return ddl;
    }

    public Stats stats() {
        return executor.stats();
    }

    /** Where the engine reports what it did (RouterMetrics.NONE without monitoring). */
    public org.lutra.exec.RouterMetrics metrics() {
        return metrics;
    }

    public List<RouterLoader.Loaded> loaded() {
        return loaded;
    }

    public List<Partition> partitions() {
        return catalog.current().partitions();
    }

    public int openSessions() {
        return sessions.count();
    }

    public Planner planner() {
        return planner;
    }

    /** The moves of every router over these partitions (SHOW MOVES). */
    public org.lutra.maintain.MoveJobs moves() {
        return moves;
    }

    Executor executor() {
        return executor;
    }

    /** Where sessions take MySQL's user-level locks: partition 0's server, which every router over these partitions shares. */
    org.lutra.backend.Backends.Placement lockPlacement() {
        return backends.placement(0);
    }

    public Transactions transactions() {
        return transactions;
    }

    public ClientTls tls() {
        return tls;
    }

    public Credentials credentials() {
        return credentials;
    }

    LoginThrottle loginThrottle() {
        return loginThrottle;
    }

    /** VERSION() of the backends (the lowest where they differ), e.g. "11.4.5-MariaDB": what the MySQL listener's greeting names. */
    public String backendVersion() {
        return backendIdentity.version();
    }

    BackendIdentity backendIdentity() {
        return backendIdentity;
    }

    /** Runs {@code action} after {@code millis} unless the returned future is cancelled first. */
    public java.util.concurrent.ScheduledFuture<?> after(long millis, Runnable action) {
        return deadlines.schedule(action, millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        listener.close();
        var m = mysql;
        if (m != null) m.close();
        moves.close();
        sessions.closeAll();
        deadlines.shutdownNow();
        saveSnapshot();
        tailer.close();
        lease.close();
        transactions.close();
        backends.close();
    }
}
