package org.lutra.jdbc;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.sql.SQLException;

/**
 * The driver's side of TLS ({@code ssl=true}): the router's client port speaks TLS from the first
 * byte. Whom to trust: {@code sslTrustStore} (a PKCS12 or JKS file, {@code sslTrustStorePassword}
 * if it has one), or {@code sslCaCert} (PEM certificates), or else the JVM's default trust
 * (javax.net.ssl.trustStore, cacerts). {@code sslVerifyHostname} (default true) checks that the
 * certificate names the host of the URL.
 */
final class Tls {
    private final SSLSocketFactory factory;
    private final boolean verifyHostname;

    private Tls(SSLSocketFactory factory, boolean verifyHostname) {
        this.factory = factory;
        this.verifyHostname = verifyHostname;
    }

    /** The URL's TLS settings, or null for {@code ssl=false} (the default). */
    static Tls of(JdbcUrl url) throws SQLException {
        if (!url.booleanOption("ssl", false)) return null;
        var options = url.options();
        String trustStore = options.getProperty("sslTrustStore");
        String caCert = options.getProperty("sslCaCert");
        try {
            KeyStore trusted = null;
            if (trustStore != null && !trustStore.isBlank()) {
                String password = options.getProperty("sslTrustStorePassword");
                trusted = KeyStore.getInstance(Path.of(trustStore).toFile(), password == null ? null : password.toCharArray());
            } else if (caCert != null && !caCert.isBlank()) {
                trusted = KeyStore.getInstance(KeyStore.getDefaultType());
                trusted.load(null, null);
                try (InputStream in = Files.newInputStream(Path.of(caCert))) {
                    int i = 0;
                    for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) trusted.setCertificateEntry("ca" + i++, c);
                }
            }
            var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted); // null: the JVM's default trust
            var context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return new Tls(context.getSocketFactory(), url.booleanOption("sslVerifyHostname", true));
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) { // IllegalArgument: no such file
            throw Errors.of("cannot load the TLS trust settings (sslTrustStore / sslCaCert) of " + url + ": " + e.getMessage(),
                    Errors.UNABLE_TO_CONNECT, 0, e);
        }
    }

    /** TLS over a connected socket, handshake done within {@code timeoutMs}. */
    Socket wrap(Socket connected, JdbcUrl.Host host, int timeoutMs) throws IOException {
        var socket = (SSLSocket) factory.createSocket(connected, host.name(), host.port(), true);
        try {
            socket.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            if (verifyHostname) {
                var parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS"); // RFC 2818: the certificate's names must match the host
                socket.setSSLParameters(parameters);
            }
            socket.setSoTimeout(timeoutMs);
            socket.startHandshake();
            socket.setSoTimeout(0);
            return socket;
        } catch (SSLException e) {
            socket.close();
            throw new IOException("TLS handshake with " + host + " failed: " + e.getMessage() + " (the router must have tls in its config,"
                    + " and its certificate must be trusted through sslTrustStore or sslCaCert and name the host, or sslVerifyHostname=false)", e);
        }
    }
}
