package org.lutra.it;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.lutra.config.RouterConfig;
import org.lutra.config.BackendTls;
import org.lutra.backend.BackendSetup;
import org.lutra.backend.Backends;
import org.lutra.shards.EmbeddedShards;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pools' TLS on a server that offers it: one embedded MariaDB of this class's own, started with TLS on (the
 * shared shards run --skip-ssl), with a self-signed certificate made here, for 127.0.0.1, which the verifying modes
 * trust through a trust store (or do not, with another certificate's, or none). Whether a
 * connection is encrypted is the server's word for that session (Ssl_cipher), read through the pool's own
 * connections; the reference is Connector/J connecting with the same URL. Every case is checked before any fails
 * (assertAll), so one broken translation shows all it breaks.
 */
class BackendTlsServerIT {
    private static final String STORE_PASSWORD = "changeit";
    private static EmbeddedShards server;
    /** A trust store holding the server's certificate, and one holding another certificate for the same name. */
    private static Path trusted;
    private static Path untrusted;

    @BeforeAll
    static void startServerWithTls() throws Exception {
        Path dir = Path.of(System.getProperty("lutra.shards.dir", "target/lutra-shards"));
        Path certs = java.nio.file.Files.createTempDirectory(java.nio.file.Files.createDirectories(dir), "backend-tls");
        Path serverCertificate = certificate(certs, "server");
        Path serverKey = certs.resolve("server.key");
        TestCertificates.writePemKey(certs.resolve("server.p12"), STORE_PASSWORD, "server", serverKey);
        trusted = trustStore(certs, "trusted", serverCertificate);
        untrusted = trustStore(certs, "untrusted", certificate(certs, "other"));
        server = EmbeddedShards.start(EmbeddedShards.Options.defaults(1).withWorkDir(dir).withTls(serverCertificate, serverKey));
    }

    /** A new self-signed certificate for 127.0.0.1 (its key in {@code name}.p12), as a PEM file. */
    private static Path certificate(Path dir, String name) throws Exception {
        Path keystore = dir.resolve(name + ".p12");
        TestCertificates.keytool("-genkeypair", "-alias", name, "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        Path pem = dir.resolve(name + ".crt");
        TestCertificates.keytool("-exportcert", "-rfc", "-alias", name, "-keystore", keystore.toString(), "-storepass", STORE_PASSWORD, "-file", pem.toString());
        return pem;
    }

    private static Path trustStore(Path dir, String name, Path certificate) throws Exception {
        Path store = dir.resolve(name + "-trust.p12");
        TestCertificates.keytool("-importcert", "-noprompt", "-alias", "shard", "-file", certificate.toString(), "-keystore", store.toString(),
                "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        return store;
    }

    /** Connector/J's options for a trust store: its URL, password and (unless null: Connector/J's default, JKS) type. */
    private static String trust(Path store, String type) {
        return "trustCertificateKeyStoreUrl=" + store.toUri() + "&trustCertificateKeyStorePassword=" + STORE_PASSWORD
                + (type == null ? "" : "&trustCertificateKeyStoreType=" + type);
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    /** Backend URL options and whether Connector/J, and so the pools, encrypt with them on a server that offers TLS. */
    private record Case(String options, boolean encrypts) {}

    private static final List<Case> CASES = List.of(new Case("sslMode=REQUIRED", true), new Case("requireSSL=true", true),
            new Case("sslMode=PREFERRED", true), new Case("", true) /* Connector/J's default: PREFERRED */, new Case("useSSL=true", true),
            new Case("sslMode=DISABLED", false), new Case("useSSL=false", false));

    @Test
    void poolsEncryptExactlyWhereConnectorJDoes() {
        var checks = new ArrayList<Executable>();
        for (Case c : CASES) {
            var backend = backend(c.options());
            checks.add(() -> {
                try (Connection reference = DriverManager.getConnection(backend.url(), backend.user(), backend.password())) {
                    assertEquals(c.encrypts(), BackendTls.encrypted(reference), "Connector/J, " + c);
                }
            });
            checks.add(() -> {
                // the server offers TLS: Backends.open would find so (aRouterDecidesAtStart... checks that it does)
                try (var pool = new HikariDataSource(BackendSetup.poolConfig(backend, "mysql", 5, BackendTls.ServerOffer.TLS));
                     Connection conn = pool.getConnection()) {
                    assertTrue(conn.isWrapperFor(org.mariadb.jdbc.Connection.class), "the pools' driver is MariaDB Connector/J");
                    assertEquals(c.encrypts(), BackendTls.encrypted(conn), "pool, " + c);
                }
            });
        }
        assertAll(checks);
    }

    @Test
    void verifyingModesWithoutATrustStoreDoNotOpenOnASelfSignedCertificate() {
        var checks = new ArrayList<Executable>();
        for (String options : List.of("sslMode=VERIFY_CA", "sslMode=VERIFY_IDENTITY", "verifyServerCertificate=true")) {
            var backend = backend(options);
            checks.add(() -> {
                var reference = assertThrows(SQLException.class, () -> DriverManager.getConnection(backend.url(), backend.user(), backend.password()).close(),
                        "Connector/J, " + options);
                assertTrue(mentionsCertificate(reference), options + ": Connector/J's error: " + chain(reference));
            });
            checks.add(() -> {
                var pool = BackendSetup.poolConfig(backend, "mysql", 5, BackendTls.ServerOffer.TLS);
                var e = assertThrows(RuntimeException.class, () -> new HikariDataSource(pool).close(), "pool, " + options); // PoolInitializationException
                assertTrue(mentionsCertificate(e), options + ": the pool's error: " + chain(e));
            });
        }
        assertAll(checks);
    }

    /**
     * The verifying modes with the server's certificate in a trust store encrypt, the pools as Connector/J; with a
     * trust store that holds another certificate neither opens. VERIFY_IDENTITY also checks the name: the certificate
     * names 127.0.0.1, the URL's host.
     */
    @Test
    void verifyingModesTrustWhatTheTrustStoreHolds() {
        var checks = new ArrayList<Executable>();
        for (String mode : List.of("sslMode=VERIFY_CA", "sslMode=VERIFY_IDENTITY", "useSSL=true&verifyServerCertificate=true")) {
            for (String type : java.util.Arrays.asList("PKCS12", null /* JKS: the JDK's JKS key store reads PKCS12 files too */)) {
                var backend = backend(mode + "&" + trust(trusted, type));
                checks.add(() -> {
                    try (Connection reference = DriverManager.getConnection(backend.url(), backend.user(), backend.password())) {
                        assertTrue(BackendTls.encrypted(reference), "Connector/J, " + backend.redactedUrl());
                    }
                });
                checks.add(() -> {
                    try (var pool = new HikariDataSource(BackendSetup.poolConfig(backend, "mysql", 5, BackendTls.ServerOffer.TLS));
                         Connection conn = pool.getConnection()) {
                        assertTrue(BackendTls.encrypted(conn), "pool, " + backend.redactedUrl());
                    }
                });
            }
            var wrong = backend(mode + "&" + trust(untrusted, "PKCS12"));
            checks.add(() -> {
                var reference = assertThrows(SQLException.class, () -> DriverManager.getConnection(wrong.url(), wrong.user(), wrong.password()).close(),
                        "Connector/J, " + wrong.redactedUrl());
                assertTrue(mentionsCertificate(reference), mode + ": Connector/J's error: " + chain(reference));
            });
            checks.add(() -> {
                var pool = BackendSetup.poolConfig(wrong, "mysql", 5, BackendTls.ServerOffer.TLS);
                var e = assertThrows(RuntimeException.class, () -> new HikariDataSource(pool).close(), "pool, " + wrong.redactedUrl());
                assertTrue(mentionsCertificate(e), mode + ": the pool's error: " + chain(e));
            });
        }
        assertAll(checks);
    }

    /**
     * Backends.open, as a router's start runs it: PREFERRED (no option) finds out that the server offers TLS, and every
     * connection of a partition's — its three pools, and one opened without a pool from the pool's URL (recovery, XA
     * branches, locks and pings do) — is encrypted; with REQUIRED too, and with VERIFY_IDENTITY and the server's
     * certificate in a trust store; with DISABLED none is. The router answers on each, its rows checked against a plain
     * connection to the partition's database.
     */
    @Test
    void aRouterDecidesAtStartAndEveryBackendConnectionFollows() throws Exception {
        try (var router = new TestRouter(server, "tlson", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY HASH(id) ON (p0);")) {
            try (var c = router.connect(); var st = c.createStatement()) {
                for (int id = 1; id <= 8; id++) st.executeUpdate("INSERT INTO t VALUES (" + id + ", 'v" + id + "')");
            }
            var checks = new ArrayList<Executable>();
            checks.add(() -> everyConnection(router, router.config, true, "PREFERRED (no option)"));
            router.stopRouter();
            for (Case c : List.of(new Case("sslMode=REQUIRED", true), new Case("sslMode=VERIFY_IDENTITY&" + trust(trusted, "PKCS12"), true),
                    new Case("sslMode=DISABLED", false))) {
                var config = BackendTlsIT.withBackendOptions(router, "tls-" + c.encrypts(), c.options());
                checks.add(() -> everyConnection(router, config, c.encrypts(), c.options()));
                checks.add(() -> {
                    var other = new TestRouter(router, config);
                    try {
                        assertEquals(sumInPartition(router), sumThroughRouter(other), c.options());
                    } finally {
                        other.stopRouter(); // not close(): that would drop the partition's database
                    }
                });
            }
            assertAll(checks);
        }
    }

    /** Backends.open on {@code config}: whether each connection of partition 0's is encrypted. */
    private static void everyConnection(TestRouter router, RouterConfig config, boolean encrypted, String what) throws SQLException {
        try (var backends = Backends.open(config, router.server.catalog(), org.lutra.placement.PlacementTables::install)) {
            var p = backends.placement(0);
            for (var pool : List.of(p.pool(), p.scratch(), p.locking())) {
                try (Connection c = pool.getConnection()) {
                    assertEquals(encrypted, BackendTls.encrypted(c), what + ", pool " + pool.getPoolName());
                }
            }
            try (Connection fresh = p.connectFresh()) {
                assertEquals(encrypted, BackendTls.encrypted(fresh), what + ", a connection opened without the pool");
            }
        }
    }

    private static String sumThroughRouter(TestRouter router) throws SQLException {
        try (var c = router.connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT COUNT(*), SUM(id), GROUP_CONCAT(v ORDER BY id) FROM t")) {
            assertTrue(rs.next());
            return rs.getLong(1) + "|" + rs.getLong(2) + "|" + rs.getString(3);
        }
    }

    /** The same query on the one partition's database, through a plain connection: one MariaDB's answer. */
    private static String sumInPartition(TestRouter router) throws SQLException {
        try (var c = router.partition(0); var st = c.createStatement(); var rs = st.executeQuery("SELECT COUNT(*), SUM(id), GROUP_CONCAT(v ORDER BY id) FROM t")) {
            assertTrue(rs.next());
            assertEquals(8, rs.getLong(1));
            return rs.getLong(1) + "|" + rs.getLong(2) + "|" + rs.getString(3);
        }
    }

    private static RouterConfig.Backend backend(String options) {
        return new RouterConfig.Backend("shard0", server.url(0) + (options.isEmpty() ? "" : "?" + options), server.user(), server.password(), 2, 2_000);
    }

    private static boolean mentionsCertificate(Throwable e) {
        String all = chain(e).toLowerCase(Locale.ROOT);
        return all.contains("certificat") || all.contains("pkix") || all.contains("truststore");
    }

    private static String chain(Throwable e) {
        var text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" / ");
        return text.toString();
    }
}
