package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.protocol.Frames;
import org.lutra.protocol.Scram;
import org.lutra.protocol.ServerMessage;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The client port's security through the real driver and router: TLS with a self-signed
 * certificate made by keytool, salted (KDF) passwords, login throttling. One router serves TLS
 * from a PKCS12 keystore, a second the same certificate from PEM files.
 */
@ExtendWith({EmbeddedShardsExtension.class, HeapReport.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityIT {
    static final String STORE_PASSWORD = "changeit";
    static final String OPS_PASSWORD = "correct horse battery staple";

    Path dir;
    Path keystore;
    Path trustStore;
    TestRouter base;
    RouterServer tlsRouter;
    RouterServer pemRouter;

    @BeforeAll
    void start(Shards shards) throws Exception {
        dir = Files.createTempDirectory("lutra-tls");
        keystore = dir.resolve("router.p12");
        trustStore = dir.resolve("trust.p12");
        TestCertificates.keytool("-genkeypair", "-alias", "router", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=lutra-test", "-ext", "SAN=ip:127.0.0.1",
                "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        TestCertificates.keytool("-exportcert", "-rfc", "-alias", "router", "-keystore", keystore.toString(), "-storepass", STORE_PASSWORD,
                "-file", dir.resolve("router.crt").toString());
        TestCertificates.keytool("-importcert", "-noprompt", "-alias", "router", "-file", dir.resolve("router.crt").toString(),
                "-keystore", trustStore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        TestCertificates.writePemKey(keystore, STORE_PASSWORD, "router", dir.resolve("router.key"));

        // the test router (plaintext) makes the databases and drops them at the end; the routers under test share them
        base = new TestRouter(shards, "securityit", "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY hash(k) ON (p0, p1, p2, p3);");
        var users = List.of(new RouterConfig.User(TestRouter.USER, TestRouter.PASSWORD),
                new RouterConfig.User("ops", null, null, Scram.StoredSecret.derive(OPS_PASSWORD, Scram.DEFAULT_ITERATIONS).encode()),
                new RouterConfig.User("victim", "v1ctim"));
        var limits = RouterConfig.Limits.defaults().withLoginThrottle(3, 50, 50, 2, 4, 1000);
        tlsRouter = RouterServer.start(withTls(base.config, "sectls", users, limits, new RouterConfig.Tls(keystore, STORE_PASSWORD, null, null)));
        pemRouter = RouterServer.start(withTls(base.config, "secpem", users, limits,
                new RouterConfig.Tls(null, null, dir.resolve("router.crt"), dir.resolve("router.key"))));
        try (var c = connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, trusted())) {
            c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one'), (2, 'two')");
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (pemRouter != null) pemRouter.close();
        if (tlsRouter != null) tlsRouter.close();
        if (base != null) base.close();
    }

    @Test
    void aTrustedClientTalksTlsAndTheSocketReallyIsTls() throws Exception {
        for (var server : List.of(tlsRouter, pemRouter)) {
            try (var c = connect(server, TestRouter.USER, TestRouter.PASSWORD, trusted());
                 var rs = c.createStatement().executeQuery("SELECT v FROM kv WHERE k = 2")) {
                assertTrue(rs.next());
                assertEquals("two", rs.getString(1));
            }
        }
        // not trivially true: the port's first bytes are a TLS handshake, and the certificate is the one keytool made
        var context = SSLContext.getInstance("TLS");
        var tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(KeyStore.getInstance(trustStore.toFile(), STORE_PASSWORD.toCharArray()));
        context.init(null, tmf.getTrustManagers(), null);
        try (var socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", tlsRouter.port())) {
            socket.setSoTimeout(5_000);
            socket.startHandshake();
            assertTrue(socket.getSession().getProtocol().startsWith("TLSv1."), socket.getSession().getProtocol());
            assertEquals("CN=lutra-test", ((java.security.cert.X509Certificate) socket.getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName());
            ServerMessage challenge = Frames.read(socket.getInputStream(), ServerMessage.parser(), 1 << 20);
            assertTrue(challenge.hasChallenge(), "the protocol runs inside TLS");
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateGetsAClearError() throws Exception {
        var e = assertThrows(SQLException.class, () -> connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, ssl()));
        assertTrue(e.getSQLState().startsWith("08"), e.getSQLState());
        assertTrue(e.getMessage().contains("TLS handshake"), e.getMessage());
        // trusted, but the certificate names 127.0.0.1, not localhost: refused unless hostname checks are off
        var wrongHost = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                "jdbc:lutra://localhost:" + tlsRouter.port() + "/" + base.database, withUser(trusted(), TestRouter.USER, TestRouter.PASSWORD)));
        assertTrue(wrongHost.getMessage().contains("TLS handshake"), wrongHost.getMessage());
        try (var c = DriverManager.getConnection("jdbc:lutra://localhost:" + tlsRouter.port() + "/" + base.database,
                withUser(noHostnameCheck(), TestRouter.USER, TestRouter.PASSWORD))) {
            assertTrue(c.isValid(2));
        }
    }

    @Test
    void aPlaintextClientIsToldToUseTlsAndTheRouterGoesOn() throws Exception {
        long t0 = System.nanoTime();
        var e = assertThrows(SQLException.class, () -> connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, new Properties()));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(e.getSQLState().startsWith("08"), e.getSQLState());
        assertTrue(e.getMessage().contains("ssl=true"), e.getMessage());
        assertTrue(millis < 5_000, "answered after " + millis + " ms");
        // a peer sending plaintext bytes first is refused at once
        try (var raw = new Socket("127.0.0.1", tlsRouter.port())) {
            raw.setSoTimeout(5_000);
            raw.getOutputStream().write(new byte[] {0, 0, 0, 5, 1, 2, 3, 4, 5});
            ServerMessage refusal = Frames.read(raw.getInputStream(), ServerMessage.parser(), 1 << 20);
            assertEquals(3159, refusal.getError().getVendorCode());
            assertEquals(-1, raw.getInputStream().read(), "closed after the refusal");
        }
        try (var c = connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, trusted())) {
            assertTrue(c.isValid(2));
        }
    }

    @Test
    void aUserStoredWithTheKdfLogsInAndTheWrongPasswordDoesNot() throws Exception {
        try (var c = connect(tlsRouter, "ops", OPS_PASSWORD, trusted()); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM kv")) {
            assertTrue(rs.next());
            assertEquals(2, rs.getInt(1));
        }
        var e = assertThrows(SQLException.class, () -> connect(tlsRouter, "ops", "correct horse battery stapler", trusted()));
        assertEquals("28000", e.getSQLState());
        assertEquals(1045, e.getErrorCode());
    }

    @Test
    void cancelTravelsOverTlsToo() throws Exception {
        try (var locker = connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, trusted());
             var c = connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, trusted())) {
            locker.setAutoCommit(false);
            locker.createStatement().executeUpdate("UPDATE kv SET v = 'locked' WHERE k = 1");
            var st = c.createStatement();
            var canceller = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(500);
                    st.cancel();
                } catch (Exception ignored) {
                    // the assertion below reports it
                }
            });
            long t0 = System.nanoTime();
            var e = assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE kv SET v = 'x' WHERE k = 1"));
            canceller.join();
            assertEquals("70100", e.getSQLState(), e.getMessage());
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "cancelled, not timed out on the lock");
            locker.rollback();
        }
    }

    @Test
    void repeatedWrongPasswordsAreThrottledWithoutLockingOutOthers() throws Exception {
        for (int i = 0; i < 3; i++) {
            var e = assertThrows(SQLException.class, () -> connect(tlsRouter, "victim", "guess", trusted()));
            assertEquals(1045, e.getErrorCode(), e.getMessage());
        }
        // locked: refused before the password is checked, even the right one
        for (String password : new String[] {"guess", "v1ctim"}) {
            var e = assertThrows(SQLException.class, () -> connect(tlsRouter, "victim", password, trusted()));
            assertEquals(3955, e.getErrorCode(), e.getMessage());
            assertEquals("HY000", e.getSQLState());
            assertTrue(e.getMessage().contains("Account is blocked for 2 second(s)"), e.getMessage());
        }
        // another user from this address, and the same user from another address, are not affected
        try (var c = connect(tlsRouter, TestRouter.USER, TestRouter.PASSWORD, trusted())) {
            assertTrue(c.isValid(2));
        }
        assertTrue(loginFrom("127.0.0.2", "victim", "v1ctim").hasHelloOk(), "the same user from another address");
        Thread.sleep(2_100); // the lockout passes; the next failure doubles it
        assertEquals(1045, assertThrows(SQLException.class, () -> connect(tlsRouter, "victim", "guess", trusted())).getErrorCode());
        var doubled = assertThrows(SQLException.class, () -> connect(tlsRouter, "victim", "v1ctim", trusted()));
        assertTrue(doubled.getMessage().contains("blocked for 4 second(s)"), doubled.getMessage());
        Thread.sleep(4_100);
        try (var c = connect(tlsRouter, "victim", "v1ctim", trusted())) {
            assertTrue(c.isValid(2), "the right password works once the lockout passed");
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static RouterConfig withTls(RouterConfig c, String routerName, List<RouterConfig.User> users, RouterConfig.Limits limits,
                                        RouterConfig.Tls tls) {
        return new RouterConfig(c.listen(), c.database(), c.schema(), users, c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), new RouterConfig.Transactions(routerName, 0, 0, 0), limits, tls);
    }

    /**
     * Protocol 2's login by hand over TLS from another loopback address (the driver has no option
     * for the local address); returns the router's last answer.
     */
    private ServerMessage loginFrom(String localAddress, String user, String password) throws Exception {
        var raw = new Socket();
        raw.bind(new java.net.InetSocketAddress(localAddress, 0));
        raw.connect(new java.net.InetSocketAddress("127.0.0.1", tlsRouter.port()), 5_000);
        var context = SSLContext.getInstance("TLS");
        var tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(KeyStore.getInstance(trustStore.toFile(), STORE_PASSWORD.toCharArray()));
        context.init(null, tmf.getTrustManagers(), null);
        try (var socket = (SSLSocket) context.getSocketFactory().createSocket(raw, "127.0.0.1", tlsRouter.port(), true)) {
            socket.setSoTimeout(5_000);
            var in = socket.getInputStream();
            var out = socket.getOutputStream();
            var challenge = Frames.read(in, ServerMessage.parser(), 1 << 20).getChallenge();
            byte[] clientNonce = Scram.newClientNonce();
            Frames.write(out, org.lutra.protocol.ClientMessage.newBuilder().setRequestId(1).setHello(org.lutra.protocol.Hello.newBuilder()
                    .setUser(user).setDatabase(base.database).setProtocolVersion(2)
                    .setClientNonce(com.google.protobuf.ByteString.copyFrom(clientNonce))).build());
            ServerMessage salt = Frames.read(in, ServerMessage.parser(), 1 << 20);
            if (!salt.hasSaltChallenge()) return salt;
            var sc = salt.getSaltChallenge();
            byte[] transcript = Scram.authMessage(user, challenge.getNonce().toByteArray(), clientNonce, sc.getSalt().toByteArray(), sc.getIterations());
            byte[] proof = Scram.clientProof(Scram.saltedPassword(password, sc.getSalt().toByteArray(), sc.getIterations()), transcript);
            Frames.write(out, org.lutra.protocol.ClientMessage.newBuilder().setRequestId(2).setAuthProof(org.lutra.protocol.AuthProof.newBuilder()
                    .setProof(com.google.protobuf.ByteString.copyFrom(proof))).build());
            return Frames.read(in, ServerMessage.parser(), 1 << 20);
        }
    }

    private Connection connect(RouterServer server, String user, String password, Properties props) throws SQLException {
        return DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + server.port() + "/" + base.database, withUser(props, user, password));
    }

    private static Properties withUser(Properties props, String user, String password) {
        var p = new Properties();
        p.putAll(props);
        p.setProperty("user", user);
        p.setProperty("password", password);
        return p;
    }

    private static Properties ssl() {
        var p = new Properties();
        p.setProperty("ssl", "true");
        return p;
    }

    private Properties trusted() {
        var p = ssl();
        p.setProperty("sslTrustStore", trustStore.toString());
        p.setProperty("sslTrustStorePassword", STORE_PASSWORD);
        return p;
    }

    private Properties noHostnameCheck() {
        var p = ssl();
        p.setProperty("sslCaCert", dir.resolve("router.crt").toString()); // the PEM form of the trust
        p.setProperty("sslVerifyHostname", "false");
        return p;
    }


}
