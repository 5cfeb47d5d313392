package org.lutra.it;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.protocol.Auth;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.CloseCursor;
import org.lutra.protocol.Execute;
import org.lutra.protocol.Fetch;
import org.lutra.protocol.Frames;
import org.lutra.protocol.Hello;
import org.lutra.protocol.Ping;
import org.lutra.protocol.Quit;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A bounded protocol fuzzer: clients send random frames, mutated valid frames (before and after
 * login) and random statements through the driver (with transactions left open, cursors left
 * unread, connections cut mid-result), for {@code lutra.fuzz.seconds} (default 10; {@code -Pfuzz-long}: 120). Then: no
 * router thread died, the router serves a fresh session, and once every session has ended every
 * backend connection is back in its pool; no statement met an unexpected exception (an incident),
 * no session stopped answering and every session ended. {@code -Dlutra.fuzz.strict=false} reports
 * the last three without failing (to look further after a finding). {@code lutra.fuzz.seed} replays a run's
 * choices (the interleaving of its threads aside).
 */
@ExtendWith({EmbeddedShardsExtension.class, HeapReport.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProtocolFuzzIT {
    static final int SECONDS = Integer.getInteger("lutra.fuzz.seconds", 10);
    static final long SEED = Long.getLong("lutra.fuzz.seed", System.nanoTime());
    static final int WORKERS = 4;
    /** Fail on stuck sessions and incidents too (the default; -Dlutra.fuzz.strict=false only reports them). */
    static final boolean STRICT = !"false".equals(System.getProperty("lutra.fuzz.strict"));
    /**
     * Pools large enough that the clients' open cursors do not exhaust them: a statement that fails
     * waiting for a pooled connection is issue 13's other item (sessions starving each other), and
     * under that pressure a session was seen stuck draining a UNION branch it was closing (docs/failures.md); this test is after what hostile input does.
     */
    static final int POOL = 48;

    TestRouter router;
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    final List<String> incidents = Collections.synchronizedList(new ArrayList<>());
    final List<String> died = Collections.synchronizedList(new ArrayList<>());
    final List<String> stuck = Collections.synchronizedList(new ArrayList<>());
    /** What each driver session sent, by the router's session id: to name the statements of a session left stuck. */
    final Map<Long, List<String>> histories = new ConcurrentHashMap<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        // short login and idle deadlines, so that abandoned sockets are reclaimed within the run
        router = new TestRouter(shards, "fuzzit", """
                CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
                CREATE TABLE fz (k INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
                """, null, shards.size(), new RouterConfig.Limits(0, 0, 0, 0, 0, 2, 0, 3, 200, 0, 0)
                        .withoutLoginThrottle() /* its wrong Hellos for user app come from the drivers' address */, POOL);
        try (var c = router.connect()) {
            var values = new StringBuilder();
            for (int k = 1; k <= 40; k++) values.append(k == 1 ? "" : ", ").append("(").append(k).append(", 'v").append(k).append("')");
            c.createStatement().executeUpdate("INSERT INTO kv VALUES " + values);
        }
    }

    @AfterAll
    void stop() throws Exception {
        try {
            router.close();
        } catch (SQLException e) {
            // a session stuck on a shard (docs/failures.md) can hold a metadata lock the database's DROP waits for
            if (STRICT) throw e;
            System.err.println("ProtocolFuzzIT: could not drop the test databases: " + e.getMessage());
        }
    }

    @Test
    void fuzzedClientsNeverCrashTheRouterNorLeakItsConnections() throws Exception {
        var previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            if (t.getName().startsWith("lutra")) died.add(t.getName() + ": " + e);
            if (previous != null) previous.uncaughtException(t, e);
        });
        long end = System.nanoTime() + SECONDS * 1_000_000_000L;
        var pool = Executors.newFixedThreadPool(WORKERS);
        try {
            var futures = new ArrayList<java.util.concurrent.Future<?>>();
            for (int w = 0; w < WORKERS; w++) {
                var random = new Random(SEED + w);
                futures.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        try {
                            switch (random.nextInt(10)) {
                                case 0, 1 -> rawFrames(random, false);
                                case 2, 3 -> rawFrames(random, true);
                                default -> statements(random);
                            }
                        } catch (IOException | SQLException e) {
                            count("client: " + e.getClass().getSimpleName());
                        }
                    }
                    return null;
                }));
            }
            for (var f : futures) f.get();
        } finally {
            pool.shutdownNow();
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }

        // afterwards: a fresh session is served, and everything the clients held is released
        try (var c = router.connect(); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM kv")) {
            assertTrue(rs.next());
            assertEquals(40, rs.getInt(1));
        }
        long deadline = System.nanoTime() + 15_000_000_000L; // the login and idle deadlines reclaim abandoned sockets
        while ((router.server.openSessions() > 0 || router.server.activeBackendConnections() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        var report = new ArrayList<String>();
        report.add("seed " + SEED + ", " + SECONDS + " s, " + WORKERS + " clients");
        new TreeMap<>(counts).forEach((k, v) -> report.add(String.format("%-60s %,d", k, v.get())));
        stuck.forEach(report::add);
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (!thread.getName().startsWith("lutra-session-")) return;
            long id = Long.parseLong(thread.getName().substring("lutra-session-".length()));
            report.add("router session " + id + " still running, its client sent " + histories.getOrDefault(id, List.of("(raw frames)")));
            for (var frame : stack) if (frame.getClassName().startsWith("org.lutra") || frame.getClassName().startsWith("com.mysql")) report.add("    at " + frame);
        });
        incidents.stream().limit(20).forEach(report::add);
        report.add("incidents: " + incidents.size() + ", router threads died: " + died.size()
                + ", sessions left: " + router.server.openSessions() + ", backend connections left: " + heldBackendConnections());
        Report.write("ProtocolFuzzIT.md", report);
        String summary = String.join("\n", report);
        assertTrue(died.isEmpty(), "router threads died:\n" + String.join("\n", died) + "\n" + summary);
        if (router.server.openSessions() == 0) {
            assertEquals(0, heldBackendConnections(), "backend connections leaked by sessions that ended\n" + summary);
        }
        // the report lists stuck sessions and incidents either way
        if (STRICT) {
            assertTrue(stuck.isEmpty(), "sessions stopped answering:\n" + String.join("\n", stuck) + "\n" + summary);
            assertTrue(incidents.isEmpty(), "unexpected exceptions in the router:\n" + String.join("\n", incidents.subList(0, Math.min(20, incidents.size()))) + "\n" + summary);
            assertEquals(0, router.server.openSessions(), "sessions stuck after every client left\n" + summary);
            assertEquals(0, heldBackendConnections(), "backend connections held\n" + summary);
        } else if (!stuck.isEmpty() || !incidents.isEmpty() || router.server.openSessions() > 0) {
            System.err.println("ProtocolFuzzIT (not strict): known problems seen, see target/hardening/ProtocolFuzzIT.md\n" + summary);
        }
        assertTrue(counts.getOrDefault("statement: answered", new AtomicLong()).get() > 0, summary);
    }

    // ---- raw frames -----------------------------------------------------------------------------

    /** One socket: optionally a login, then a few random or mutated frames, and whatever the router answers. */
    private void rawFrames(Random random, boolean login) throws IOException {
        try (var socket = new Socket("127.0.0.1", router.server.port())) {
            socket.setSoTimeout(3_000);
            var in = socket.getInputStream();
            var out = socket.getOutputStream();
            ServerMessage challenge = Frames.read(in, ServerMessage.parser(), 1 << 20);
            if (challenge == null || !challenge.hasChallenge()) {
                count("raw: no challenge (" + (challenge == null ? "closed" : challenge.getKindCase()) + ")");
                return;
            }
            if (login) {
                byte[] proof = Auth.proof(Auth.passwordKey(TestRouter.PASSWORD), challenge.getChallenge().getNonce().toByteArray());
                Frames.write(out, ClientMessage.newBuilder().setRequestId(1).setHello(Hello.newBuilder()
                        .setUser(TestRouter.USER).setProof(ByteString.copyFrom(proof)).setProtocolVersion(1)).build());
                ServerMessage ok = Frames.read(in, ServerMessage.parser(), 1 << 20);
                if (ok == null || !ok.hasHelloOk()) {
                    count("raw: login failed");
                    return;
                }
            }
            for (int i = 0, n = 1 + random.nextInt(6); i < n; i++) {
                byte[] frame = switch (random.nextInt(5)) {
                    case 0 -> randomFrame(random);
                    case 1 -> lengthLies(random, valid(random, login));
                    case 2 -> truncated(random, valid(random, login));
                    default -> frame(mutate(random, valid(random, login).toByteArray()));
                };
                out.write(frame);
                out.flush();
                count("raw: frames sent " + (login ? "after login" : "before login"));
                if (!answers(in, random)) return;
            }
            if (random.nextInt(4) == 0) socket.setSoLinger(true, 0); // a reset instead of a close
        } catch (java.net.SocketException reset) {
            count("raw: connection reset by the router");
        }
    }

    /** Reads what the router answers to one frame; false once it has closed the connection. */
    private boolean answers(InputStream in, Random random) throws IOException {
        try {
            ServerMessage m = Frames.read(in, ServerMessage.parser(), 16 << 20);
            if (m == null) {
                count("raw: router closed the connection");
                return false;
            }
            if (m.hasError()) {
                count("raw: error " + m.getError().getSqlState());
                checkIncident(m.getError().getMessage(), "raw frame");
                return !m.getError().getSqlState().startsWith("08");
            }
            count("raw: answer " + m.getKindCase());
            return true;
        } catch (SocketTimeoutException e) {
            count("raw: no answer in 3 s (frame incomplete)");
            return random.nextBoolean();
        } catch (Frames.FrameException e) {
            fail("the router sent a frame its own reader refuses: " + e.getMessage());
            return false;
        }
    }

    private static final String[] STATEMENT_SEEDS = {
            "SELECT * FROM kv WHERE k = 1", "SELECT k, v FROM kv WHERE k IN (1, 2, 3) ORDER BY v LIMIT 2",
            "SELECT COUNT(*), SUM(k) FROM kv", "SELECT v, COUNT(*) FROM kv GROUP BY v HAVING COUNT(*) > 0 ORDER BY 2 DESC, 1",
            "SELECT DISTINCT v FROM kv ORDER BY v", "SELECT * FROM kv a JOIN fz b ON a.k = b.k", "SELECT * FROM kv WHERE k BETWEEN 3 AND 9",
            "SELECT k FROM kv UNION SELECT k FROM fz", "SELECT * FROM kv WHERE k = (SELECT MAX(k) FROM fz)",
            "SELECT * FROM (SELECT k, v FROM kv WHERE k < 5) t ORDER BY k", "WITH t AS (SELECT k FROM kv) SELECT COUNT(*) FROM t",
            "SELECT k, ROW_NUMBER() OVER (ORDER BY k) FROM kv", "SELECT GROUP_CONCAT(v SEPARATOR ';') FROM kv",
            "INSERT INTO fz VALUES (?, 'x')", "INSERT INTO fz (k, v) VALUES (7, 'a'), (8, 'b')", "UPDATE fz SET v = 'y' WHERE k = ?",
            "DELETE FROM fz WHERE k = 7", "REPLACE INTO fz VALUES (9, 'r')", "BEGIN", "COMMIT", "ROLLBACK", "SET autocommit = 0",
            "SET autocommit = 1", "START TRANSACTION READ ONLY", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
            "SHOW TABLES", "SHOW FULL TABLES LIKE 'k%'", "DESCRIBE kv", "SHOW CREATE TABLE kv", "SHOW INDEX FROM kv",
            "EXPLAIN ROUTE SELECT * FROM kv WHERE k IN (1, 2)", "SHOW LUTRA STATUS", "SELECT DATABASE()", "USE fuzz",
            "SELECT * FROM kv WHERE v LIKE 'v1%' AND NOT (k > 30 OR k < 2)", "SELECT CASE WHEN k > 3 THEN 'a' ELSE 'b' END FROM kv",
            "SELECT * FROM kv WHERE k = 1 FOR UPDATE", "SELECT ?, ? FROM kv WHERE k = ?", "SAVEPOINT s", "XA START 'x'",
            "SELECT @x", "SET @x = 'a', time_zone = '+01:00'", "SET sql_mode = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')", "SHOW WARNINGS",
            "SELECT * FROM kv WHERE k = @x", "SHOW COUNT(*) ERRORS", "SELECT LAST_INSERT_ID()", "SELECT * FROM information_schema.tables", "CREATE TABLE t (a INT)",
    };

    private static final String[] TOKENS = {
            "SELECT", "FROM", "WHERE", "kv", "fz", "k", "v", "(", ")", ",", "NOT", "AND", "OR", "=", "<>", "<=>", "+", "-", "*", "/",
            "'x'", "'", "\"", "`", "?", "1", "-1", "0x41", "1e308", "NULL", "IN", "BETWEEN", "LIKE", "ORDER BY", "GROUP BY", "LIMIT",
            "UNION", "JOIN", "ON", "CASE", "WHEN", "THEN", "END", "/*", "*/", "/*!50000", "--", "#", "\n", ";", "\\", "COUNT(*)",
            "SUM(k)", "OVER ()", "EXISTS", "SELECT 1", "@@autocommit", "\u00e9", "\uD83D\uDE00", "\u0000", "\uD800", "`kv`", "kv.k",
    };

    private String randomStatement(Random random) {
        var tokens = new ArrayList<>(List.of(STATEMENT_SEEDS[random.nextInt(STATEMENT_SEEDS.length)].split(" ")));
        for (int i = 0, n = random.nextInt(4); i < n; i++) {
            int at = random.nextInt(tokens.size() + 1);
            switch (random.nextInt(7)) {
                case 0 -> { if (!tokens.isEmpty() && at < tokens.size()) tokens.remove(at); }
                case 1 -> tokens.add(at, TOKENS[random.nextInt(TOKENS.length)]);
                case 2 -> { if (at < tokens.size()) tokens.add(at, tokens.get(at)); }
                case 3 -> tokens.add(at, (TOKENS[random.nextInt(TOKENS.length)] + " ").repeat(1 + random.nextInt(random.nextInt(8) == 0 ? 5_000 : 50)));
                case 4 -> tokens.add(at, "'" + "z".repeat(random.nextInt(random.nextInt(8) == 0 ? 200_000 : 100)) + "'");
                case 5 -> Collections.shuffle(tokens.subList(at, Math.min(tokens.size(), at + 3)), random);
                default -> tokens.add(at, "(".repeat(random.nextInt(300)));
            }
        }
        return String.join(" ", tokens);
    }

    /** A valid message of a random kind, with random contents. */
    private ClientMessage valid(Random random, boolean loggedIn) {
        var m = ClientMessage.newBuilder().setRequestId(random.nextInt(5));
        switch (random.nextInt(loggedIn ? 6 : 2)) {
            case 0 -> m.setHello(Hello.newBuilder().setUser(random.nextBoolean() ? TestRouter.USER : "u" + random.nextInt())
                    .setProof(ByteString.copyFrom(new byte[random.nextInt(40)])).setDatabase(random.nextBoolean() ? "" : "db"));
            case 1, 2 -> {
                var e = Execute.newBuilder().setSql(randomStatement(random)).setFetchSize(random.nextInt(4)).setMaxRows(random.nextInt(3));
                for (int i = 0, n = random.nextInt(4); i < n; i++) {
                    e.addParams(switch (random.nextInt(7)) {
                        case 0 -> Value.newBuilder().setIntValue(random.nextLong()).build();
                        case 1 -> Value.newBuilder().setStringValue("s" + random.nextInt()).build();
                        case 2 -> Value.newBuilder().setDoubleValue(random.nextBoolean() ? Double.NaN : random.nextDouble()).build();
                        case 3 -> Value.newBuilder().setDecimalValue(random.nextBoolean() ? "1e99999" : "abc").build();
                        case 4 -> Value.newBuilder().setDateValue("2020-13-45").build();
                        case 5 -> Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[random.nextInt(10)])).build();
                        default -> Value.getDefaultInstance();
                    });
                }
                m.setExecute(e);
            }
            case 3 -> m.setFetch(Fetch.newBuilder().setCursorId(random.nextInt(4)).setFetchSize(random.nextInt(3) - 1));
            case 4 -> m.setCloseCursor(CloseCursor.newBuilder().setCursorId(random.nextInt(4)));
            default -> m.setPing(Ping.getDefaultInstance());
        }
        if (random.nextInt(20) == 0) m.setQuit(Quit.getDefaultInstance());
        return m.build();
    }

    private static byte[] randomFrame(Random random) {
        byte[] body = new byte[random.nextInt(random.nextInt(10) == 0 ? 70_000 : 64)];
        random.nextBytes(body);
        return frame(body);
    }

    /** A frame whose length prefix says more (or much more) than follows. */
    private static byte[] lengthLies(Random random, ClientMessage m) {
        byte[] body = m.toByteArray();
        int claimed = random.nextBoolean() ? body.length + 1 + random.nextInt(100) : random.nextInt();
        byte[] out = frame(body);
        out[0] = (byte) (claimed >>> 24);
        out[1] = (byte) (claimed >>> 16);
        out[2] = (byte) (claimed >>> 8);
        out[3] = (byte) claimed;
        return out;
    }

    private static byte[] truncated(Random random, ClientMessage m) {
        byte[] whole = frame(m.toByteArray());
        return java.util.Arrays.copyOf(whole, random.nextInt(whole.length));
    }

    private static byte[] mutate(Random random, byte[] body) {
        body = body.clone();
        for (int i = 0, n = 1 + random.nextInt(4); i < n && body.length > 0; i++) {
            int at = random.nextInt(body.length);
            switch (random.nextInt(3)) {
                case 0 -> body[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> body[at] = (byte) random.nextInt(256);
                default -> body = java.util.Arrays.copyOf(body, at);
            }
        }
        return body;
    }

    private static byte[] frame(byte[] body) {
        byte[] out = new byte[4 + body.length];
        out[0] = (byte) (body.length >>> 24);
        out[1] = (byte) (body.length >>> 16);
        out[2] = (byte) (body.length >>> 8);
        out[3] = (byte) body.length;
        System.arraycopy(body, 0, out, 4, body.length);
        return out;
    }

    // ---- statements through the driver ----------------------------------------------------------

    private void statements(Random random) throws SQLException {
        // a router that never answers is a stuck session: the driver gives up after 45 s and the statement is reported
        // (a statement may legitimately wait 10 s for each pooled connection while other clients hold them all:
        // docs/testing.md, the fuzzer's pools)
        Connection c = java.sql.DriverManager.getConnection(router.url() + "?socketTimeout=45000", TestRouter.USER, TestRouter.PASSWORD);
        var history = new ArrayList<String>();
        histories.put(sessionId(c), history);
        boolean aborted = false;
        try {
            if (random.nextInt(3) == 0) c.setAutoCommit(false);
            var open = new ArrayList<java.sql.ResultSet>();
            for (int i = 0, n = 1 + random.nextInt(12); i < n; i++) {
                String sql = random.nextInt(3) == 0 ? STATEMENT_SEEDS[random.nextInt(STATEMENT_SEEDS.length)] : randomStatement(random);
                history.add(sql.length() > 200 ? sql.substring(0, 200) + "..." : sql);
                try {
                    if (sql.contains("?")) {
                        var ps = c.prepareStatement(sql);
                        for (int p = 1, params = random.nextInt(4); p <= params; p++) ps.setInt(p, random.nextInt(50));
                        ps.setFetchSize(1 + random.nextInt(3));
                        if (ps.execute()) open.add(ps.getResultSet());
                    } else {
                        var st = c.createStatement();
                        st.setFetchSize(1 + random.nextInt(3));
                        if (random.nextInt(5) == 0) st.setMaxRows(1 + random.nextInt(3));
                        if (st.execute(sql)) open.add(st.getResultSet());
                    }
                    count("statement: answered");
                    if (!open.isEmpty() && random.nextBoolean()) { // read a little of some result, leave the rest
                        var rs = open.get(random.nextInt(open.size()));
                        for (int r = random.nextInt(3); r > 0 && rs.next(); r--) rs.getObject(1);
                    }
                    // at most two results left open per connection: more would have the clients starve each other
                    // of pooled connections, which is issue 13's other item and not what this test is after
                    while (open.size() > 2) open.removeFirst().close();
                } catch (SQLException e) {
                    String state = e.getSQLState() == null ? "null" : e.getSQLState();
                    count("statement: error " + state);
                    checkIncident(e.getMessage(), sql);
                    if (e.getCause() instanceof SocketTimeoutException || e instanceof java.sql.SQLTimeoutException) {
                        stuck.add("no answer in 45 s to the last of: " + history);
                    }
                    if (state.startsWith("08")) {
                        assertTrue(c.isClosed() || !c.isValid(1), "08 for a connection that still works: " + e.getMessage());
                        return;
                    }
                }
            }
            if (random.nextInt(4) == 0) { // cut the connection mid-result, mid-transaction
                c.abort(Runnable::run);
                aborted = true;
                count("statement: connection aborted");
            }
        } finally {
            if (!aborted) {
                long t0 = System.nanoTime();
                try {
                    c.close();
                } catch (SQLException e) {
                    stuck.add("closing the connection failed (" + e.getMessage() + ") after: " + history);
                }
                if (System.nanoTime() - t0 > 10_000_000_000L) count("statement: closing the connection took over 10 s (pool or lock waits)");
            }
        }
    }

    /** The router's id of a driver connection's session (the driver keeps it package-private). */
    private static long sessionId(Connection c) {
        try {
            var field = c.getClass().getDeclaredField("session");
            field.setAccessible(true);
            Object session = field.get(c);
            var method = session.getClass().getDeclaredMethod("sessionId");
            method.setAccessible(true);
            return (long) method.invoke(session);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private void checkIncident(String message, String context) {
        if (message != null && message.contains("internal router error")) {
            incidents.add(message + " <- " + (context.length() > 300 ? context.substring(0, 300) + "..." : context));
        }
    }

    private void count(String what) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    /**
     * Backend connections borrowed and not given back, once the router's own background work (its
     * catalog lease, the placement log's tailer, a session's home-row locks released after it ended)
     * has had 5 s to return what it borrowed for a moment: a leak stays, a background borrow passes.
     */
    private int heldBackendConnections() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        int held = router.server.activeBackendConnections();
        while (held > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
            held = router.server.activeBackendConnections();
        }
        return held;
    }
}
