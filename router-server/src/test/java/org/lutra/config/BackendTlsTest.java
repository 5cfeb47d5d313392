package org.lutra.config;

import org.junit.jupiter.api.Test;
import org.lutra.backend.BackendSetup;
import org.mariadb.jdbc.Configuration;
import org.mariadb.jdbc.export.SslMode;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backend URL's TLS options as the pools' driver reads them: each translation is parsed by MariaDB
 * Connector/J's own Configuration, as a pool's connection would be, so the test checks what the driver
 * will do, not the translation's text.
 */
class BackendTlsTest {
    private static final String BASE = "jdbc:mysql://127.0.0.1:3306/db";

    /** MariaDB Connector/J's reading of backend URL {@code options}, translated as the pools' are. */
    private static Configuration pool(String options) throws SQLException {
        var tls = BackendTls.translate("shard0", BASE + "?" + options);
        return Configuration.parse("jdbc:mariadb:" + tls.url().substring("jdbc:mysql:".length()), tls.options());
    }

    private static SslMode mode(String options) throws SQLException {
        return pool(options).sslMode();
    }

    @Test
    void sslModesMapOneToOne() throws SQLException {
        assertEquals(SslMode.DISABLE, mode("sslMode=DISABLED"));
        assertEquals(SslMode.TRUST, mode("sslMode=REQUIRED"));
        assertEquals(SslMode.VERIFY_CA, mode("sslMode=VERIFY_CA"));
        assertEquals(SslMode.VERIFY_FULL, mode("sslMode=VERIFY_IDENTITY"));
        // Connector/J reads the value without regard to case
        assertEquals(SslMode.TRUST, mode("sslMode=required"));
        assertEquals(SslMode.VERIFY_FULL, mode("sslMode=Verify_Identity"));
    }

    /** MariaDB Connector/J's reading of backend URL {@code options} for a server that offers TLS. */
    private static Configuration poolOnTlsServer(String options) throws SQLException {
        var tls = BackendTls.translate("shard0", BASE + "?" + options, BackendTls.ServerOffer.TLS);
        return Configuration.parse("jdbc:mariadb:" + tls.url().substring("jdbc:mysql:".length()), tls.options());
    }

    @Test
    void preferredExplicitOrByDefaultConnectsThePoolsInPlainTextToAServerWithoutTls() throws SQLException {
        assertEquals(SslMode.DISABLE, mode("sslMode=PREFERRED"));
        assertEquals(SslMode.DISABLE, mode("connectTimeout=5000"));
        var none = BackendTls.translate("shard0", BASE);
        assertEquals(BASE, none.url());
        assertEquals(com.mysql.cj.conf.PropertyDefinitions.SslMode.PREFERRED, none.connectorMode());
        // Connector/J would not use a bad tlsVersions where it encrypts nothing: nor is it refused there
        assertEquals(SslMode.DISABLE, mode("tlsVersions=TLSv1.1"));
    }

    @Test
    void preferredUsesTlsAsRequiredDoesWhereTheServerOffersIt() throws SQLException {
        for (String options : List.of("sslMode=PREFERRED", "connectTimeout=5000", "useSSL=true", "sslMode=preferred")) {
            var c = poolOnTlsServer(options + "&clientCertificateKeyStoreUrl=file:/tmp/client.p12&tlsVersions=TLSv1.3"
                    + "&trustCertificateKeyStoreUrl=file:/tmp/t.jks");
            assertEquals(SslMode.TRUST, c.sslMode(), options); // encrypted, the certificate not checked
            // Connector/J gives a PREFERRED connection that encrypts REQUIRED's key store and protocols, and no trust store
            assertEquals("file:/tmp/client.p12", c.keyStore(), options);
            assertEquals("TLSv1.3", c.enabledSslProtocolSuites(), options);
            assertNull(c.trustStore(), options);
        }
        assertEquals(pool("sslMode=REQUIRED").enabledSslCipherSuites(), poolOnTlsServer("sslMode=PREFERRED").enabledSslCipherSuites());
        // where it encrypts, a tlsVersions Connector/J would fail on is refused
        assertThrows(IllegalArgumentException.class, () -> poolOnTlsServer("tlsVersions=TLSv1.1"));
        // the server's offer changes nothing in the other modes
        assertEquals(SslMode.DISABLE, poolOnTlsServer("sslMode=DISABLED").sslMode());
        assertEquals(SslMode.DISABLE, poolOnTlsServer("useSSL=false").sslMode());
        assertEquals(SslMode.TRUST, poolOnTlsServer("sslMode=REQUIRED").sslMode());
        assertEquals(SslMode.VERIFY_CA, poolOnTlsServer("sslMode=VERIFY_CA").sslMode());
    }

    @Test
    void legacyOptionsAsConnectorJNineReadsThem() throws SQLException {
        assertEquals(SslMode.DISABLE, mode("useSSL=false"));
        assertEquals(SslMode.DISABLE, mode("useSSL=false&requireSSL=true&verifyServerCertificate=true"));
        assertEquals(SslMode.TRUST, mode("requireSSL=true")); // useSSL defaults to true
        assertEquals(SslMode.TRUST, mode("useSSL=true&requireSSL=true"));
        assertEquals(SslMode.VERIFY_CA, mode("verifyServerCertificate=true"));
        assertEquals(SslMode.VERIFY_CA, mode("useSSL=true&requireSSL=true&verifyServerCertificate=true"));
        // useSSL alone is PREFERRED to Connector/J 8+ (MariaDB Connector/J alone would read it as verify-full)
        assertEquals(SslMode.DISABLE, mode("useSSL=true"));
        // Connector/J's booleans: true/false/yes/no in any case (MariaDB Connector/J's legacy check knows only "true" and "1")
        assertEquals(SslMode.TRUST, mode("useSSL=YES&requireSSL=Yes"));
        assertEquals(SslMode.DISABLE, mode("useSSL=no&requireSSL=true"));
        // an explicit sslMode wins over them
        assertEquals(SslMode.TRUST, mode("sslMode=REQUIRED&useSSL=false"));
        assertEquals(SslMode.DISABLE, mode("sslMode=DISABLED&requireSSL=true"));
    }

    @Test
    void trustStoreWithUrlEncodedValuesForTheVerifyingModes() throws SQLException {
        var c = pool("sslMode=VERIFY_CA&trustCertificateKeyStoreUrl=file%3A%2Ftmp%2Fa%26b.p12"
                + "&trustCertificateKeyStorePassword=p%26w%3D%2B&trustCertificateKeyStoreType=PKCS12&fallbackToSystemTrustStore=false");
        assertEquals(SslMode.VERIFY_CA, c.sslMode());
        assertEquals("file:/tmp/a&b.p12", c.trustStore());
        assertEquals("p&w=+", c.trustStorePassword());
        assertEquals("PKCS12", c.trustStoreType());
        assertFalse(c.fallbackToSystemTrustStore());
        var defaults = pool("sslMode=VERIFY_IDENTITY&trustCertificateKeyStoreUrl=file:/tmp/t.jks");
        assertEquals("file:/tmp/t.jks", defaults.trustStore());
        assertEquals("JKS", defaults.trustStoreType()); // Connector/J's default type, not the JVM's
        assertNull(defaults.trustStorePassword());
        assertTrue(defaults.fallbackToSystemTrustStore());
        // REQUIRED does not verify: Connector/J ignores the trust store there, and so do the pools
        assertNull(pool("sslMode=REQUIRED&trustCertificateKeyStoreUrl=file:/tmp/t.jks").trustStore());
    }

    @Test
    void clientKeyStoreInEveryEncryptingMode() throws SQLException {
        for (String m : List.of("REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")) {
            var c = pool("sslMode=" + m + "&clientCertificateKeyStoreUrl=file%3A%2Ftmp%2Fclient.p12&clientCertificateKeyStorePassword=k%26y"
                    + "&clientCertificateKeyStoreType=PKCS12&fallbackToSystemKeyStore=no");
            assertEquals("file:/tmp/client.p12", c.keyStore(), m);
            assertEquals("k&y", c.keyStorePassword(), m);
            assertEquals("PKCS12", c.keyStoreType(), m);
            assertFalse(c.fallbackToSystemKeyStore(), m);
        }
        assertNull(pool("sslMode=DISABLED&clientCertificateKeyStoreUrl=file:/tmp/client.p12").keyStore());
    }

    @Test
    void protocolsAsConnectorJEnablesThem() throws SQLException {
        assertEquals("TLSv1.3,TLSv1.2", pool("sslMode=REQUIRED").enabledSslProtocolSuites());
        assertEquals("TLSv1.3", pool("sslMode=REQUIRED&tlsVersions=TLSv1.3").enabledSslProtocolSuites());
        assertEquals("TLSv1.2", pool("sslMode=REQUIRED&enabledTLSProtocols=TLSv1.2").enabledSslProtocolSuites());
        assertEquals("TLSv1.3,TLSv1.2", pool("sslMode=REQUIRED&tlsVersions=TLSv1.2%2C%20TLSv1.3%2CTLSv1.1").enabledSslProtocolSuites());
        var old = assertThrows(IllegalArgumentException.class, () -> pool("sslMode=REQUIRED&tlsVersions=TLSv1.1,TLSv1"));
        assertTrue(old.getMessage().contains("backend 'shard0'") && old.getMessage().contains("tlsVersions"), old.getMessage());
    }

    @Test
    void cipherSuitesAsConnectorJEnablesThem() throws SQLException {
        assertEquals("TLS_AES_128_GCM_SHA256", pool("sslMode=REQUIRED&tlsCiphersuites=TLS_AES_128_GCM_SHA256").enabledSslCipherSuites());
        assertEquals("TLS_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256",
                pool("sslMode=VERIFY_CA&enabledSSLCipherSuites=TLS_AES_256_GCM_SHA384%2CTLS_AES_128_GCM_SHA256").enabledSslCipherSuites());
        // by default the JVM's, less what Connector/J does not allow
        var all = List.of(pool("sslMode=REQUIRED").enabledSslCipherSuites().split(","));
        assertTrue(all.contains("TLS_AES_128_GCM_SHA256"), all.toString());
        assertTrue(all.stream().noneMatch(c -> c.contains("_anon_") || c.contains("_NULL_") || c.contains("_RC4_")), all.toString());
        assertThrows(IllegalArgumentException.class, () -> pool("sslMode=REQUIRED&tlsCiphersuites=TLS_NO_SUCH_SUITE"));
    }

    @Test
    void theScratchAndLockingPoolsCopyTheTlsOptions() {
        // Backends.open derives them with copyStateTo: the translated options must travel with the rest
        var main = BackendSetup.poolConfig(new org.lutra.config.RouterConfig.Backend("shard0", BASE.replace("/db", "/") + "?requireSSL=true",
                "root", "", 4), "db_p0", 5, BackendTls.ServerOffer.NO_TLS);
        var scratch = new com.zaxxer.hikari.HikariConfig();
        main.copyStateTo(scratch);
        assertEquals("trust", scratch.getDataSourceProperties().getProperty("sslMode"));
        assertFalse(scratch.getJdbcUrl().contains("requireSSL"), scratch.getJdbcUrl());
    }

    @Test
    void otherOptionsStayAndTlsOnesLeaveThePoolUrl() {
        var tls = BackendTls.translate("shard0", BASE + "?useUnicode=true&sslMode=REQUIRED&connectTimeout=5000&requireSSL=true");
        assertEquals(BASE + "?useUnicode=true&connectTimeout=5000", tls.url());
        // a name Connector/J decodes is one of its options too
        var encoded = BackendTls.translate("shard0", BASE + "?ssl%4Dode=VERIFY_CA");
        assertEquals(BASE, encoded.url());
        assertEquals("verify-ca", encoded.options().getProperty("sslMode"));
    }

    @Test
    void refusesWhatThePoolsCouldNotHonourAsConnectorJDoes() {
        for (String options : List.of(
                "sslmode=REQUIRED",                       // Connector/J's names are case-sensitive: it would ignore this, MariaDB's would not
                "SSLMODE=VERIFY_CA",
                "usessl=true",
                "enabledSslCipherSuites=TLS_AES_128_GCM_SHA256", // MariaDB's spelling; Connector/J's alias is enabledSSLCipherSuites
                "serverSslCert=/tmp/ca.pem",              // MariaDB Connector/J's own options
                "trustServerCertificate=true",
                "keyPassword=x",
                "sslMode=REQUIRED&keyStoreProvider=BC",   // no MariaDB counterpart
                "sslMode=REQUIRED&sslContextProvider=SunJSSE",
                "sslMode=REQUIRED&trustManagerFactoryProvider=SunJSSE",
                "sslMode=REQUIRED&KeyManagerFactoryProvider=SunJSSE", // Connector/J's spelling, capital K
                "sslMode=REQUIRED&keyManagerFactoryProvider=SunJSSE", // not Connector/J's: it would ignore it
                "fipsCompliantJsse=true",
                "sslMode=NOPE")) {
            var e = assertThrows(IllegalArgumentException.class, () -> BackendTls.translate("shard0", BASE + "?" + options), options);
            assertTrue(e.getMessage().startsWith("config: backend 'shard0': "), e.getMessage());
        }
        var named = assertThrows(IllegalArgumentException.class, () -> BackendTls.translate("b1", BASE + "?sslmode=REQUIRED"));
        assertTrue(named.getMessage().contains("'sslmode'") && named.getMessage().contains("'sslMode'"), named.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> BackendTls.translate("shard0", "jdbc:mysql://address=(host=127.0.0.1)(port=3306)(sslMode=DISABLED)/db"));
        // fipsCompliantJsse=false is Connector/J's default: nothing to carry over
        assertEquals("trust", BackendTls.translate("shard0", BASE + "?sslMode=REQUIRED&fipsCompliantJsse=false").options().getProperty("sslMode"));
    }
}
