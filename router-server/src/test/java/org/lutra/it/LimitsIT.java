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
import org.lutra.protocol.Frames;
import org.lutra.protocol.Hello;
import org.lutra.protocol.ServerMessage;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What clients can make the router hold: frame memory before and after login, the handshake's
 * deadline, idle sessions, sessions in total and per user, the plan cache's bytes.
 */
@ExtendWith({EmbeddedShardsExtension.class, HeapReport.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LimitsIT {
    static final String SCHEMA = "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY hash(k) ON (p0, p1, p2, p3);";
    static final int MAX_SESSIONS = 6;
    static final int MAX_PER_USER = 3;
    static final long PLAN_CACHE_BYTES = 4 << 20;

    /** Tight limits: 6 sessions, 3 per user, a 2 s login, 2 s idle, a 4 MB plan cache. */
    TestRouter small;
    /** Default limits (1,000 sessions, 64 KiB before login, frames up to 1 MiB after). */
    TestRouter wide;
    final List<String> report = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        small = new TestRouter(shards, "limitsit", SCHEMA, null, shards.size(),
                new RouterConfig.Limits(0, 0, 0, 0, PLAN_CACHE_BYTES, 2, 0, 2, MAX_SESSIONS, MAX_PER_USER, 0));
        wide = new TestRouter(shards, "limitsitw", SCHEMA);
        for (var r : List.of(small, wide)) {
            try (var c = r.connect()) {
                c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one'), (2, 'two')");
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        Report.write("LimitsIT.md", report);
        small.close();
        wide.close();
    }

    @Test
    void beforeLoginAFrameMayBeSmallOnly() throws Exception {
        try (var raw = new Raw(wide)) {
            raw.header(16 << 20); // what the attacker announced
            ServerMessage reply = raw.reply();
            assertEquals("08P01", reply.getError().getSqlState(), reply.toString());
            assertTrue(reply.getError().getMessage().contains("exceeds the limit of 65536 bytes"), reply.getError().getMessage());
            assertTrue(raw.closed());
        }
        assertServes(wide);
    }

    @Test
    void framesAreAllocatedAsTheirBytesArrive() throws Exception {
        // 150 logged-in sockets each announce a frame of the largest size allowed (1 MiB) and send 10 bytes of it:
        // allocated at once that is 150 MiB; as the bytes arrive, 150 x 64 KiB
        int sockets = 150;
        var raws = new ArrayList<Raw>();
        long before = heapAfterGc();
        try {
            for (int i = 0; i < sockets; i++) {
                var raw = new Raw(wide);
                raws.add(raw);
                raw.login();
                raw.header((1 << 20) - 8);
                raw.bytes(new byte[10]);
            }
            Thread.sleep(500); // every session is inside its read
            assertEquals(sockets, wide.server.openSessions());
            long during = heapAfterGc();
            long grown = during - before;
            report.add(String.format(Locale.ROOT, "| %d logged-in sockets announce a 1 MiB frame, send 10 bytes | heap %d MB before, %d MB during (+%.1f MB) |",
                    sockets, before >> 20, during >> 20, grown / 1048576.0));
            assertTrue(grown < 50L << 20, "the router holds " + (grown >> 20) + " MB for " + sockets + " frames of 10 bytes");
        } finally {
            for (var raw : raws) raw.close();
        }
        assertServes(wide);
    }

    @Test
    void theWholeLoginHasADeadline() throws Exception {
        try (var raw = new Raw(small)) {
            long start = System.nanoTime();
            raw.header(1_000);
            while (!raw.closed() && System.nanoTime() - start < 10_000_000_000L) {
                Thread.sleep(300); // one byte at a time: no read ever waits long
                try {
                    raw.bytes(new byte[1]);
                } catch (IOException reset) {
                    break;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            report.add(String.format(Locale.ROOT, "| login trickled one byte every 0.3 s, login_timeout_seconds: 2 | closed after %.1f s |", seconds));
            assertTrue(seconds > 1.5 && seconds < 5, "closed after " + seconds + " s, expected the 2 s deadline");
        }
        assertServes(small);
    }

    @Test
    void anIdleSessionIsClosedWithMySqlsErrorAndItsTransactionRolledBack() throws Exception {
        try (var idle = small.connect(); var busy = small.connect()) {
            idle.setAutoCommit(false);
            idle.createStatement().executeUpdate("UPDATE kv SET v = 'uno' WHERE k = 1");
            long start = System.nanoTime();
            while (System.nanoTime() - start < 3_500_000_000L) {
                try (var rs = busy.createStatement().executeQuery("SELECT v FROM kv WHERE k = 2")) { // active: never idle 2 s
                    assertTrue(rs.next());
                }
                Thread.sleep(400);
            }
            var e = assertThrows(SQLException.class, () -> idle.createStatement().executeQuery("SELECT 1"));
            report.add("| a session idle 3.5 s, idle_timeout_seconds: 2 | " + e.getSQLState() + " " + e.getErrorCode() + " " + e.getMessage() + " |");
            assertEquals("08S01", e.getSQLState(), e.getMessage());
            assertEquals(4031, e.getErrorCode(), e.getMessage());
            assertTrue(idle.isClosed() || !idle.isValid(1));
            try (var rs = busy.createStatement().executeQuery("SELECT v FROM kv WHERE k = 1")) {
                assertTrue(rs.next());
                assertEquals("one", rs.getString(1), "the idle session's transaction was rolled back");
            }
        }
        waitForNoBackendConnections(small);
    }

    @Test
    void sessionsBeyondTheLimitsGetMySqlsErrors() throws Exception {
        var open = new ArrayList<AutoCloseable>();
        try {
            for (int i = 0; i < MAX_PER_USER; i++) open.add(small.connect());
            var perUser = assertThrows(SQLException.class, small::connect);
            report.add("| session " + (MAX_PER_USER + 1) + " of one user, max_sessions_per_user: " + MAX_PER_USER + " | "
                    + perUser.getSQLState() + " " + perUser.getErrorCode() + " " + perUser.getMessage() + " |");
            assertEquals("42000", perUser.getSQLState(), perUser.getMessage());
            assertEquals(1203, perUser.getErrorCode());
            // sockets that have not logged in count too (until their login deadline)
            while (open.size() < MAX_SESSIONS) {
                var raw = new Raw(small);
                open.add(raw);
            }
            var total = assertThrows(SQLException.class, small::connect);
            report.add("| connection " + (MAX_SESSIONS + 1) + ", max_sessions: " + MAX_SESSIONS + " | "
                    + total.getSQLState() + " " + total.getErrorCode() + " " + total.getMessage() + " |");
            assertEquals("08004", total.getSQLState(), total.getMessage());
            assertEquals(1040, total.getErrorCode());
            open.removeFirst().close();
            open.removeLast().close();
            Thread.sleep(200); // the router sees both sockets close
            try (var c = small.connect(); var rs = c.createStatement().executeQuery("SELECT v FROM kv WHERE k = 2")) {
                assertTrue(rs.next(), "a slot freed by a closed session is usable again");
            }
        } finally {
            for (var c : open) c.close();
        }
    }

    @Test
    void thePlanCacheKeepsToItsBytes() throws Exception {
        long before = heapAfterGc();
        try (var c = small.connect()) {
            for (int i = 0; i < 60; i++) {
                // distinct texts (the literals become parameters: the lists differ in length) of 3,000 placeholders each:
                // about 20 MB of plans if nothing were evicted
                try (var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM kv WHERE k IN (" + "1, ".repeat(3_000 + i) + "2)")) {
                    assertTrue(rs.next());
                }
            }
        }
        long after = heapAfterGc();
        long cached = small.server.planner().cachedPlanBytes();
        report.add(String.format(Locale.ROOT, "| 60 distinct statements of 3,000 IN items, plan_cache_bytes: 4 MB | %d plans, %.1f MB estimated; heap %d MB before, %d MB after |",
                small.server.planner().cachedPlans(), cached / 1048576.0, before >> 20, after >> 20));
        assertTrue(cached <= PLAN_CACHE_BYTES, cached + " bytes of plans cached");
        assertTrue(small.server.planner().cachedPlans() < 60, small.server.planner().cachedPlans() + " plans cached");
    }

    @Test
    void oneSessionsOpenResultSetsHoldAtMostAQuarterOfAPartitionsPool() throws Exception {
        try (var c = wide.connect(); var ps = c.prepareStatement("INSERT INTO kv VALUES (?, 'many')")) {
            for (int k = 100; k < 500; k++) {
                ps.setInt(1, k);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        int rows;
        try (var c = wide.connect(); var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM kv")) {
            rs.next();
            rows = rs.getInt(1);
        }
        try (var c = wide.connect()) {
            // pools of 8 per partition: 12 cursors streaming from every partition would need 12 each
            var open = new ArrayList<java.sql.ResultSet>();
            for (int i = 0; i < 12; i++) {
                var st = c.createStatement();
                st.setFetchSize(1);
                var rs = st.executeQuery("SELECT k, v FROM kv");
                assertTrue(rs.next());
                open.add(rs);
            }
            int held = wide.server.activeBackendConnections();
            report.add("12 open result sets of one session (fetch size 1, pools of 8): " + held + " backend connections held");
            assertTrue(held <= 2 * 4, held + " connections held: at most 2 streaming result sets over 4 partitions");
            assertServes(wide); // another session still gets connections at once
            var big = c.createStatement();
            big.setFetchSize(1);
            var refused = assertThrows(SQLException.class, () -> big.executeQuery("SELECT k, REPEAT('x', 100000) FROM kv"));
            assertEquals("HY000", refused.getSQLState());
            assertTrue(refused.getMessage().contains("close or read to the end"), refused.getMessage());
            for (var rs : open) {
                int n = 1;
                while (rs.next()) n++;
                assertEquals(rows, n, "every result set reads whole and right, streamed or held by the router");
                rs.close();
            }
            assertServes(wide);
        } finally {
            try (var c = wide.connect()) {
                c.createStatement().executeUpdate("DELETE FROM kv WHERE k >= 100");
            }
        }
        waitForNoBackendConnections(wide);
    }

    // ---- helpers --------------------------------------------------------------------------------

    static void assertServes(TestRouter router) throws SQLException {
        try (Connection c = router.connect(); var rs = c.createStatement().executeQuery("SELECT v FROM kv WHERE k = 2")) {
            assertTrue(rs.next());
            assertEquals("two", rs.getString(1));
        }
    }

    static void waitForNoBackendConnections(TestRouter router) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (router.server.activeBackendConnections() > 0 && System.nanoTime() < deadline) Thread.sleep(50);
        assertEquals(0, router.server.activeBackendConnections(), "backend connections still borrowed");
    }

    static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** A client speaking the protocol by hand: the challenge is read at once. */
    static final class Raw implements AutoCloseable {
        final Socket socket;
        final ServerMessage challenge;

        Raw(TestRouter router) throws IOException {
            socket = new Socket("127.0.0.1", router.server.port());
            socket.setSoTimeout(10_000);
            challenge = reply();
        }

        void login() throws IOException {
            byte[] proof = Auth.proof(Auth.passwordKey(TestRouter.PASSWORD), challenge.getChallenge().getNonce().toByteArray());
            Frames.write(socket.getOutputStream(), ClientMessage.newBuilder().setRequestId(1).setHello(Hello.newBuilder()
                    .setUser(TestRouter.USER).setProof(ByteString.copyFrom(proof)).setProtocolVersion(1)).build());
            ServerMessage ok = reply();
            if (!ok.hasHelloOk()) throw new IOException("login failed: " + ok);
        }

        void header(int size) throws IOException {
            bytes(new byte[] {(byte) (size >>> 24), (byte) (size >>> 16), (byte) (size >>> 8), (byte) size});
        }

        void bytes(byte[] b) throws IOException {
            socket.getOutputStream().write(b);
            socket.getOutputStream().flush();
        }

        ServerMessage reply() throws IOException {
            return Frames.read(socket.getInputStream(), ServerMessage.parser(), 1 << 20);
        }

        /** Whether the router has closed its end (waits up to a second for it). */
        boolean closed() throws IOException {
            socket.setSoTimeout(1_000);
            try {
                return socket.getInputStream().read() < 0;
            } catch (java.net.SocketTimeoutException open) {
                return false;
            } catch (java.net.SocketException reset) {
                return true;
            } finally {
                socket.setSoTimeout(10_000);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
