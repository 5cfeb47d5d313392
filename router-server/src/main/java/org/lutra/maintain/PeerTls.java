package org.lutra.maintain;

import org.lutra.config.RouterConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

/**
 * The driver options a router uses to reach its peers when its own config has {@code tls:}: routers
 * sharing a config share its certificate, so a peer is trusted when it shows a certificate chaining to
 * this router's own chain (the leaf and any CA certificates the keystore or PEM file holds), and to
 * nothing else (not the JVM's default trust). The driver reads its trust from a PEM file
 * ({@code sslCaCert}): a PEM config's certificate file is that already; a keystore's chain (public
 * certificates only, never the key) is written to a temporary file, deleted by {@link #close}.
 */
final class PeerTls implements AutoCloseable {
    private final Properties options;
    private final Path temporary;

    private PeerTls(Properties options, Path temporary) {
        this.options = options;
        this.temporary = temporary;
    }

    /** The TLS options for {@code tls}, verifying the peer's host name or not. */
    static PeerTls of(RouterConfig.Tls tls, boolean verifyHostname) throws IOException {
        Path caCert = tls.certificate();
        Path temporary = null;
        if (caCert == null) {
            temporary = Files.createTempFile("lutra-peer-trust", ".pem");
            try {
                Files.writeString(temporary, pem(keystoreChain(tls)), StandardCharsets.US_ASCII);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(temporary);
                throw e;
            }
            caCert = temporary;
        }
        var options = new Properties();
        options.setProperty("ssl", "true");
        options.setProperty("sslCaCert", caCert.toString());
        options.setProperty("sslVerifyHostname", Boolean.toString(verifyHostname));
        return new PeerTls(options, temporary);
    }

    /** The driver options with {@code user} and {@code password} added. */
    Properties options(String user, String password) {
        var p = new Properties();
        p.putAll(options);
        p.setProperty("user", user);
        p.setProperty("password", password == null ? "" : password);
        return p;
    }

    @Override
    public void close() throws IOException {
        if (temporary != null) Files.deleteIfExists(temporary);
    }

    /** The certificate chain of the keystore's key entry (the one the client port serves). */
    private static List<Certificate> keystoreChain(RouterConfig.Tls tls) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance(tls.keystore().toFile(), tls.keystorePassword().toCharArray());
            for (String alias : Collections.list(store.aliases())) {
                Certificate[] chain = store.isKeyEntry(alias) ? store.getCertificateChain(alias) : null;
                if (chain != null && chain.length > 0) return List.of(chain);
            }
            throw new IOException("no private key with a certificate in " + tls);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("cannot read the TLS certificate (" + tls + ") to trust peers with: " + e.getMessage(), e);
        }
    }

    private static String pem(List<Certificate> chain) throws IOException {
        var out = new StringBuilder();
        var base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        try {
            for (Certificate c : chain) {
                out.append("-----BEGIN CERTIFICATE-----\n").append(base64.encodeToString(c.getEncoded())).append("\n-----END CERTIFICATE-----\n");
            }
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IOException("cannot encode the TLS certificate: " + e.getMessage(), e);
        }
        return out.toString();
    }
}
