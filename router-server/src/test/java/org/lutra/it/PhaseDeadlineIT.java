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

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.it.TwoShardBank.*;

/**
 * Each phase of two-phase commit against a shard that stops answering without closing its
 * sockets (SIGSTOP): the session gets its answer within the phase's deadline, the healthy shard's
 * locks are released when the transaction aborts, and once the shard runs again (SIGCONT, always,
 * in a finally) recovery finishes what was left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(150)
class PhaseDeadlineIT {
    private static final int PHASE_MILLIS = 1500;
    /** An answer within the phase deadline, plus rolling back the others, plus slack for a loaded machine. */
    private static final long ANSWER_WITHIN_MILLIS = 3 * PHASE_MILLIS + 2000;
    private static final String TXN = ("router_name: deadlines, lock_wait_timeout_seconds: 2, recovery_interval_seconds: 1,"
            + " recovery_grace_seconds: 10, prepare_timeout_ms: %d, decision_timeout_ms: %d, commit_timeout_ms: %d")
            .formatted(PHASE_MILLIS, PHASE_MILLIS, PHASE_MILLIS);

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
        bank = new TwoShardBank(shards, "phase");
    }

    @Test
    void shardFrozenBeforePrepareAbortsWithinTheDeadline() throws Exception {
        try (var router = RouterServer.start(RouterConfig.load(bank.config(TXN))); var c = connect(router.port())) {
            insertAccounts(c);
            c.setAutoCommit(false);
            transfer(c);
            shards.freeze(1);
            String phase = "p1 frozen before prepare";
            try {
                long t0 = System.nanoTime();
                var e = assertThrows(SQLException.class, c::commit);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertEquals("40000", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("prepare_timeout_ms"), e.getMessage());
                report("%s: answered after %d ms".formatted(phase, took));
                assertTrue(took < ANSWER_WITHIN_MILLIS, "answered after " + took + " ms");
                assertHealthyShardUnlocked(0, 1, 100);
            } finally {
                shards.thaw(1);
            }
            assertTrue(await(40, sql(() -> bank.prepared(1).isEmpty())));
            assertEquals(List.of(100L, 100L), bank.balances());
            c.setAutoCommit(true);
        }
    }

    @Test
    void coordinatorFrozenWhileDecidingAbortsEverywhereElse() throws Exception {
        try (var router = RouterServer.start(RouterConfig.load(bank.config(TXN))); var c = connect(router.port())) {
            // one partition each: no two-phase commit before the one under test, so the decision INSERT is
            // prepared for the first time on the frozen coordinator (the prepare Connector/J retries)
            c.createStatement().executeUpdate("INSERT INTO accounts (id, balance) VALUES (1, 100)");
            c.createStatement().executeUpdate("INSERT INTO accounts (id, balance) VALUES (101, 100)");
            c.setAutoCommit(false);
            transfer(c);
            String phase = "coordinator frozen after prepare";
            // frozen for sure before the decision INSERT's server-side prepare is sent (freeze returns once it is): that
            // prepare, failed by a lost connection rather than a timeout, Connector/J retries client-prepared
            try (var hook = FailPoints.install(point -> {
                if (point.equals(FailPoints.AFTER_PREPARE)) shards.freeze(0);
            })) {
                long t0 = System.nanoTime();
                var e = assertThrows(SQLException.class, c::commit);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertEquals("40000", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("decision_timeout_ms"), e.getMessage());
                report("%s: answered after %d ms".formatted(phase, took));
                assertTrue(took < ANSWER_WITHIN_MILLIS, "answered after " + took + " ms");
                assertEquals(List.of(), bank.prepared(1), "p1's prepared branch rolled back at once: no COMMIT of the decision was sent");
                assertHealthyShardUnlocked(1, 101, 100);
            } finally {
                shards.thaw(0);
            }
            assertTrue(await(40, sql(() -> bank.decisions().isEmpty())), "the decision row died with its connection");
            assertEquals(List.of(100L, 100L), bank.balances());
        }
    }

    @Test
    void shardFrozenInPhaseTwoIsCommittedByRecoveryOnceItRuns() throws Exception {
        try (var router = RouterServer.start(RouterConfig.load(bank.config(TXN))); var c = connect(router.port())) {
            insertAccounts(c);
            c.setAutoCommit(false);
            transfer(c);
            String phase = "p1 frozen after the decision";
            try (var hook = FailPoints.install(point -> {
                if (point.equals(FailPoints.AFTER_DECISION)) shards.freeze(1);
            })) {
                long t0 = System.nanoTime();
                c.commit(); // the decision is durable: the transaction is committed
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                report("%s: answered after %d ms".formatted(phase, took));
                assertTrue(took < ANSWER_WITHIN_MILLIS, "answered after " + took + " ms");
                assertEquals(90L, bank.balance(0, 1), "p0 committed with the decision (shard 1 is still frozen)");
            } finally {
                shards.thaw(1);
            }
            assertTrue(await(40, sql(() -> bank.prepared(1).isEmpty())), "recovery commits the branch once its shard runs");
            assertEquals(List.of(90L, 110L), bank.balances());
            assertEquals(0, router.transactions().recovery().pass());
        }
    }

    private static void report(String line) {
        System.out.println("PhaseDeadlineIT: " + line);
    }

    /** Row {@code id} on shard {@code shard} holds {@code balance} and no lock: an update there does not wait. */
    private void assertHealthyShardUnlocked(int shard, int id, long balance) throws SQLException {
        try (var p = bank.partition(shard); var st = p.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = 1");
            assertEquals(1, st.executeUpdate("UPDATE accounts SET balance = balance WHERE id = " + id));
            try (var rs = st.executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
                assertTrue(rs.next());
                assertEquals(balance, rs.getLong(1));
            }
        }
    }
}
