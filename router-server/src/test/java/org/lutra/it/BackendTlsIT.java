package org.lutra.it;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.BackendTls;
import org.lutra.config.RouterConfig;
import org.lutra.backend.BackendSetup;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backend URL's TLS options reach the router's pools (MariaDB Connector/J) as its Connector/J connections
 * read them. The shared shards run without TLS (--skip-ssl): a URL that requires TLS must keep the pools from
 * connecting at all. The reference each pool is checked against is Connector/J itself, connecting with the
 * same URL.
 */
@ExtendWith(EmbeddedShardsExtension.class)
class BackendTlsIT {

    /** Options that require TLS to Connector/J: its sslMode, and the legacy ones it folds into REQUIRED and VERIFY_CA. */
    private static final List<String> REQUIRING = List.of("sslMode=REQUIRED", "sslMode=verify_ca", "sslMode=VERIFY_IDENTITY",
            "requireSSL=true", "useSSL=true&requireSSL=yes", "verifyServerCertificate=true");

    @Test
    void poolsDoNotOpenOnAShardWithoutTlsWhenTheUrlRequiresIt(Shards shards) {
        for (String options : REQUIRING) {
            var backend = backend(shards, options);
            // the reference: Connector/J refuses the plain-text shard for this URL
            var reference = assertThrows(SQLException.class, () -> DriverManager.getConnection(backend.url(), backend.user(), backend.password()).close(), options);
            assertTrue(mentionsTls(reference), options + ": " + reference);
            var pool = BackendSetup.poolConfig(backend, "mysql", 5, BackendTls.ServerOffer.NO_TLS /* the shards run --skip-ssl */);
            var e = assertThrows(RuntimeException.class, () -> new HikariDataSource(pool).close(), options); // Hikari's PoolInitializationException
            assertTrue(mentionsTls(e), options + ": the pool's error names TLS: " + chain(e));
        }
    }

    @Test
    void poolsConnectInPlainTextWhereConnectorJDoes(Shards shards) throws SQLException {
        for (String options : List.of("sslMode=DISABLED", "useSSL=false&requireSSL=true", "sslMode=PREFERRED", "connectTimeout=5000")) {
            var backend = backend(shards, options);
            try (Connection reference = DriverManager.getConnection(backend.url(), backend.user(), backend.password())) {
                assertEquals("", sslCipher(reference), options);
            }
            try (var pool = new HikariDataSource(BackendSetup.poolConfig(backend, "mysql", 5, BackendTls.ServerOffer.NO_TLS /* the shards run --skip-ssl */)); Connection c = pool.getConnection()) {
                assertTrue(c.isWrapperFor(org.mariadb.jdbc.Connection.class), "the pools' driver is MariaDB Connector/J");
                assertEquals("", sslCipher(c), options);
            }
        }
    }

    /** A PREFERRED backend whose server offered TLS at start and no longer does: its pools stay with TLS (docs/security.md), so they do not open. */
    @Test
    void aPreferredPoolDecidedForTlsDoesNotOpenWithoutIt(Shards shards) {
        var pool = BackendSetup.poolConfig(backend(shards, "sslMode=PREFERRED"), "mysql", 5, BackendTls.ServerOffer.TLS);
        var e = assertThrows(RuntimeException.class, () -> new HikariDataSource(pool).close());
        assertTrue(mentionsTls(e), chain(e));
    }

    @Test
    void aRouterRunsOnDisabledAndRefusesToStartOnRequired(Shards shards) throws Exception {
        try (var first = new TestRouter(shards, "tls", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY HASH(id) ON (p0, p1, p2, p3);")) {
            try (var c = first.connect(); var st = c.createStatement()) {
                for (int id = 1; id <= 8; id++) st.executeUpdate("INSERT INTO t VALUES (" + id + ", 'v" + id + "')");
            }
            first.stopRouter();
            var disabled = withBackendOptions(first, "tls-disabled", "sslMode=DISABLED");
            try (var router = new TestRouter(first, disabled); var c = router.connect(); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT COUNT(*), SUM(id) FROM t")) {
                assertTrue(rs.next());
                assertEquals(8, rs.getInt(1));
                assertEquals(36, rs.getInt(2));
                router.stopRouter();
            }
            var required = withBackendOptions(first, "tls-required", "sslMode=REQUIRED");
            var e = assertThrows(Exception.class, () -> new TestRouter(first, required).stopRouter());
            assertTrue(mentionsTls(e), chain(e));
            // a name only MariaDB Connector/J would read as a TLS option: refused before any connection, naming it and the backend
            var lookalike = withBackendOptions(first, "tls-lookalike", "sslmode=REQUIRED");
            var refused = assertThrows(IllegalArgumentException.class, () -> new TestRouter(first, lookalike).stopRouter());
            assertTrue(refused.getMessage().contains("backend 'shard0'") && refused.getMessage().contains("'sslmode'"), refused.getMessage());
        }
    }

    /** {@code first}'s config for a router named {@code name} whose backend URLs carry {@code options}. */
    static RouterConfig withBackendOptions(TestRouter first, String name, String options) {
        var c = TestRouter.configLike(first, name, "127.0.0.1:0", List.of(), null);
        var backends = c.backends().stream().map(b -> new RouterConfig.Backend(b.name(), b.url() + (b.url().contains("?") ? "&" : "?") + options,
                b.user(), b.password(), b.poolSize(), b.pingTimeoutMillis())).toList();
        return new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), backends, c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), c.transactions(), c.limits(), c.tls(), c.catalog(), c.placement());
    }

    private static RouterConfig.Backend backend(Shards shards, String options) {
        return new RouterConfig.Backend("shard0", shards.url(0) + "?" + options, shards.user(), shards.password(), 2, 2_000);
    }

    private static String sslCipher(Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
            assertTrue(rs.next());
            return rs.getString(2);
        }
    }

    private static boolean mentionsTls(Throwable e) {
        String all = chain(e).toLowerCase(Locale.ROOT);
        return all.contains("ssl") || all.contains("tls");
    }

    private static String chain(Throwable e) {
        var text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" / ");
        return text.toString();
    }
}
