package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Routers sharing a {@code tls:} config copy their lookup tables from each other at start, over TLS
 * (a router with TLS refuses plaintext, so a copy at all shows the connection was TLS), trusting their
 * own certificate chain: from a keystore or from PEM files. A router whose certificate is another one
 * does not trust the peer, nor does one that asks the certificate to name the host when it does not;
 * both fall back to a backend scan. The copied tables are compared whole with a scanning router's.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PeerTlsIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            """;
    static final String STORE_PASSWORD = "changeit";

    Path dir;
    RouterConfig.Tls keystoreTls;
    RouterConfig.Tls pemTls;
    RouterConfig.Tls otherTls;
    TestRouter base;
    TestRouter first;
    final List<TestRouter> others = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        dir = Files.createTempDirectory("lutra-peertls");
        Path keystore = dir.resolve("router.p12");
        // no SAN: the certificate does not name 127.0.0.1, as a shared certificate often does not name its peers' addresses
        TestCertificates.keytool("-genkeypair", "-alias", "router", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=lutra-routers",
                "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        TestCertificates.keytool("-exportcert", "-rfc", "-alias", "router", "-keystore", keystore.toString(), "-storepass", STORE_PASSWORD,
                "-file", dir.resolve("router.crt").toString());
        TestCertificates.writePemKey(keystore, STORE_PASSWORD, "router", dir.resolve("router.key"));
        Path otherKeystore = dir.resolve("other.p12");
        TestCertificates.keytool("-genkeypair", "-alias", "router", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=lutra-routers",
                "-keystore", otherKeystore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        keystoreTls = new RouterConfig.Tls(keystore, STORE_PASSWORD, null, null);
        pemTls = new RouterConfig.Tls(null, null, dir.resolve("router.crt"), dir.resolve("router.key"));
        otherTls = new RouterConfig.Tls(otherKeystore, STORE_PASSWORD, null, null);

        base = new TestRouter(shards, "peertls", SCHEMA); // plaintext: makes the databases and the rows, drops them at the end
        try (Connection c = base.connect(); var st = c.createStatement()) {
            var values = new StringBuilder();
            for (int id = 1; id <= 2_000; id++) values.append(id == 1 ? "" : ",").append('(').append(id).append(",'u").append(id).append("')");
            st.executeUpdate("INSERT INTO users (id, name) VALUES " + values);
            st.executeUpdate("ALTER TABLE users SET PARTITION = p3 WHERE id <= 100"); // some keys away from their hash home
        }
        first = router("peertls_a", keystoreTls, List.of(), false);
        assertEquals("backend scan", first.server.started().source());
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : others) r.stopRouter();
        if (base != null) base.close();
    }

    TestRouter router(String name, RouterConfig.Tls tls, List<String> peers, boolean verifyHostname) throws Exception {
        var placement = new RouterConfig.Placement(100, 0, null, -1, peers, TestRouter.USER, TestRouter.PASSWORD, verifyHostname);
        var c = TestRouter.configLike(base, name, "127.0.0.1:0", List.of(), placement);
        var config = new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), c.transactions(), c.limits(), tls, c.catalog(), c.placement());
        var r = new TestRouter(base, config);
        others.add(r);
        return r;
    }

    String firstAddress() {
        return "127.0.0.1:" + first.server.port();
    }

    @Test
    void aRouterWithTheSameKeystoreCopiesFromItsPeerOverTls() throws Exception {
        var second = router("peertls_b", keystoreTls, List.of(firstAddress()), false);
        assertEquals("peer " + firstAddress(), second.server.started().source());
        assertEquals(LookupStartTimesIT.entries(first), LookupStartTimesIT.entries(second));
        assertEquals(2_000, LookupStartTimesIT.entries(second).size());
        assertEquals(List.of(), tempTrustFiles(), "the keystore's chain written for the driver is deleted after the connection");
    }

    @Test
    void aRouterWithTheSameCertificateAsPemFilesCopiesFromItsPeerOverTls() throws Exception {
        var second = router("peertls_c", pemTls, List.of(firstAddress()), false);
        assertEquals("peer " + firstAddress(), second.server.started().source());
        assertEquals(LookupStartTimesIT.entries(first), LookupStartTimesIT.entries(second));
    }

    @Test
    void aPeerWithAnotherCertificateIsNotTrusted() throws Exception {
        var second = router("peertls_d", otherTls, List.of(firstAddress()), false);
        assertEquals("backend scan", second.server.started().source());
        assertEquals(LookupStartTimesIT.entries(first), LookupStartTimesIT.entries(second));
    }

    @Test
    void withPeerVerifyHostnameACertificateNotNamingThePeerIsRefused() throws Exception {
        var second = router("peertls_e", keystoreTls, List.of(firstAddress()), true);
        assertEquals("backend scan", second.server.started().source());
    }

    private static List<Path> tempTrustFiles() throws IOException {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(p -> p.getFileName().toString().startsWith("lutra-peer-trust")).toList();
        }
    }


}
