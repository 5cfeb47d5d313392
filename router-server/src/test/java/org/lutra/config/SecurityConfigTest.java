package org.lutra.config;

import org.junit.jupiter.api.Test;
import org.lutra.protocol.Scram;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** The security parts of the router config: tls, password_hash, the login throttle's limits. */
class SecurityConfigTest {
    static final String BASE = """
            schema: s.sql
            backends: [{ name: b, url: "jdbc:mysql://127.0.0.1:1/" }]
            partitions: [{ name: p0, backend: b }]
            """;

    private static RouterConfig load(String yaml) throws Exception {
        Path dir = Files.createTempDirectory("lutra-config");
        Path file = dir.resolve("router.yaml");
        Files.writeString(file, BASE + yaml);
        return RouterConfig.load(file);
    }

    @Test
    void tlsPathsResolveAgainstTheConfigFile() throws Exception {
        var config = load("users: [{ name: app, password: pw }]\ntls: { keystore: router.p12, keystore_password: changeit }\n");
        assertTrue(config.tls().keystore().isAbsolute());
        assertEquals("router.p12", config.tls().keystore().getFileName().toString());
        assertFalse(config.tls().toString().contains("changeit"), "the keystore password stays out of logs");
        var pem = load("users: [{ name: app, password: pw }]\ntls: { certificate: c.pem, key: k.pem }\n");
        assertEquals("k.pem", pem.tls().key().getFileName().toString());
        var both = assertThrows(Exception.class, () -> load("users: [{ name: app, password: pw }]\ntls: { keystore: a.p12, certificate: c.pem }\n"));
        assertTrue(String.valueOf(both.getMessage()).contains("either 'keystore'"), both.getMessage());
        assertNull(load("users: [{ name: app, password: pw }]\n").tls());
    }

    @Test
    void passwordHashIsTheProductionFormAndSha256IsRefusedWithAHint() throws Exception {
        String hash = Scram.StoredSecret.derive("pw", Scram.MIN_ITERATIONS).encode();
        var config = load("users: [{ name: app, password_hash: '" + hash + "' }]\n");
        assertEquals(hash, config.users().getFirst().passwordHash());
        var sha = assertThrows(IllegalArgumentException.class, () -> load("users: [{ name: app, password_sha256: 'ab' }]\n"));
        assertTrue(sha.getMessage().contains("./lutra hash-password"), sha.getMessage());
        var bad = assertThrows(IllegalArgumentException.class, () -> load("users: [{ name: app, password_hash: 'pbkdf2-sha256$1$x' }]\n"));
        assertTrue(bad.getMessage().contains("malformed"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> load("users: [{ name: app, password: pw, password_hash: '" + hash + "' }]\n"));
    }

    @Test
    void throttleLimitsHaveDefaultsAndLoad() throws Exception {
        var defaults = RouterConfig.Limits.defaults();
        assertEquals(5, defaults.loginFailuresPerAddressUser());
        assertEquals(50, defaults.loginFailuresPerUser());
        assertEquals(300, defaults.loginLockoutMaxSeconds());
        assertEquals(10_000, defaults.loginThrottleEntries());
        var config = load("users: [{ name: app, password: pw }]\nlimits: { login_failures_per_address_user: 3, login_lockout_max_seconds: 60 }\n");
        assertEquals(3, config.limits().loginFailuresPerAddressUser());
        assertEquals(60, config.limits().loginLockoutMaxSeconds());
    }
}
