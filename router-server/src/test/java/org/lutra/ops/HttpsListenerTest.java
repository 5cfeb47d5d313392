package org.lutra.ops;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.lutra.config.RouterConfig;
import org.lutra.server.ClientTls;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The HTTP listener with {@code http.tls}: a client that trusts the router's certificate gets its
 * answers over HTTPS (the bearer token still asked for), a client that does not trust it fails the
 * handshake, and plain HTTP to the port gets no HTTP answer. The pages' contents are beside the
 * point here (MetricsIT checks them against a running router).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpsListenerTest {
    static final String PASSWORD = "changeit";

    Path dir;
    HttpListener listener;
    ThreadPoolExecutor work;
    SSLContext trusting;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("lutra-https");
        Path keystore = dir.resolve("router.p12");
        Path trust = dir.resolve("trust.p12");
        keytool("-genkeypair", "-alias", "router", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=lutra-test",
                "-ext", "SAN=ip:127.0.0.1", "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "router", "-keystore", keystore.toString(), "-storepass", PASSWORD, "-file",
                dir.resolve("router.crt").toString());
        keytool("-importcert", "-noprompt", "-alias", "router", "-file", dir.resolve("router.crt").toString(), "-keystore", trust.toString(),
                "-storetype", "PKCS12", "-storepass", PASSWORD);
        var trustStore = KeyStore.getInstance(trust.toFile(), PASSWORD.toCharArray());
        var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trustStore);
        trusting = SSLContext.getInstance("TLS");
        trusting.init(null, factory.getTrustManagers(), null);

        var tlsConfig = new RouterConfig.Tls(keystore, PASSWORD, null, null);
        var http = new RouterConfig.Http("127.0.0.1:0", tlsConfig, "tok", null, null, false, null, null);
        var pages = new HttpRoutes.Pages() {
            @Override
            public String metrics() {
                return "# TYPE lutra_test_total counter\nlutra_test_total 1.0\n";
            }

            @Override
            public Health.Readiness ready() {
                return new Health.Readiness(true, Map.of("status", "ready"));
            }

            @Override
            public Map<String, Object> console() {
                return Map.of();
            }
        };
        work = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(64));
        listener = HttpListener.start("127.0.0.1", 0, ClientTls.load(tlsConfig), new HttpRoutes(pages, new HttpAuth(http), false, work,
                StaticAssets.load()));
    }

    @AfterAll
    void stop() throws IOException {
        if (listener != null) listener.close();
        if (work != null) work.shutdownNow();
        try (var files = Files.list(dir)) {
            for (var f : files.toList()) Files.delete(f);
        }
        Files.delete(dir);
    }

    HttpResponse<String> get(SSLContext context, String path, String... headers) throws Exception {
        var client = HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(10)).build();
        var request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + listener.port() + path)).timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aClientTrustingTheCertificateIsAnsweredOverHttpsAndStillNeedsTheToken() throws Exception {
        var metrics = get(trusting, "/metrics", "Authorization", "Bearer tok");
        assertEquals(200, metrics.statusCode(), metrics.body());
        assertTrue(metrics.body().contains("lutra_test_total 1.0"), metrics.body());
        assertEquals("TLSv1.3", metrics.sslSession().orElseThrow().getProtocol());
        assertEquals(401, get(trusting, "/metrics").statusCode(), "no token, no metrics, TLS or not");
        assertEquals(200, get(trusting, "/health/live").statusCode(), "probes need no token");
    }

    @Test
    void aClientNotTrustingItFailsTheHandshake() throws Exception {
        var untrusting = SSLContext.getInstance("TLS");
        untrusting.init(null, null, null); // the JDK's default trust store: no self-signed test certificate in it
        var e = assertThrows(IOException.class, () -> get(untrusting, "/health/live"));
        assertTrue(e instanceof SSLHandshakeException || e.getCause() instanceof SSLHandshakeException, e.toString());
    }

    @Test
    void plainHttpToTheTlsPortGetsNoHttpAnswer() throws Exception {
        try (var socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = socket.getInputStream().readNBytes(5);
            assertNotEquals("HTTP/", new String(answer, StandardCharsets.US_ASCII), "a plaintext request is no TLS record: never answered");
        } catch (java.net.SocketException closed) {
            // closed by the TLS handler: no answer either
        }
        assertEquals(200, get(trusting, "/health/live").statusCode(), "and the listener goes on");
    }

    static void keytool(String... args) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), "keytool " + String.join(" ", args) + ": " + output);
    }
}
