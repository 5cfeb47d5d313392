package org.lutra.server;

import org.lutra.config.RouterConfig;
import org.lutra.protocol.Frames;
import org.lutra.protocol.ServerMessage;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collections;
import java.util.concurrent.ExecutionException;

/**
 * TLS on the client port, from the first byte (no STARTTLS: nothing, not even the challenge,
 * crosses the wire in clear, and there is no plaintext step to downgrade).
 *
 * <p>A TLS client speaks first (its ClientHello); a Lutra client without TLS waits for the
 * router's Challenge. So the router reads one byte: a TLS handshake record (0x16) goes on to
 * the handshake; anything else, or {@link #PLAINTEXT_WAIT_MS} of silence, gets one plaintext
 * Error frame (08004, MySQL's 3159 "insecure transport prohibited") that a plaintext client
 * reads as a clear refusal instead of hanging, and the socket is closed.
 */
public final class ClientTls {
    static final long PLAINTEXT_WAIT_MS = 1_000;
    private static final int TLS_HANDSHAKE_RECORD = 0x16;

    private final SSLContext context;
    private final String description;

    private ClientTls(SSLContext context, String description) {
        this.context = context;
        this.description = description;
    }

    public static ClientTls load(RouterConfig.Tls tls) throws IOException {
        try {
            char[] password = tls.keystorePassword().toCharArray();
            KeyStore store = tls.keystore() != null ? KeyStore.getInstance(tls.keystore().toFile(), password)
                    : pemKeyStore(tls.certificate(), tls.key(), password);
            X509Certificate certificate = null;
            for (String alias : Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias) && store.getCertificate(alias) instanceof X509Certificate x) certificate = x;
            }
            if (certificate == null) throw new IOException("no private key with a certificate in " + tls);
            var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            var context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return new ClientTls(context, certificate.getSubjectX500Principal().getName() + ", valid until " + certificate.getNotAfter().toInstant());
        } catch (GeneralSecurityException | IllegalArgumentException e) { // IllegalArgument: no such keystore file
            // the message names the problem (wrong keystore password, bad key); never the password
            throw new IOException("cannot load the TLS certificate (" + tls + "): " + e.getMessage(), e);
        }
    }

    /** A server-side TLS engine with the router's certificate, for a listener that upgrades to TLS itself (MySQL's CLIENT_SSL). */
    public javax.net.ssl.SSLEngine newServerEngine() {
        var engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        engine.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        return engine;
    }

    /** The certificate's subject and expiry, for the start-up log line. */
    public String description() {
        return description;
    }

    /**
     * The TLS socket over {@code raw} once its handshake is done, or null when the client was
     * refused for not speaking TLS (it was told so and the socket is closed). The caller's
     * login deadline bounds the handshake: it closes {@code raw}.
     */
    SSLSocket accept(Socket raw, RouterServer server) throws IOException {
        var refusal = server.after(PLAINTEXT_WAIT_MS, () -> refusePlaintext(raw));
        int first = -1;
        IOException failure = null;
        try {
            first = raw.getInputStream().read();
        } catch (IOException e) {
            failure = e;
        }
        if (!refusal.cancel(false)) { // the client stayed silent: it was refused (or is being refused now)
            awaitQuietly(refusal);
            return null;
        }
        if (failure != null) throw failure;
        if (first != TLS_HANDSHAKE_RECORD) {
            if (first >= 0) refusePlaintext(raw);
            return null;
        }
        var socket = (SSLSocket) context.getSocketFactory().createSocket(raw, new ByteArrayInputStream(new byte[] {(byte) first}), true);
        socket.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        socket.startHandshake();
        return socket;
    }

    private static void refusePlaintext(Socket raw) {
        try {
            Frames.write(raw.getOutputStream(), ServerMessage.newBuilder().setError(org.lutra.protocol.Error.newBuilder()
                    .setSqlState("08004").setVendorCode(3159).setMessage("Connections without TLS are prohibited on this port:"
                            + " the router speaks TLS only (connect with ssl=true)")).build());
        } catch (IOException ignored) {
            // the client is gone already
        } finally {
            Session.close(raw);
        }
    }

    private static void awaitQuietly(java.util.concurrent.Future<?> f) {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.CancellationException ignored) {
            // refused either way
        }
    }

    /** A key store made of PEM files: an X.509 certificate chain and an unencrypted PKCS8 key. */
    private static KeyStore pemKeyStore(Path certificateFile, Path keyFile, char[] password) throws IOException, GeneralSecurityException {
        Certificate[] chain;
        try (InputStream in = Files.newInputStream(certificateFile)) {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new Certificate[0]);
        }
        if (chain.length == 0) throw new IOException("no certificate in " + certificateFile);
        String pem = Files.readString(keyFile);
        if (pem.contains("-----BEGIN RSA PRIVATE KEY") || pem.contains("-----BEGIN EC PRIVATE KEY") || pem.contains("ENCRYPTED PRIVATE KEY")) {
            throw new IOException(keyFile + " is not an unencrypted PKCS8 key; convert it with"
                    + " openssl pkcs8 -topk8 -nocrypt -in " + keyFile.getFileName() + " -out key.pem");
        }
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) throw new IOException("no '-----BEGIN PRIVATE KEY-----' block in " + keyFile);
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
        String algorithm = chain[0].getPublicKey().getAlgorithm(); // RSA, EC, Ed25519, ...
        PrivateKey key = KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        var store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("lutra", key, password, chain);
        return store;
    }
}
