package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.EmbeddedShards;
import org.lutra.placement.FailPoints;
import org.lutra.txn.Xid;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.it.TwoShardBank.*;

/**
 * The windows of two-phase commit that issue 13 found by reading the code, each opened with a
 * fail point. Prepared branches are detached from their connection by killing it, which is what
 * MySQL 8 does at every XA PREPARE (xa_detach_on_prepare): recovery can then end a branch while
 * its coordinator still runs — the case in which a late coordinator could lose atomicity.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class TwoPhaseWindowsIT {
    /** Grace 2 s; the coordinator must decide within 400 + 400 ms of its first prepare. */
    private static final String TXN = "router_name: %s, lock_wait_timeout_seconds: 2, recovery_interval_seconds: %d,"
            + " recovery_grace_seconds: 2, prepare_timeout_ms: 400, decision_timeout_ms: 400, commit_timeout_ms: 2000";

    EmbeddedShards shards;
    TwoShardBank bank;

    @BeforeAll
    void startShards() throws IOException {
        shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(2));
    }

    @AfterAll
    void stopShards() {
        shards.close();
    }

    @BeforeEach
    void freshDatabase() {
        bank = new TwoShardBank(shards, "win");
    }

    private RouterServer router(String name, int recoveryInterval) throws Exception {
        return RouterServer.start(RouterConfig.load(bank.config(TXN.formatted(name, recoveryInterval))));
    }

    /** Runs {@code body} at {@code point}; what it throws is kept for the test to rethrow. */
    private static AutoCloseable at(String point, List<Throwable> errors, ThrowingRunnable body) {
        return FailPoints.install(p -> {
            if (!p.equals(point)) return;
            try {
                body.run();
            } catch (Throwable t) {
                errors.add(t);
            }
        });
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void rethrow(List<Throwable> errors) {
        if (!errors.isEmpty()) fail("fail point body failed", errors.getFirst());
    }

    @Test
    void coordinatorOvertakenByRecoveryRollsBackInsteadOfCommitting() throws Exception {
        var errors = new CopyOnWriteArrayList<Throwable>();
        var verdicts = new ArrayList<String>();
        try (var router = router("win", 1); var c = connect(router.port())) {
            insertAccounts(c);
            c.setAutoCommit(false);
            transfer(c);
            // The coordinator pauses after phase one for longer than the grace period, until
            // recovery has rolled back p1's (detached) branch and even collected its abort
            // verdict: then nothing in the log stops its commit insert any more.
            try (var hook = at(FailPoints.AFTER_PREPARE, errors, () -> {
                bank.killConnections(1);
                assertTrue(await(20, sql(() -> bank.prepared(1).isEmpty())), "recovery rolls the detached branch back after the grace");
                verdicts.addAll(bank.decisions());
                assertTrue(await(20, sql(() -> bank.decisions().isEmpty())), "the abort verdict is collected after two grace periods");
            })) {
                var e = assertThrows(SQLException.class, c::commit);
                rethrow(errors);
                assertEquals("40000", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("more than prepare_timeout_ms + decision_timeout_ms"), e.getMessage());
            }
        }
        assertEquals(1, verdicts.size(), verdicts.toString());
        assertTrue(verdicts.getFirst().endsWith("=A"), verdicts.toString());
        assertEquals(List.of(100L, 100L), bank.balances(), "all or nothing: p1 was rolled back, so p0 must be too");
        assertEquals(List.of(), bank.decisions(), "the late commit row was rolled back with the coordinator branch");
    }

    @Test
    void commitRowIsFencedByAnAbortVerdict() throws Exception {
        var errors = new CopyOnWriteArrayList<Throwable>();
        try (var router = router("win", 1); var c = connect(router.port())) {
            insertAccounts(c);
            c.setAutoCommit(false);
            transfer(c);
            // Recovery (of a router that took this one's name, say) decides before the coordinator
            // does: an abort verdict, then the detached branch rolled back.
            try (var hook = at(FailPoints.AFTER_PREPARE, errors, () -> {
                String gtrid = bank.prepared(1).getFirst();
                try (var p0 = bank.partition(0); var ps = p0.prepareStatement("INSERT INTO lutra_xa_decisions (gtrid, outcome) VALUES (?, 'A')")) {
                    ps.setString(1, gtrid);
                    ps.executeUpdate();
                }
                bank.killConnections(1);
                bank.endBranch(1, gtrid, false);
            })) {
                var e = assertThrows(SQLException.class, c::commit);
                rethrow(errors);
                assertEquals("40000", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("rolled back by XA recovery before it could commit"), e.getMessage());
            }
        }
        assertEquals(List.of(100L, 100L), bank.balances());
    }

    @Test
    void abortVerdictStaysWhileABranchOfItIsPrepared() throws Exception {
        String gtrid = "lutra:ghost:0x1:1:p0";
        try (var router = router("win", 1)) {
            try (var c = connect(router.port())) {
                insertAccounts(c);
            }
            try (var holder = bank.partition(1); var st = holder.createStatement()) {
                // A branch of router "ghost", prepared and still held by its connection: recovery
                // decides abort after the grace but cannot end it (MariaDB: XAER_NOTA).
                String xid = xid(gtrid, bank.database + "_p1");
                st.execute("XA START " + xid);
                st.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
                st.execute("XA END " + xid);
                st.execute("XA PREPARE " + xid);
                assertTrue(await(20, sql(() -> bank.decisions().contains(gtrid + "=A"))), "recovery decided abort");
                Thread.sleep(6_000); // three grace periods: older than the fixed age that would have let it go
                assertEquals(List.of(gtrid + "=A"), bank.decisions(), "kept: its branch is still prepared");
                assertEquals(List.of(gtrid), bank.prepared(1));
            }
            // The holder's connection is closed: the branch is detached, recovery rolls it back,
            // and only then is the verdict collected.
            assertTrue(await(20, sql(() -> bank.prepared(1).isEmpty())));
            assertTrue(await(20, sql(() -> bank.decisions().isEmpty())));
        }
        assertEquals(List.of(100L, 100L), bank.balances());
    }

    @Test
    void xaerNotaInPhaseTwoIsCheckedAgainstTheServerAndTheLog() throws Exception {
        var errors = new CopyOnWriteArrayList<Throwable>();
        try (var router = router("win", 1); var c = connect(router.port())) {
            insertAccounts(c);
            c.setAutoCommit(false);
            transfer(c);
            // After the decision, p1's branch is detached and committed by someone else (as a
            // recovery on MySQL 8 may): the router's XA COMMIT then answers XAER_NOTA.
            try (var hook = at(FailPoints.AFTER_DECISION, errors, () -> {
                String gtrid = bank.prepared(1).getFirst();
                bank.killConnections(1);
                bank.endBranch(1, gtrid, true);
            })) {
                c.commit();
                rethrow(errors);
            }
            assertEquals(0, router.transactions().recovery().inDoubt());
        }
        assertEquals(List.of(90L, 110L), bank.balances());
    }

    @Test
    void aBranchFoundRolledBackInPhaseTwoIsReportedNotHidden() throws Exception {
        var errors = new CopyOnWriteArrayList<Throwable>();
        try (var router = router("win", 1); var c = connect(router.port())) {
            insertAccounts(c);
            c.setAutoCommit(false);
            transfer(c);
            // An impossible history, made by hand: p1's branch rolled back behind the decision's back.
            try (var hook = at(FailPoints.AFTER_DECISION, errors, () -> {
                String gtrid = bank.prepared(1).getFirst();
                bank.killConnections(1);
                bank.endBranch(1, gtrid, false);
                try (var p0 = bank.partition(0); var st = p0.createStatement()) {
                    st.executeUpdate("UPDATE lutra_xa_decisions SET outcome = 'A'");
                }
            })) {
                var e = assertThrows(SQLException.class, c::commit);
                rethrow(errors);
                assertEquals("HY000", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("was committed but its branch"), e.getMessage());
                assertTrue(e.getMessage().contains("was rolled back"), e.getMessage());
            }
        }
        assertEquals(List.of(90L, 100L), bank.balances());
    }

    @Test
    void preparedBranchThatChangedNothingIsResolvedInOnePass() throws Exception {
        String gtrid = "lutra:ghost:0x2:1:p0";
        try (var router = router("win", 3600)) { // no periodic pass: only the ones below
            try (var c = connect(router.port())) {
                insertAccounts(c);
            }
            try (var holder = bank.partition(1); var st = holder.createStatement()) {
                // Matched a row, changed nothing: prepared with nothing to commit; then its connection goes.
                String xid = xid(gtrid, bank.database + "_p1");
                st.execute("XA START " + xid);
                assertEquals(1, st.executeUpdate("UPDATE accounts SET balance = balance WHERE id = 101"));
                st.execute("XA END " + xid);
                st.execute("XA PREPARE " + xid);
            }
            try (var p0 = bank.partition(0); var ps = p0.prepareStatement("INSERT INTO lutra_xa_decisions (gtrid, outcome) VALUES (?, 'C')")) {
                ps.setString(1, gtrid);
                ps.executeUpdate();
            }
            var recovery = router.transactions().recovery();
            assertTrue(await(10, sql(() -> bank.prepared(1).size() == 1)));
            assertEquals(1, recovery.pass(), "first seen: not another router's yet");
            Thread.sleep(2_200);
            assertEquals(0, recovery.pass(), "resolved in the pass that decides it, not left in doubt for one more");
            assertEquals(List.of(), bank.prepared(1));
        }
        assertEquals(List.of(100L, 100L), bank.balances());
    }

    @Test
    void aSecondLiveRouterWithTheSameNameRefusesToStart() throws Exception {
        try (var first = router("twin", 1)) {
            long t0 = System.nanoTime();
            var e = assertThrows(SQLException.class, () -> router("twin", 1).close());
            assertTrue(e.getMessage().contains("router name 'twin' is in use"), e.getMessage());
            assertTrue(System.nanoTime() - t0 < 20_000_000_000L);
            try (var other = router("twin2", 1)) {
                assertNotEquals(first.port(), other.port());
            }
        }
        try (var again = router("twin", 1)) {
            assertTrue(again.port() > 0, "the name is free once its router has stopped");
        }
    }

    @Test
    void aRouterWhoseNameWasTakenOverRefusesTwoPhaseCommits() throws Exception {
        try (var first = router("twin", 1); var c = connect(first.port())) {
            insertAccounts(c);
            // first loses its lock connection, and a second router with its name starts meanwhile
            // (the test holds the lock in between, so first's watcher cannot take it back first)
            String lock = "lutra:twin@" + bank.database + "_p0";
            RouterServer second;
            try (var s0 = shards.connect(0); var st = s0.createStatement()) {
                try (var rs = st.executeQuery("SELECT IS_USED_LOCK('" + lock + "')")) {
                    assertTrue(rs.next());
                    st.execute("KILL CONNECTION " + rs.getLong(1));
                }
                try (var rs = st.executeQuery("SELECT GET_LOCK('" + lock + "', 5)")) {
                    assertTrue(rs.next() && rs.getInt(1) == 1);
                }
                var starting = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return router("twin", 1);
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                assertTrue(await(20, sql(() -> {
                    try (var rs = s0.createStatement().executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT GET_LOCK(%'")) {
                        return rs.next() && rs.getInt(1) > 0;
                    }
                })), "the second router waits for the name");
                st.execute("DO RELEASE_LOCK('" + lock + "')");
                second = starting.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            try (second) {
                c.setAutoCommit(false);
                String[] last = {""};
                assertTrue(await(20, () -> {
                    try {
                        transfer(c);
                        c.commit();
                        return false;
                    } catch (SQLException e) {
                        last[0] = e.getMessage();
                        try {
                            c.rollback();
                        } catch (SQLException ignored) {
                            // the next attempt says
                        }
                        return e.getMessage().contains("took over this router's name");
                    }
                }), last[0]);
                assertTrue(second.port() > 0);
            }
        }
    }

    private static String xid(String gtrid, String bqual) {
        return "X'" + HexFormat.of().formatHex(gtrid.getBytes(StandardCharsets.ISO_8859_1)) + "',X'"
                + HexFormat.of().formatHex(bqual.getBytes(StandardCharsets.ISO_8859_1)) + "'," + Xid.LUTRA_FORMAT;
    }
}
