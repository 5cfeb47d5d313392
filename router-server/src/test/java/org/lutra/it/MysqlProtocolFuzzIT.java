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
 * length prefixes, a 16 MB length announced and never sent, wrong sequence ids, truncated commands,
 * and a client that stops reading a large result. Each such connection gets an ERR packet or is
 * closed; a session opened before them (inside a transaction) and a fresh one afterwards are still served.
 * {@code -Dlutra.fuzz.seed=N} replays a run.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlProtocolFuzzIT {
    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "mysqlfuzz", "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);\n"
                + "CREATE TABLE big (k INT PRIMARY KEY) PARTITION BY hash(k) ON (p0, p1, p2, p3);\n"
                + "CREATE TABLE one (k INT PRIMARY KEY) PARTITION BY hash(k) ON (p0);");
        try (var c = router.connect()) {
            c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one'), (2, 'two')");
            var rows = new java.util.ArrayList<String>();
            for (int k = 1; k <= BIG_ROWS; k++) rows.add("(" + k + ")");
            c.createStatement().executeUpdate("INSERT INTO big VALUES " + String.join(", ", rows));
            c.createStatement().executeUpdate("INSERT INTO one VALUES " + String.join(", ", rows));
        }
    }

    @AfterAll
    void stop() {
        router.server.close();
    }

    /** Rows of table big; each is read as 100,000 bytes, so that its result is 20 MB, far over what the sockets buffer. */
    static final int BIG_ROWS = 200;
    static final String BIG_RESULT = "SELECT k, REPEAT('x', 100000) FROM big ORDER BY k";

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

    /**
     * Hostile commands from a client that logged in: COM_STMT_EXECUTE, FETCH, SEND_LONG_DATA, RESET and CLOSE of a prepared
     * statement with random, mutated and truncated payloads, random command bytes, undecodable query text, empty packets,
     * wrong sequence ids. Each connection then answers a query of its own or is closed, never hangs; a session inside a
     * transaction beside them goes on, and no backend connection is left borrowed.
     */
    @Test
    void hostileCommandsAfterLoginCostOnlyTheirOwnConnection() throws Exception {
        long seed = Long.getLong("lutra.fuzz.seed", System.nanoTime());
        System.out.println("MysqlProtocolFuzzIT (after login): seed " + seed);
        var random = new Random(seed);
        int served = 0, closed = 0;
        try (Connection bystander = router.connectMysql("")) {
            bystander.setAutoCommit(false);
            bystander.createStatement().executeUpdate("UPDATE kv SET v = 'uno' WHERE k = 1");
            for (int round = 0; round < 60; round++) {
                try (var client = new RawMysqlClient(router.server.mysqlPort(), 0)) {
                    byte[] ok = client.login(TestRouter.USER, TestRouter.PASSWORD, router.database);
                    assertTrue(ok != null && ok[0] == 0, "login, round " + round + " (seed " + seed + ")");
                    long id = client.prepare("SELECT v FROM kv WHERE k = ?");
                    hostileCommand(client, round % 9, id, random);
                    String marker = "alive-" + round;
                    try {
                        client.command(RawMysqlClient.COM_QUERY, ("SELECT '" + marker + "'").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        if (client.readUntil(marker)) served++;
                        else closed++;
                    } catch (SocketTimeoutException e) {
                        throw new AssertionError("round " + round + " (case " + round % 9 + ", seed " + seed + "): the connection neither answered nor closed", e);
                    } catch (IOException e) {
                        closed++; // closed while the query was being written
                    }
                }
            }
            System.out.println("MysqlProtocolFuzzIT (after login): " + served + " served after a hostile command, " + closed + " closed");
            assertTrue(served > 0, "every hostile command closed its connection (seed " + seed + ")");
            try (var rs = bystander.createStatement().executeQuery("SELECT v FROM kv WHERE k = 1")) {
                assertTrue(rs.next());
                assertEquals("uno", rs.getString(1), "the bystander's transaction went on");
            }
            bystander.rollback();
        }
        awaitNoBackendConnectionBorrowed();
    }

    private static void hostileCommand(RawMysqlClient client, int kind, long id, Random random) throws IOException {
        byte[] idBytes = {(byte) id, (byte) (id >> 8), (byte) (id >> 16), (byte) (id >> 24)};
        switch (kind) {
            case 0 -> client.command(0x17, concat(idBytes, randomBytes(random, random.nextInt(40)))); // EXECUTE, random after the id
            case 1 -> { // EXECUTE with one parameter bound as a random type, its value random and maybe short
                byte[] head = {(byte) random.nextInt(256), 1, 0, 0, 0, (byte) random.nextInt(2), 1, (byte) random.nextInt(256), (byte) random.nextInt(256)};
                client.command(0x17, concat(idBytes, concat(head, randomBytes(random, random.nextInt(12)))));
            }
            case 2 -> client.command(0x1C, concat(idBytes, randomBytes(random, random.nextInt(6)))); // FETCH without a cursor, maybe short
            case 3 -> client.command(0x18, concat(idBytes, randomBytes(random, random.nextInt(100)))); // SEND_LONG_DATA: no answer
            case 4 -> { // a random command other than KILL (which could reach the bystander, a session of the same user)
                int command = random.nextInt(0x20);
                client.command(command == 0x0C ? 0x0D : command, randomBytes(random, random.nextInt(30)));
            }
            case 5 -> client.command(RawMysqlClient.COM_QUERY, randomBytes(random, 1 + random.nextInt(60))); // undecodable text
            case 6 -> client.send(0, new byte[0]); // an empty packet
            case 7 -> client.command(random.nextBoolean() ? 0x1A : 0x19, randomBytes(random, random.nextInt(6))); // RESET / CLOSE, random ids
            default -> client.send(1 + random.nextInt(255), new byte[] {0x0E}); // COM_PING with a wrong sequence id
        }
    }

    /**
     * A client that asks for 20 MB and does not read: the router stops writing at the socket's high-water mark while other
     * sessions are served; read later, the whole result arrives in order, and the session goes on. A second such client
     * that goes away mid-result ends its session and gives its backend connection back.
     */
    @Test
    void aClientThatStopsReadingHoldsOnlyItsOwnSession() throws Exception {
        var gone = new RawMysqlClient(router.server.mysqlPort(), 16 << 10);
        try (var slow = new RawMysqlClient(router.server.mysqlPort(), 16 << 10)) {
            for (var c : java.util.List.of(slow, gone)) {
                byte[] ok = c.login(TestRouter.USER, TestRouter.PASSWORD, router.database);
                assertTrue(ok != null && ok[0] == 0, "login");
                c.command(RawMysqlClient.COM_QUERY, BIG_RESULT.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            // both stream from their partitions' cursors, stopped by clients that read nothing
            for (int i = 0; i < 200 && router.server.activeBackendConnections() < 2; i++) Thread.sleep(50);
            try (Connection other = router.connectMysql(""); var rs = other.createStatement().executeQuery("SELECT COUNT(*) FROM big")) {
                assertTrue(rs.next());
                assertEquals(BIG_ROWS, rs.getInt(1), "another session is served meanwhile");
            }
            gone.close();
            var rows = slow.rows();
            assertEquals(BIG_ROWS, rows == null ? -1 : rows.size(), "the slow client's whole result");
            for (int k = 1; k <= BIG_ROWS; k++) {
                byte[] row = rows.get(k - 1);
                String key = new String(row, 1, row[0], java.nio.charset.StandardCharsets.US_ASCII);
                assertEquals(String.valueOf(k), key, "row " + k + " in order");
            }
            slow.command(RawMysqlClient.COM_QUERY, "SELECT 'after'".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertTrue(slow.readUntil("after"), "the slow client's session goes on");
        } finally {
            gone.close();
        }
        awaitNoBackendConnectionBorrowed();
    }

    /**
     * A client that asks for a result of 32 GB (a join on one partition: 8 million rows of 4,000 bytes) and hangs up: its
     * session stops pulling rows from the shard, ends, and gives its backend connection back, rather than reading the
     * rest of the result for a client that is gone.
     */
    @Test
    void aClientThatHangsUpMidResultStopsItsQuery() throws Exception {
        try (var gone = new RawMysqlClient(router.server.mysqlPort(), 16 << 10)) {
            byte[] ok = gone.login(TestRouter.USER, TestRouter.PASSWORD, router.database);
            assertTrue(ok != null && ok[0] == 0, "login");
            gone.command(RawMysqlClient.COM_QUERY, "SELECT a.k, b.k, c.k, REPEAT('x', 4000) FROM one a, one b, one c"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            for (int i = 0; i < 4; i++) assertTrue(gone.readPacket() != null, "the result begins");
            for (int i = 0; i < 200 && router.server.activeBackendConnections() < 1; i++) Thread.sleep(50);
        }
        awaitNoBackendConnectionBorrowed();
        try (Connection other = router.connectMysql(""); var rs = other.createStatement().executeQuery("SELECT COUNT(*) FROM one")) {
            assertTrue(rs.next());
            assertEquals(BIG_ROWS, rs.getInt(1), "the router goes on");
        }
    }

    /** A closed connection's session ends on the router's side after the client's close returned: wait for it, boundedly. */
    private void awaitNoBackendConnectionBorrowed() throws InterruptedException {
        for (int i = 0; i < 600 && router.server.activeBackendConnections() > 0; i++) Thread.sleep(50);
        assertEquals(0, router.server.activeBackendConnections(), "no backend connection left borrowed");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
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
