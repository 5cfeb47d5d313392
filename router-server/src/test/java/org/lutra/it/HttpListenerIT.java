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
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The HTTP listener as an untrusted client meets it: credentials where configured (a bearer token
 * or a basic login; the health checks answer probes without them), and requests that are huge,
 * malformed, trickling or too many. None of them harms the listener (a proper request is answered
 * right after) or the SQL sessions (a session open throughout goes on answering).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpListenerIT {
    static final String TOKEN = "s3cret-token";
    static final String BASIC = "Basic " + Base64.getEncoder().encodeToString("ops:ops-pw".getBytes(StandardCharsets.UTF_8));

    OperatedRouter router;
    java.sql.Connection session;

    @BeforeAll
    void start(Shards shards) throws Exception {
        var http = new RouterConfig.Http("127.0.0.1:0", null, TOKEN, "ops", "ops-pw", false, null, null);
        router = new OperatedRouter(shards, "httpit", "CREATE TABLE kv (k INT PRIMARY KEY, v INT) PARTITION BY hash(k) ON (p0, p1, p2, p3);",
                new RouterConfig.Transactions("httpit", 5, 0, 0), url -> url, config -> config.withOperations(http, null));
        session = router.connect();
        session.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 1), (2, 2), (3, 3), (4, 4)");
    }

    @AfterAll
    void stop() throws Exception {
        if (session != null) session.close();
        if (router != null) router.close();
    }

    @Test
    void everyPathButTheHealthChecksRefusesARequestWithoutTheCredentials() throws Exception {
        for (String path : List.of("/metrics", "/", "/api/console", "/console.js", "/assets/chart.umd.js")) {
            var none = router.get(path);
            assertEquals(401, none.statusCode(), path);
            assertTrue(none.headers().firstValue("www-authenticate").orElse("").startsWith("Basic"), path);
            assertFalse(none.body().contains("lutra_"), "nothing of the answer leaks: " + path);
            assertEquals(401, router.get(path, "Authorization", "Bearer wrong").statusCode(), path);
            assertEquals(401, router.get(path, "Authorization", "Bearer " + TOKEN + "x").statusCode(), path);
            assertEquals(401, router.get(path, "Authorization", "Basic " + Base64.getEncoder().encodeToString("ops:nope".getBytes())).statusCode(), path);
            assertEquals(200, router.get(path, "Authorization", "Bearer " + TOKEN).statusCode(), path);
            assertEquals(200, router.get(path, "Authorization", BASIC).statusCode(), path);
        }
        assertTrue(router.get("/metrics", "Authorization", "Bearer " + TOKEN).body().contains("lutra_statements_total"));
        assertEquals(200, router.get("/health/live").statusCode(), "probes carry no credentials");
        assertEquals(200, router.get("/health/ready").statusCode());
    }

    @Test
    void hugeRequestsAreRefusedAndTheListenerGoesOn() throws Exception {
        assertTrue(status(raw("GET /" + "a".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")).matches("414|400"), "a 100 kB request line");
        assertTrue(status(raw("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(64_000) + "\r\n\r\n")).matches("431|400"), "64 kB of headers");
        var manyHeaders = new StringBuilder("GET /metrics HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 5_000; i++) manyHeaders.append("X-").append(i).append(": y\r\n");
        assertTrue(status(raw(manyHeaders + "\r\n")).matches("431|400"), "5,000 headers");
        String body = "c".repeat(1_000_000);
        assertTrue(status(raw("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)).matches("413|405"),
                "a 1 MB body");
        assertListenerAndSessionsWork();
    }

    @Test
    void malformedRequestsAreAnswered400OrClosedAndTheListenerGoesOn() throws Exception {
        for (String garbage : List.of("GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
                "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003")) {
            String answer = raw(garbage);
            assertTrue(answer.isEmpty() || answer.startsWith("HTTP/1.1 400") || answer.startsWith("HTTP/1.1 401") || answer.startsWith("HTTP/1.1 505"),
                    "answer to " + garbage.strip() + ": " + answer.lines().findFirst().orElse(""));
        }
        var random = new SplittableRandom(27);
        for (int i = 0; i < 50; i++) {
            byte[] bytes = new byte[1 + random.nextInt(4096)];
            random.nextBytes(bytes);
            rawBytes(bytes);
        }
        assertListenerAndSessionsWork();
    }

    @Test
    void tricklingAndIdleConnectionsAreClosedAndDoNotStopOthers() throws Exception {
        var slow = new ArrayList<Socket>();
        try {
            for (int i = 0; i < 20; i++) {
                var s = new Socket("127.0.0.1", router.operations.httpPort());
                s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)); // never finished
                s.getOutputStream().flush();
                slow.add(s);
            }
            for (int i = 0; i < 5; i++) slow.add(new Socket("127.0.0.1", router.operations.httpPort())); // silent
            assertListenerAndSessionsWork();
            // the server closes them once a whole request has not arrived in time (HttpListener.REQUEST_SECONDS)
            for (var s : slow) {
                s.setSoTimeout(60_000);
                assertEquals(-1, drain(s.getInputStream()), "closed by the router");
            }
        } finally {
            for (var s : slow) s.close();
        }
        // more connections than the listener keeps: the excess is closed at once, the listener goes on
        var many = new ArrayList<Socket>();
        try {
            for (int i = 0; i < 200; i++) many.add(new Socket("127.0.0.1", router.operations.httpPort()));
        } finally {
            for (var s : many) s.close();
        }
        Thread.sleep(500);
        assertListenerAndSessionsWork();
    }

    /** A proper request is answered, and the session open since the start answers statements. */
    void assertListenerAndSessionsWork() throws Exception {
        var r = router.get("/metrics", "Authorization", "Bearer " + TOKEN);
        assertEquals(200, r.statusCode());
        try (var st = session.createStatement(); var rs = st.executeQuery("SELECT SUM(v) FROM kv")) {
            assertTrue(rs.next());
            assertEquals(10, rs.getInt(1));
        }
        try (var other = router.connect(); var st = other.createStatement(); var rs = st.executeQuery("SELECT v FROM kv WHERE k = 3")) {
            assertTrue(rs.next());
            assertEquals(3, rs.getInt(1));
        }
    }

    String raw(String request) throws IOException {
        return rawBytes(request.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Sends {@code bytes} on a new connection; what came back before the router closed it (or 15 s passed), as text. */
    String rawBytes(byte[] bytes) throws IOException {
        try (var s = new Socket("127.0.0.1", router.operations.httpPort())) {
            s.setSoTimeout(15_000);
            try {
                s.getOutputStream().write(bytes);
                s.getOutputStream().flush();
                s.shutdownOutput();
            } catch (IOException e) {
                // the router closed the connection while the request was still being sent: that is an answer too
            }
            var out = new java.io.ByteArrayOutputStream();
            try {
                s.getInputStream().transferTo(out);
            } catch (SocketTimeoutException | java.net.SocketException e) {
                // reset, or nothing more
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        }
    }

    static String status(String response) {
        return response.length() >= 12 && response.startsWith("HTTP/1.1 ") ? response.substring(9, 12) : "closed";
    }

    static int drain(InputStream in) throws IOException {
        try {
            while (true) {
                int b = in.read();
                if (b < 0) return -1;
            }
        } catch (java.net.SocketException e) {
            return -1; // reset by the router: closed too
        }
    }
}
