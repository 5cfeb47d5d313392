package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile bytes at the MySQL listener: random and mutated packets before and after login, lying
 * length prefixes, a 16 MB length announced and never sent, wrong sequence ids, truncated commands
 * and a client that trickles its login. Each such connection gets an ERR packet or is closed; a
 * session opened before them (inside a transaction) and a fresh one afterwards are still served.
 * {@code -Dlutra.fuzz.seed=N} replays a run.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlProtocolFuzzIT {
    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "mysqlfuzz", "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);");
        try (var c = router.connect()) {
            c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one'), (2, 'two')");
        }
    }

    @AfterAll
    void stop() {
        router.server.close();
    }

    @Test
    void hostilePacketsCostOnlyTheirOwnConnection() throws Exception {
        long seed = Long.getLong("lutra.fuzz.seed", System.nanoTime());
        System.out.println("MysqlProtocolFuzzIT: seed " + seed);
        var random = new Random(seed);
        try (Connection bystander = router.connectMysql("")) {
            bystander.setAutoCommit(false);
            bystander.createStatement().executeUpdate("UPDATE kv SET v = 'uno' WHERE k = 1"); // an open transaction that must survive
            int errors = 0, closed = 0, waiting = 0, other = 0;
            for (int round = 0; round < 60; round++) {
                try (Socket s = new Socket("127.0.0.1", router.server.mysqlPort())) {
                    s.setSoTimeout(5_000);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    readPacket(in); // the greeting
                    byte[] junk = switch (round % 6) {
                        case 0 -> randomBytes(random, 1 + random.nextInt(200)); // noise
                        case 1 -> packet(1, randomBytes(random, random.nextInt(64))); // a short, malformed handshake response
                        case 2 -> new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1}; // 16 MB announced, nothing sent
                        case 3 -> packet(random.nextInt(256), handshake("app", random)); // wrong sequence id, no valid auth
                        case 4 -> packet(1, truncated(handshake("app", random), random)); // truncated in the middle
                        default -> packet(1, new byte[] {(byte) random.nextInt(256)}); // one byte
                    };
                    out.write(junk);
                    out.flush();
                    byte[] answer = readPacket(in);
                    if (answer == null) closed++;
                    else if (answer.length > 0 && (answer[0] & 0xFF) == 0xFF) errors++;
                    else other++; // an auth continuation (switch, more data) for a handshake that parsed
                } catch (SocketTimeoutException e) {
                    waiting++; // bytes announced and never sent: the router waits for them until the login deadline
                } catch (IOException e) {
                    closed++;
                }
            }
            System.out.println("MysqlProtocolFuzzIT: " + errors + " errors, " + closed + " closed, " + waiting + " waiting, " + other + " auth steps");
            assertTrue(errors > 0, "no hostile connection was told why");
            try (var rs = bystander.createStatement().executeQuery("SELECT v FROM kv WHERE k = 1")) {
                assertTrue(rs.next());
                assertEquals("uno", rs.getString(1), "the bystander's transaction went on");
            }
            bystander.rollback();
        }
        try (Connection fresh = router.connectMysql(""); var rs = fresh.createStatement().executeQuery("SELECT COUNT(*) FROM kv")) {
            assertTrue(rs.next());
            assertEquals(2, rs.getInt(1));
        }
        // a closed connection's session ends on the router's side after the client's close returned: wait for it, boundedly
        for (int i = 0; i < 100 && router.server.activeBackendConnections() > 0; i++) Thread.sleep(50);
        assertEquals(0, router.server.activeBackendConnections(), "no backend connection left borrowed");
    }

    private static byte[] handshake(String user, Random random) {
        var b = new java.io.ByteArrayOutputStream();
        int caps = 0x000FA68D; // protocol 41, secure connection, plugin auth, ...
        b.writeBytes(new byte[] {(byte) caps, (byte) (caps >> 8), (byte) (caps >> 16), (byte) (caps >> 24)});
        b.writeBytes(new byte[] {0, 0, 0, 1, 45});
        b.writeBytes(new byte[23]);
        b.writeBytes(user.getBytes());
        b.write(0);
        b.write(20);
        b.writeBytes(randomBytes(random, 20));
        b.writeBytes("caching_sha2_password".getBytes());
        b.write(0);
        return b.toByteArray();
    }

    private static byte[] truncated(byte[] b, Random random) {
        return java.util.Arrays.copyOf(b, random.nextInt(b.length));
    }

    private static byte[] packet(int sequence, byte[] payload) {
        byte[] p = new byte[4 + payload.length];
        p[0] = (byte) payload.length;
        p[1] = (byte) (payload.length >> 8);
        p[2] = (byte) (payload.length >> 16);
        p[3] = (byte) sequence;
        System.arraycopy(payload, 0, p, 4, payload.length);
        return p;
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** One packet's payload, or null at the end of the stream. */
    private static byte[] readPacket(InputStream in) throws IOException {
        byte[] header = in.readNBytes(4);
        if (header.length < 4) return null;
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        return in.readNBytes(length);
    }
}
