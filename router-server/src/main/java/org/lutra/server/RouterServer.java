package org.lutra.server;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.LiveCatalog;
import org.lutra.ddl.CatalogLease;
import org.lutra.ddl.CatalogSeed;
import org.lutra.ddl.DdlRunner;
import org.lutra.catalog.Partition;
import org.lutra.catalog.SchemaParser;
import org.lutra.config.RouterConfig;
import org.lutra.exec.Backends;
import org.lutra.exec.Executor;
import org.lutra.exec.Stats;
import org.lutra.maintain.RouterLoader;
import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.plan.Planner;
import org.lutra.protocol.Column;
import org.lutra.protocol.Frames;
import org.lutra.protocol.Row;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;
import org.lutra.txn.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The router: reads the schema, opens the backends, fills the lookup tables, then accepts driver
 * connections, one virtual thread per session.
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
    private final ServerSocket listener;
    /** TLS on the client port, or null for plaintext. */
    private final ClientTls tls;
    private final Credentials credentials;
    private final LoginThrottle loginThrottle;
    private final Set<ClientConnection> sessions = ConcurrentHashMap.newKeySet();
    private final LoginGate loginGate = new LoginGate(this, "lutra");
    /** Closes sockets whose deadline passed (a login not finished in time) and sweeps idle sessions. */
    private final java.util.concurrent.ScheduledExecutorService deadlines = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("lutra-deadlines").unstarted(r));
    private final AtomicLong sessionIds = new AtomicLong();
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> userSessions = new ConcurrentHashMap<>();
    static final long SESSION_STACK_BYTES = 4 << 20;
    private final Thread acceptor;
    /** The MySQL-protocol listener, or null when the config has none. */
    private volatile org.lutra.server.mysql.MysqlListener mysql;

    /** Where the engine reports what it did (org.lutra.ops), RouterMetrics.NONE without monitoring. */
    private final org.lutra.exec.RouterMetrics metrics;

    private RouterServer(RouterConfig config, org.lutra.exec.RouterMetrics metrics) throws IOException, SQLException {
        this.config = config;
        this.metrics = metrics;
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
        this.backends = Backends.open(config, start);
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
                            org.lutra.exec.PlacementRows.install(st, backends.catalog(), table, p);
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
            // a channel's server socket: it accepts channels' sockets, which FrameReader and FrameWriter read and write
            // without the JDK's per-call temporary buffers
            if (config.trace() != null) txns.tracing(startTrace(config, start));
            this.listener = java.nio.channels.ServerSocketChannel.open().socket();
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(InetAddress.getByName(config.listenHost()), config.listenPort()), 256);
        } catch (IOException | SQLException | RuntimeException e) {
            if (catalogLease != null) catalogLease.close();
            if (txns != null) txns.close();
            backends.close();
            throw e;
        }
        this.acceptor = Thread.ofPlatform().name("lutra-accept").daemon(true).unstarted(this::acceptLoop);
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
        server.acceptor.start();
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
        server.deadlines.scheduleWithFixedDelay(() -> {
            long now = System.nanoTime();
            server.sessions.forEach(session -> session.closeIfIdle(now, idleNanos));
        }, sweep, sweep, java.util.concurrent.TimeUnit.MILLISECONDS);
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
        org.lutra.exec.FailPoints.reach(org.lutra.exec.FailPoints.BEFORE_LOOKUP_LOAD);
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

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                if (!roomForAnotherSession()) {
                    refuse(socket);
                    continue;
                }
                var session = new Session(nextSessionId(), socket, this);
                sessionStarted(session);
                // A platform thread per session: a session blocks on its client and its backends in
                // turn, and a blocking read on a platform thread is one system call, where a virtual
                // thread parks, registers with the poller and is handed back to a carrier
                // (measured side by side: virtual-thread sessions cost about twice the router CPU per point select at 1 client).
                // 4 MB of stack, not the default 1: the parser and the planner recurse per level of a statement, and
                // the nesting and operator-chain limits (Guards) are set for this much (reserved, committed as used);
                // 2 MB overflowed on a 2,000-term sum (the chain limit) planned in a cold JVM (HostileInputIT)
                Thread.ofPlatform().daemon().name("lutra-session-" + sessionIds.get()).stackSize(SESSION_STACK_BYTES).start(session);
            } catch (IOException e) {
                if (!listener.isClosed()) log.warn("accept failed: {}", e.getMessage());
            }
        }
    }

    /** Sessions beyond max_sessions are told so (MySQL's 1040, in place of the challenge) and closed, on the acceptor thread. */
    private void refuse(Socket socket) {
        metrics.sessionRefused("lutra", "max_sessions");
        log.warn("refused a connection from {}: {} sessions open (max_sessions)", socket.getRemoteSocketAddress(), sessions.size());
        try {
            socket.setSoTimeout(1_000);
            Frames.write(socket.getOutputStream(), ServerMessage.newBuilder().setError(org.lutra.protocol.Error.newBuilder()
                    .setSqlState("08004").setVendorCode(1040).setMessage("Too many connections (max_sessions = "
                            + config.limits().maxSessions() + ")")).build());
        } catch (IOException ignored) {
            // the client is gone already
        } finally {
            Session.close(socket);
        }
    }

    /** Whether a new connection may start (max_sessions counts connections of every listener, logged in or not). */
    public boolean roomForAnotherSession() {
        return sessions.size() < config.limits().maxSessions();
    }

    /** A new session id, unique across listeners: MySQL clients see it as their connection id. */
    public long nextSessionId() {
        return sessionIds.incrementAndGet();
    }

    /** Tracks a new connection of any listener (idle sweep, KILL, max_sessions); {@link #sessionEnded} forgets it. */
    public void sessionStarted(ClientConnection connection) {
        sessions.add(connection);
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

    private static final long KILL_WAIT_MILLIS = 5_000;

    /**
     * KILL [QUERY] {@code target} from a session of {@code user}: stops that session's statement, or closes its
     * connection. MySQL's errors for an id no session has (1094) and for another user's session (1095).
     */
    void kill(String user, long target, boolean queryOnly) throws SQLException {
        // answered after the stopped statement's error (Connector/J's cancel() reports a 1317 it reads after the KILL's
        // answer as its own MySQLStatementCancelledException, error 0); a statement slow to stop does not hold the KILL longer
        var found = sessions.stream().filter(s -> s.id() == target).findFirst().orElse(null);
        var core = found == null ? null : found.core();
        if (core == null) throw new SQLException("Unknown thread id: " + target, "HY000", 1094);
        if (!core.user().equals(user)) throw new SQLException("You are not owner of thread " + target, "HY000", 1095);
        log.info("session {}: {} by KILL from a session of its user", target, queryOnly ? "statement stopped" : "connection closed");
        core.cancel(0);
        if (queryOnly) found.awaitCommandEnd(KILL_WAIT_MILLIS);
        else found.close();
    }

    /**
     * Counts a logged-in session of {@code user}; false (and nothing counted) if the user is at max_sessions_per_user, a refusal
     * the metrics count for {@code listener}.
     */
    boolean userSessionStarted(String user, String listener) {
        int max = config.limits().maxSessionsPerUser();
        var count = userSessions.computeIfAbsent(user, u -> new java.util.concurrent.atomic.AtomicInteger());
        if (count.incrementAndGet() > max && max > 0) {
            count.decrementAndGet();
            metrics.sessionRefused(listener, "max_sessions_per_user");
            return false;
        }
        return true;
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
        return listener.getLocalPort();
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
        return sessions.size();
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
    org.lutra.exec.Backends.Placement lockPlacement() {
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

    /** SHOW LUTRA STATUS: (Variable_name, Value) rows, as MySQL's SHOW STATUS. */
    RowSource statusRows() {
        var txn = transactions.stats();
        var values = new LinkedHashMap<String, Object>();
        values.put("sessions", sessions.size());
        values.put("backend_connections_active", backends.activeConnections());
        values.put("plan_cache_bytes", planner.cachedPlanBytes());
        values.put("statements_single_partition", executor.stats().singlePartition());
        values.put("statements_multi_partition", executor.stats().multiPartition());
        values.put("statements_by_partitions", executor.stats().statementPartitions().toString());
        values.put("lookup_fallbacks", executor.stats().fallbacks());
        values.put("lookup_learned", executor.stats().learned());
        var from = started;
        values.put("lookup_start_source", from == null ? "warming up" : from.source());
        values.put("lookup_start_ms", from == null ? "" : from.millis());
        values.put("lookup_log_position", java.util.Arrays.toString(tailer.positions()));
        values.put("txn_one_phase_commits", txn.onePhaseCommits.sum());
        values.put("txn_two_phase_commits", txn.twoPhaseCommits.sum());
        values.put("txn_by_partitions", txn.partitions.toString());
        values.put("txn_rollbacks", txn.rollbacks.sum());
        values.put("txn_aborts", txn.aborts.sum());
        values.put("txn_read_only_branches", txn.readOnlyBranches.sum());
        values.put("txn_prepare_ms_mean", String.format(Locale.ROOT, "%.3f", txn.prepare.meanMillis()));
        values.put("txn_decision_ms_mean", String.format(Locale.ROOT, "%.3f", txn.decision.meanMillis()));
        values.put("txn_commit_ms_mean", String.format(Locale.ROOT, "%.3f", txn.commit.meanMillis()));
        values.put("deadlocks_detected", txn.deadlocksDetected.sum());
        values.put("deadlocks_by_timeout", txn.deadlocksByTimeout.sum());
        values.put("deadlock_checks", txn.deadlockChecks.sum());
        values.put("deadlock_restarts", txn.deadlockRestarts.sum());
        values.put("xa_in_doubt_branches", transactions.recovery().inDoubt());
        values.put("xa_unreachable_partitions", transactions.recovery().unreachable());
        values.put("xa_recovered_commits", txn.recoveredCommits.sum());
        values.put("xa_recovered_rollbacks", txn.recoveredRollbacks.sum());
        var rows = new ArrayList<Row>();
        values.forEach((name, value) -> rows.add(Row.newBuilder()
                .addValues(Value.newBuilder().setStringValue(name)).addValues(Value.newBuilder().setStringValue(String.valueOf(value))).build()));
        return new ListRows(List.of(textColumn("Variable_name"), textColumn("Value")), rows);
    }

    private static Column textColumn(String name) {
        return Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.VARCHAR).setTypeName("VARCHAR")
                .setPrecision(64).setDisplaySize(64).setNullable(false).build();
    }

    /** Runs {@code action} after {@code millis} unless the returned future is cancelled first. */
    public java.util.concurrent.ScheduledFuture<?> after(long millis, Runnable action) {
        return deadlines.schedule(action, millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** A client's Statement.cancel(): the session with that id and key stops its statement. */
    void cancel(long sessionId, byte[] key, long requestId) {
        sessions.forEach(s -> {
            if (s instanceof Session lutra) lutra.cancel(sessionId, key, requestId);
        });
    }

    /** A connection of any listener ended; {@code user}: the user it was counted for at login, null if it never logged in. */
    public void sessionEnded(ClientConnection session, String user) {
        sessions.remove(session);
        if (user != null) userSessions.get(user).decrementAndGet();
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        var m = mysql;
        if (m != null) m.close();
        moves.close();
        sessions.forEach(ClientConnection::close);
        deadlines.shutdownNow();
        saveSnapshot();
        tailer.close();
        lease.close();
        transactions.close();
        backends.close();
    }
}
