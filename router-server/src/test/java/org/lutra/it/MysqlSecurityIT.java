package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.protocol.Scram;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Logins at the MySQL listener with Connector/J: caching_sha2_password's full authentication of a
 * password_hash user over TLS (CLIENT_SSL with the router's certificate) and, without TLS, by the
 * RSA public-key exchange; its fast path afterwards; mysql_native_password for a plain-password
 * user; a wrong password; a plaintext client at a router with TLS.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlSecurityIT {
    static final String STORE_PASSWORD = "changeit";
    static final String OPS_PASSWORD = "0ps-secret";
    TestRouter base;
    RouterServer tlsRouter;
    RouterServer plainRouter;

    @BeforeAll
    void start(Shards shards) throws Exception {
        Path dir = Files.createTempDirectory("lutra-mysql-tls");
        Path keystore = dir.resolve("router.p12");
        TestCertificates.keytool("-genkeypair", "-alias", "router", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=lutra-test", "-ext", "SAN=ip:127.0.0.1", "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        base = new TestRouter(shards, "mysqlsec", "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY hash(k) ON (p0, p1, p2, p3);");
        try (var c = base.connect()) {
            c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one')");
        }
        var users = List.of(new RouterConfig.User(TestRouter.USER, TestRouter.PASSWORD),
                new RouterConfig.User("ops", null, null, Scram.StoredSecret.derive(OPS_PASSWORD, Scram.MIN_ITERATIONS).encode()));
        var c = base.config;
        tlsRouter = RouterServer.start(new RouterConfig(c.listen(), c.database(), c.schema(), users, c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), new RouterConfig.Transactions("mysqltls", 0, 0, 0), c.limits(),
                new RouterConfig.Tls(keystore, STORE_PASSWORD, null, null)).withMysql("127.0.0.1:0"));
        plainRouter = RouterServer.start(new RouterConfig(c.listen(), c.database(), c.schema(), users, c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), new RouterConfig.Transactions("mysqlplain", 0, 0, 0), c.limits()).withMysql("127.0.0.1:0"));
    }

    @AfterAll
    void stop() throws Exception {
        if (tlsRouter != null) tlsRouter.close();
        if (plainRouter != null) plainRouter.close();
        if (base != null) base.close();
    }

    private String read(RouterServer server, String user, String password, String options) throws SQLException {
        String url = "jdbc:mysql://127.0.0.1:" + server.mysqlPort() + "/" + base.database + "?" + options;
        try (var conn = DriverManager.getConnection(url, user, password); var rs = conn.createStatement().executeQuery("SELECT v FROM kv WHERE k = 1")) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    @Test
    void fullAuthenticationOverTlsThenTheFastPath() throws Exception {
        assertEquals("one", read(tlsRouter, "ops", OPS_PASSWORD, "sslMode=REQUIRED"));
        assertEquals("one", read(tlsRouter, "ops", OPS_PASSWORD, "sslMode=REQUIRED")); // cached now
        assertEquals("one", read(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, "sslMode=REQUIRED&defaultAuthenticationPlugin=mysql_native_password"));
        var wrong = assertThrows(SQLException.class, () -> read(tlsRouter, "ops", "guess", "sslMode=REQUIRED"));
        assertEquals(1045, wrong.getErrorCode());
        var plaintext = assertThrows(SQLException.class, () -> read(tlsRouter, "ops", OPS_PASSWORD, "sslMode=DISABLED&allowPublicKeyRetrieval=true"));
        assertEquals(3159, plaintext.getErrorCode(), plaintext.getMessage());
    }

    @Test
    void fullAuthenticationByTheRouterPublicKeyWithoutTls() throws Exception {
        var refused = assertThrows(SQLException.class, () -> read(plainRouter, "ops", OPS_PASSWORD, "sslMode=DISABLED"));
        assertTrue(refused.getMessage().contains("Public Key Retrieval"), refused.getMessage()); // Connector/J's own refusal
        assertEquals("one", read(plainRouter, "ops", OPS_PASSWORD, "sslMode=DISABLED&allowPublicKeyRetrieval=true"));
        assertEquals("one", read(plainRouter, "ops", OPS_PASSWORD, "sslMode=DISABLED")); // the fast path: no key needed now
        var wrong = assertThrows(SQLException.class, () -> read(plainRouter, TestRouter.USER, "guess", "sslMode=DISABLED"));
        assertEquals(1045, wrong.getErrorCode());
    }
}
