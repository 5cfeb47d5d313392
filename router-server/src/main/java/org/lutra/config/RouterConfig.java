package org.lutra.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * The router's YAML configuration. See config/demo.yaml for an annotated example.
 *
 * @param listen     host:port the router listens on for driver connections
 * @param database   the logical database name clients connect to
 * @param schema     the schema file (MySQL DDL plus partitioning clauses), relative to the config file
 * @param users      who may connect
 * @param backends   the MySQL/MariaDB servers
 * @param partitions logical partitions, each placed on one backend in its own database
 * @param lookups    extra lookup-table sources (map files) loaded after the key-column scan
 * @param planCacheSize ignored: the plan cache is bounded by {@code limits.plan_cache_bytes} (kept so that older configs load)
 * @param transactions how distributed transactions are run and recovered
 * @param limits     what one client, and all of them together, may cost the router
 * @param tls        TLS on the client port (docs/security.md); null = plaintext
 * @param catalog    the stored catalog's lease and the placement of CREATE TABLE without a placement clause
 * @param placement  how routers share placement changes and where a starting router takes its lookup tables from
 * @param trace      the recording of a sample of live transactions' keys (docs/traces.md); null = off
 * @param http       the HTTP listener: metrics, health, the placement console (docs/operations.md); null = off, and no metrics kept
 * @param slowLog    one log line per statement slower than a threshold (docs/operations.md); null = off
 * @param mysql      the MySQL-protocol listener (docs/mysql-protocol.md); null = off
 */
public record RouterConfig(
        String listen,
        String database,
        Path schema,
        List<User> users,
        List<Backend> backends,
        List<PartitionPlacement> partitions,
        List<LookupSource> lookups,
        @JsonProperty("max_frame_bytes") int maxFrameBytes,
        @JsonProperty("plan_cache_size") int planCacheSize,
        Transactions transactions,
        Limits limits,
        Tls tls,
        CatalogSettings catalog,
        Placement placement,
        Trace trace,
        Http http,
        @JsonProperty("slow_log") SlowLog slowLog,
        Mysql mysql) implements RuntimeSections, OperationsSections {

    /** Without an HTTP listener, slow-statement log or MySQL-protocol listener. */
    public RouterConfig(String listen, String database, Path schema, List<User> users, List<Backend> backends,
                        List<PartitionPlacement> partitions, List<LookupSource> lookups, int maxFrameBytes, int planCacheSize,
                        Transactions transactions, Limits limits, Tls tls, CatalogSettings catalog, Placement placement, Trace trace) {
        this(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions, limits, tls, catalog,
                placement, trace, null, null, null);
    }

    /** This config with the HTTP listener {@code http} and the slow-statement log {@code slowLog} (either may be null). */
    public RouterConfig withOperations(Http http, SlowLog slowLog) {
        return new RouterConfig(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions,
                limits, tls, catalog, placement, trace, http, slowLog, mysql);
    }

    /** This config with the MySQL-protocol listener on {@code listen}. */
    public RouterConfig withMysql(String listen) {
        return new RouterConfig(this.listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions,
                limits, tls, catalog, placement, trace, http, slowLog, new Mysql(listen));
    }

    /** Without a trace: recording off. */
    public RouterConfig(String listen, String database, Path schema, List<User> users, List<Backend> backends,
                        List<PartitionPlacement> partitions, List<LookupSource> lookups, int maxFrameBytes, int planCacheSize,
                        Transactions transactions, Limits limits, Tls tls, CatalogSettings catalog, Placement placement) {
        this(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions, limits, tls, catalog,
                placement, null);
    }

    /** Without placement settings: every one at its default. */
    public RouterConfig(String listen, String database, Path schema, List<User> users, List<Backend> backends,
                        List<PartitionPlacement> partitions, List<LookupSource> lookups, int maxFrameBytes, int planCacheSize,
                        Transactions transactions, Limits limits, Tls tls, CatalogSettings catalog) {
        this(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions, limits, tls, catalog, null);
    }

    /**
     * Placement among several routers (docs/placement.md, "Several routers").
     *
     * @param logPollMillis     how often this router reads every partition's {@code lutra_placement_log} (default 200; negative: never)
     * @param logKeepSeconds    entries older than this are trimmed (default 3600)
     * @param snapshotFile      where this router saves its lookup tables (on close and every {@code snapshotIntervalSeconds})
     *                          and starts from when no peer answers; null: no snapshot file
     * @param snapshotIntervalSeconds how often the snapshot file is rewritten (default 300; negative: only on close)
     * @param peers             routers (host:port) asked, in order, for their lookup tables when this one starts
     * @param peerUser          the login this router uses with its peers (a user of theirs)
     * @param peerPassword      its password
     * @param peerVerifyHostname with {@code tls:}, whether a peer's certificate must also name the host it is reached by
     *                          (default false: the chain is checked against this router's own, which is what routers sharing
     *                          a config present, and peers are often named by an address the certificate does not list)
     */
    public record Placement(@JsonProperty("log_poll_ms") int logPollMillis, @JsonProperty("log_keep_seconds") int logKeepSeconds,
                            @JsonProperty("snapshot_file") Path snapshotFile,
                            @JsonProperty("snapshot_interval_seconds") int snapshotIntervalSeconds, List<String> peers,
                            @JsonProperty("peer_user") String peerUser, @JsonProperty("peer_password") String peerPassword,
                            @JsonProperty("peer_verify_hostname") boolean peerVerifyHostname) {
        public Placement {
            logPollMillis = logPollMillis == 0 ? 200 : logPollMillis;
            logKeepSeconds = logKeepSeconds <= 0 ? 3600 : logKeepSeconds;
            snapshotIntervalSeconds = snapshotIntervalSeconds == 0 ? 300 : snapshotIntervalSeconds;
            peers = peers == null ? List.of() : List.copyOf(peers);
            if (!peers.isEmpty() && peerUser == null) {
                throw new IllegalArgumentException("config: placement.peers needs peer_user and peer_password (a login of the peers)");
            }
        }

        /** Without a host name check on peers (the default). */
        public Placement(int logPollMillis, int logKeepSeconds, Path snapshotFile, int snapshotIntervalSeconds, List<String> peers,
                         String peerUser, String peerPassword) {
            this(logPollMillis, logKeepSeconds, snapshotFile, snapshotIntervalSeconds, peers, peerUser, peerPassword, false);
        }

        public static Placement defaults() {
            return new Placement(0, 0, null, 0, null, null, null);
        }

        @Override
        public String toString() { // the peer password stays out of logs
            return "Placement[log_poll_ms=" + logPollMillis + ", log_keep_seconds=" + logKeepSeconds + ", snapshot_file=" + snapshotFile
                    + ", snapshot_interval_seconds=" + snapshotIntervalSeconds + ", peers=" + peers + ", peer_user=" + peerUser + ", peer_verify_hostname=" + peerVerifyHostname + "]";
        }

        Placement resolve(Path dir) {
            return snapshotFile == null ? this
                    : new Placement(logPollMillis, logKeepSeconds, dir.resolve(snapshotFile), snapshotIntervalSeconds, peers, peerUser, peerPassword,
                    peerVerifyHostname);
        }
    }

    /** Without catalog settings: every one at its default. */
    public RouterConfig(String listen, String database, Path schema, List<User> users, List<Backend> backends,
                        List<PartitionPlacement> partitions, List<LookupSource> lookups, int maxFrameBytes, int planCacheSize,
                        Transactions transactions, Limits limits, Tls tls) {
        this(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions, limits, tls, null);
    }

    /**
     * The stored catalog (docs/ddl.md).
     *
     * @param leaseMillis      a router routes only while it has read the catalog version within this long; a DDL that
     *                         changes or drops a table waits this long (and a quarter more) before it drops it or answers
     * @param defaultPlacement where CREATE TABLE without a placement clause puts rows: hash (on the first primary-key
     *                         column, over every partition; a table without a primary key is refused), replicated, refuse
     * @param mapDir           the only directory LOAD LOOKUP TABLE reads map files from (relative to the config file);
     *                         null: LOAD LOOKUP TABLE is refused
     * @param movePauseMillis  a move's sleep between two batches, leaving the partitions to other traffic (negative: none; 0: 10 ms)
     */
    public record CatalogSettings(@JsonProperty("lease_ms") int leaseMillis, @JsonProperty("default_placement") String defaultPlacement,
                                  @JsonProperty("map_dir") Path mapDir, @JsonProperty("move_pause_ms") int movePauseMillis) {
        public CatalogSettings {
            leaseMillis = leaseMillis <= 0 ? 2_000 : leaseMillis;
            defaultPlacement = defaultPlacement == null ? "hash" : defaultPlacement;
            org.lutra.catalog.DefaultPlacement.of(defaultPlacement); // refuses an unknown rule at start
            movePauseMillis = movePauseMillis == 0 ? 10 : movePauseMillis;
        }

        public CatalogSettings(int leaseMillis, String defaultPlacement) {
            this(leaseMillis, defaultPlacement, null, 0);
        }

        public static CatalogSettings defaults() {
            return new CatalogSettings(0, null);
        }

        CatalogSettings resolve(Path dir) {
            return mapDir == null ? this : new CatalogSettings(leaseMillis, defaultPlacement, dir.resolve(mapDir), movePauseMillis);
        }
    }

    /** As before the limits existed: every limit at its default. */
    public RouterConfig(String listen, String database, Path schema, List<User> users, List<Backend> backends,
                        List<PartitionPlacement> partitions, List<LookupSource> lookups, int maxFrameBytes, int planCacheSize,
                        Transactions transactions) {
        this(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions, null);
    }

    /** Without TLS: a plaintext client port. */
    public RouterConfig(String listen, String database, Path schema, List<User> users, List<Backend> backends,
                        List<PartitionPlacement> partitions, List<LookupSource> lookups, int maxFrameBytes, int planCacheSize,
                        Transactions transactions, Limits limits) {
        this(listen, database, schema, users, backends, partitions, lookups, maxFrameBytes, planCacheSize, transactions, limits, null);
    }

    /**
     * A client login. {@code passwordHash} ({@code ./lutra hash-password}) is the production form:
     * PBKDF2-derived keys, salted. A plain {@code password} is for development: the router derives
     * the keys at start, and also accepts protocol 1's unsalted proof for it.
     * {@code password_sha256} (unsalted, and itself enough to log in) is refused with a hint.
     */
    public record User(String name, String password, @JsonProperty("password_sha256") String passwordSha256,
                       @JsonProperty("password_hash") String passwordHash) {
        public User(String name, String password) {
            this(name, password, null, null);
        }

        public User(String name, String password, String passwordSha256) {
            this(name, password, passwordSha256, null);
        }

        @Override
        public String toString() {
            return "User[name=" + name + "]"; // what a log line may show: no password, no hash
        }
    }

    /**
     * TLS on the client port, from the first byte: a port with TLS speaks nothing else. The
     * certificate comes either from a PKCS12 keystore (keytool) or from PEM files (an X.509
     * chain and an unencrypted PKCS8 key, as openssl writes them). Paths are relative to the
     * config file.
     */
    public record Tls(Path keystore, @JsonProperty("keystore_password") String keystorePassword,
                      Path certificate, Path key) {
        public Tls {
            keystorePassword = keystorePassword == null ? "" : keystorePassword;
            if ((keystore == null) == (certificate == null) || (certificate == null) != (key == null)) {
                throw new IllegalArgumentException("config: tls needs either 'keystore' (PKCS12) or both 'certificate' and 'key' (PEM)");
            }
        }

        Tls resolve(Path dir) {
            return new Tls(keystore == null ? null : dir.resolve(keystore), keystorePassword,
                    certificate == null ? null : dir.resolve(certificate), key == null ? null : dir.resolve(key));
        }

        @Override
        public String toString() {
            return "Tls[" + (keystore != null ? "keystore=" + keystore : "certificate=" + certificate + ", key=" + key) + "]"; // no password
        }
    }

    /**
     * A backend server. {@code url} is a Connector/J URL without a database, e.g. jdbc:mysql://127.0.0.1:13306/
     *
     * @param pingTimeoutMillis a router statement waiting this long on the server makes the router ping it (a
     *                          fresh connection, {@code SELECT 1}); a server that does not answer the ping within
     *                          this long either (frozen, or cut off without its connections being reset) is treated
     *                          as lost: the waiting connections are closed and their statements fail with 2013.
     *                          Also the connect timeout of every backend connection. Default 5,000 ms
     */
    public record Backend(String name, String url, String user, String password, @JsonProperty("pool_size") int poolSize,
                          @JsonProperty("ping_timeout_ms") int pingTimeoutMillis) {
        public Backend {
            user = user == null ? "root" : user;
            password = password == null ? "" : password;
            poolSize = poolSize <= 0 ? 16 : poolSize;
            pingTimeoutMillis = pingTimeoutMillis <= 0 ? 5_000 : pingTimeoutMillis;
        }

        public Backend(String name, String url, String user, String password, int poolSize) {
            this(name, url, user, password, poolSize, 0);
        }

        /** The URL with the value of every option ending in {@code password} (a key or trust store's too) hidden: for messages and logs. */
        public String redactedUrl() {
            return url.replaceAll("(?i)(password=)[^&]*", "$1***");
        }

        @Override
        public String toString() {
            return "Backend[name=" + name + ", url=" + redactedUrl() + ", user=" + user + ", pool_size=" + poolSize + "]";
        }
    }

    /** Logical partition {@code name} lives on {@code backend}, in database {@code database} (default: {logical db}_{name}). */
    public record PartitionPlacement(String name, String backend, String database) {}

    /**
     * A lookup-partitioned table's entry: a map file ({@code file}, csv lines {@code key,partition}) and/or how much of
     * the table this router keeps ({@code mode}: full, the default, or partial: a cache of {@code capacity} keys).
     */
    public record LookupSource(String table, Path file, String format, String mode, long capacity) {
        public LookupSource(String table, Path file, String format) {
            this(table, file, format, null, 0);
        }

        public LookupSource {
            if (mode != null && !mode.equalsIgnoreCase("full") && !mode.equalsIgnoreCase("partial")) {
                throw new IllegalArgumentException("config: lookups: table '" + table + "': mode is full or partial, not '" + mode + "'");
            }
            if (partial(mode) && capacity <= 0) {
                throw new IllegalArgumentException("config: lookups: table '" + table + "': mode partial needs capacity (keys kept, > 0)");
            }
        }

        private static boolean partial(String mode) {
            return mode != null && mode.equalsIgnoreCase("partial");
        }

        /** Whether this router keeps only a cache of {@code capacity} keys of the table. */
        public boolean partial() {
            return partial(mode);
        }
    }

    public RouterConfig {
        catalog = catalog == null ? CatalogSettings.defaults() : catalog;
        placement = placement == null ? Placement.defaults() : placement;
        limits = limits == null ? Limits.defaults() : limits;
        transactions = transactions == null ? Transactions.defaults() : transactions;
        listen = listen == null ? "127.0.0.1:5307" : listen;
        database = database == null ? "lutra" : database;
        users = users == null ? List.of() : List.copyOf(users);
        backends = backends == null ? List.of() : List.copyOf(backends);
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
        lookups = lookups == null ? List.of() : List.copyOf(lookups);
        maxFrameBytes = maxFrameBytes <= 0 ? 16 << 20 : maxFrameBytes;
        planCacheSize = planCacheSize <= 0 ? 10_000 : planCacheSize;
    }

    public String listenHost() {
        return listen.substring(0, listen.lastIndexOf(':'));
    }

    public int listenPort() {
        return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
    }

    public String databaseOf(PartitionPlacement p) {
        return p.database() != null ? p.database() : database + "_" + p.name();
    }

    public Backend backend(String name) {
        return backends.stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown backend '" + name + "'"));
    }

    /** Reads a config file; relative paths inside it are resolved against the file's directory. */
    public static RouterConfig load(Path file) throws IOException {
        var mapper = new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
        RouterConfig raw;
        try {
            raw = mapper.readValue(Files.readString(file), RouterConfig.class);
        } catch (IOException e) {
            throw new IOException("cannot read router config " + file + ": " + e.getMessage(), e);
        }
        Path dir = file.toAbsolutePath().getParent();
        var lookups = new ArrayList<LookupSource>();
        for (var l : raw.lookups()) {
            lookups.add(new LookupSource(l.table(), l.file() == null ? null : dir.resolve(l.file()), l.format(), l.mode(), l.capacity()));
        }
        var resolved = new RouterConfig(raw.listen(), raw.database(), raw.schema() == null ? null : dir.resolve(raw.schema()),
                raw.users(), raw.backends(), raw.partitions(), lookups, raw.maxFrameBytes(), raw.planCacheSize(),
                raw.transactions(), raw.limits(), raw.tls() == null ? null : raw.tls().resolve(dir),
                raw.catalog() == null ? null : raw.catalog().resolve(dir), raw.placement() == null ? null : raw.placement().resolve(dir),
                raw.trace() == null ? null : raw.trace().resolve(dir), raw.http() == null ? null : raw.http().resolve(dir), raw.slowLog(),
                raw.mysql());
        resolved.validate();
        return resolved;
    }

    /** Checks the cross-references a YAML parser cannot; throws IllegalArgumentException naming the problem. */
    public void validate() {
        Objects.requireNonNull(schema, "config: 'schema' (the schema file) is required");
        if (backends.isEmpty()) throw new IllegalArgumentException("config: at least one backend is required");
        if (partitions.isEmpty()) throw new IllegalArgumentException("config: at least one partition is required");
        if (users.isEmpty()) throw new IllegalArgumentException("config: at least one user is required");
        var names = new HashSet<String>();
        for (var p : partitions) {
            if (!names.add(p.name())) throw new IllegalArgumentException("config: partition '" + p.name() + "' is listed twice");
            backend(p.backend());
        }
        for (var b : backends) {
            BackendTls.translate(b.name(), b.url()); // refuses TLS options the router's pools could not honour
        }
        for (var u : users) {
            if (u.passwordSha256() != null) {
                throw new IllegalArgumentException("config: user '" + u.name() + "': password_sha256 is no longer accepted (unsalted, and"
                        + " enough by itself to log in); replace it with password_hash from ./lutra hash-password");
            }
            if (u.name() == null || (u.password() == null) == (u.passwordHash() == null)) {
                throw new IllegalArgumentException("config: every user needs a name and either password_hash (./lutra hash-password)"
                        + " or a plain password (development)");
            }
            if (u.passwordHash() != null) {
                try {
                    org.lutra.protocol.Scram.StoredSecret.parse(u.passwordHash());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("config: user '" + u.name() + "': password_hash is malformed: " + e.getMessage());
                }
            }
        }
    }
}
