package org.lutra.txn;

import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reconciles every partition's {@code XA RECOVER} with the decision log, at start and then
 * periodically: a Lutra branch whose transaction logged a commit is committed, any other is rolled
 * back (presumed abort). Branches of other formats, or of another logical database on a shared
 * server, are never touched.
 *
 * <p>Which branches a router resolves, and when:
 * <ul>
 *   <li>branches of its own earlier lives (same router name, another life): at once, at start;</li>
 *   <li>branches of its own transactions whose phase two failed or whose outcome was unknown: at the next pass;</li>
 *   <li>any other Lutra branch (another router's, live or dead): once it has stayed prepared for
 *       {@code recovery_grace_seconds}. A live coordinator prepares and decides within milliseconds,
 *       so such a branch belongs to a router that died or lost its backends. This is how a router
 *       that never comes back is resolved by the others.</li>
 * </ul>
 * Deciding is safe even if the coordinator is alive after all: {@link DecisionLog#settle} lets
 * only one of "commit" and "abort" ever be written.
 *
 * <p>Decision rows are deleted once every branch of their transaction is committed (right after
 * phase two, in batches here), or, for rows left by crashes, once no partition lists a prepared
 * branch of theirs; abort verdicts also stay until no coordinator can still try to commit (see
 * {@link DecisionLog}). Every statement recovery runs has a socket timeout (commit_timeout_ms):
 * a backend that stops answering makes a pass count it unreachable, it never stops the thread.
 */
public final class Recovery implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Recovery.class);
    private static final int XAER_NOTA = 1397;
    /** XA_RBROLLBACK: what MariaDB answers to XA COMMIT and XA ROLLBACK of a prepared branch that changed nothing. */
    private static final int XA_RBROLLBACK = 1402;
    /**
     * Abort verdicts are kept at least this many grace periods: a coordinator cannot commit later
     * than its bound, which is shorter than one (see {@link DecisionLog}); the second is margin
     * for the server's clock.
     */
    private static final int ABORT_ROW_GRACE_PERIODS = 2;
    private static final Executor SAME_THREAD = Runnable::run;

    private final Backends backends;
    private final GlobalId.Factory ids;
    private final RouterConfig.Transactions config;
    private final TxnStats stats;
    private final ScheduledExecutorService timer;
    /** gtrid → when a pass first saw one of its branches prepared (System.nanoTime). */
    private final Map<String, Long> firstSeen = new ConcurrentHashMap<>();
    /** This life's transactions that recovery should finish without waiting for the grace period. */
    private final Set<String> finishSoon = ConcurrentHashMap.newKeySet();
    /** Decision rows to delete: partition → gtrids. */
    private final Map<Integer, Set<String>> forgettable = new ConcurrentHashMap<>();
    private volatile int inDoubt;
    private volatile int unreachable;

    Recovery(Backends backends, GlobalId.Factory ids, RouterConfig.Transactions config, TxnStats stats) {
        this.backends = backends;
        this.ids = ids;
        this.config = config;
        this.stats = stats;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true).name("lutra-xa-recovery").unstarted(r));
    }

    void start() {
        pass();
        timer.scheduleWithFixedDelay(this::passQuietly, config.recoverySeconds(), config.recoverySeconds(), TimeUnit.SECONDS);
    }

    /**
     * Lutra branches the last pass could decide but not end (their decision unreadable, their server not
     * answering the XA COMMIT or ROLLBACK). Branches it may not decide yet are not counted: they belong to
     * transactions in their two-phase commit now (this router's, or another's within the grace period).
     */
    public int inDoubt() {
        return inDoubt;
    }

    /** Partitions whose XA RECOVER failed in the last pass (their branches are not counted in {@link #inDoubt}). */
    public int unreachable() {
        return unreachable;
    }

    void forget(Backends.Placement coordinator, String gtrid) {
        forgettable.computeIfAbsent(coordinator.partition(), p -> ConcurrentHashMap.newKeySet()).add(gtrid);
    }

    void finishSoon(String gtrid) {
        finishSoon.add(gtrid);
    }

    /** The outcome of {@code gtrid}, deciding abort if the coordinator has not decided (see {@link DecisionLog}). */
    DecisionLog.Outcome settle(Backends.Placement coordinator, String gtrid) throws SQLException {
        try (Connection c = connect(coordinator)) {
            return DecisionLog.settle(c, gtrid);
        }
    }

    /** The outcome logged for {@code gtrid}, without deciding anything; null if no row. */
    DecisionLog.Outcome loggedOutcome(Backends.Placement coordinator, String gtrid) throws SQLException {
        try (Connection c = connect(coordinator)) {
            return DecisionLog.read(c, gtrid);
        }
    }

    /**
     * Whether {@code xid} is prepared on {@code p}'s server (on any connection, or detached). Asked in phase
     * two after the branch's connection was lost: on a new connection, as {@link Branch#commitPreparedDetached}.
     */
    boolean isPrepared(Backends.Placement p, Xid xid) throws SQLException {
        try (Connection c = p.connectFresh()) {
            c.setNetworkTimeout(SAME_THREAD, config.commitTimeoutMillis());
            return recover(p, c).contains(xid);
        }
    }

    /**
     * A pooled connection whose every statement is bounded by commit_timeout_ms, so a backend that
     * stops answering delays a pass (and the sessions asking recovery) by at most that, never for ever.
     */
    private Connection connect(Backends.Placement p) throws SQLException {
        Connection c = p.borrow();
        try {
            c.setNetworkTimeout(SAME_THREAD, config.commitTimeoutMillis());
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void passQuietly() {
        try {
            pass();
        } catch (RuntimeException e) {
            log.warn("XA recovery pass failed", e);
        }
    }

    /** One reconciliation of every partition; returns the number of Lutra branches still prepared after it (in flight or in doubt). */
    public synchronized int pass() {
        deleteForgotten();
        int grace = config.recoveryGraceSeconds();
        // Old decisions are read before the scan: a transaction whose decision is committed has no
        // branch that can become prepared later, so one absent from the scan is finished.
        var oldDecisions = new HashMap<Integer, Map<String, DecisionLog.Outcome>>();
        for (var p : backends.placements()) {
            try (Connection c = connect(p)) {
                oldDecisions.put(p.partition(), DecisionLog.olderThan(c, grace));
            } catch (SQLException e) {
                log.debug("recovery: cannot read decisions on {}: {}", p.name(), e.getMessage());
            }
        }
        var prepared = new HashMap<Backends.Placement, List<Xid>>();
        int failed = 0;
        for (var p : backends.placements()) {
            try {
                prepared.put(p, recover(p));
            } catch (SQLException e) {
                failed++;
                log.warn("recovery: XA RECOVER failed on {}@{}: {}", p.name(), p.backend(), e.getMessage());
            }
        }
        var stillPrepared = new HashSet<String>();
        int left = 0, stuck = 0;
        long now = System.nanoTime();
        for (var entry : prepared.entrySet()) {
            for (Xid xid : entry.getValue()) {
                stillPrepared.add(xid.gtrid());
                long seen = firstSeen.computeIfAbsent(xid.gtrid(), g -> now);
                if (!decidable(GlobalId.parse(xid.gtrid()), seen, now)) {
                    left++;
                } else if (!resolve(entry.getKey(), xid)) {
                    left++;
                    stuck++;
                }
            }
        }
        firstSeen.keySet().retainAll(stillPrepared);
        if (failed == 0) {
            finishSoon.retainAll(stillPrepared);
            collect(oldDecisions, stillPrepared, grace);
        }
        if (stuck != inDoubt || failed != unreachable) {
            log.info("XA recovery: {} Lutra branch(es) in doubt, {} partition(s) unreachable", stuck, failed);
        }
        inDoubt = stuck;
        unreachable = failed;
        return left;
    }

    private boolean decidable(GlobalId id, long firstSeenNanos, long now) {
        boolean mine = id.router().equals(ids.router());
        if (mine && !id.life().equals(ids.life())) return true;      // an earlier life of this router
        if (finishSoon.contains(id.toString())) return true;
        return now - firstSeenNanos >= TimeUnit.SECONDS.toNanos(config.recoveryGraceSeconds());
    }

    /** Decides and ends one branch; false if it stays in doubt. */
    private boolean resolve(Backends.Placement where, Xid xid) {
        GlobalId id = GlobalId.parse(xid.gtrid());
        var coordinator = backends.placements().stream().filter(p -> p.name().equals(id.coordinator())).findFirst();
        if (coordinator.isEmpty()) {
            log.warn("recovery: {} on {} names coordinator partition '{}', which this router does not know: left in doubt",
                    xid, where.name(), id.coordinator());
            return false;
        }
        try {
            var outcome = settle(coordinator.get(), xid.gtrid());
            try (Connection c = connect(where); Statement st = c.createStatement()) {
                st.execute((outcome == DecisionLog.Outcome.COMMIT ? "XA COMMIT " : "XA ROLLBACK ") + xid.sql());
            } catch (SQLException e) {
                // MariaDB answers XAER_NOTA both when the branch has just ended and while the
                // connection that prepared it is still open (only that one may end it then): either
                // way, the next pass sees whether it is still there.
                if (e.getErrorCode() == XAER_NOTA) return false;
                if (e.getErrorCode() != XA_RBROLLBACK) throw e;
                // A branch that matched rows but changed none is prepared with nothing to keep:
                // once its connection closed, MariaDB still lists it, answers XA_RBROLLBACK to both
                // XA COMMIT and XA ROLLBACK, and forgets it. Nothing was lost either way.
                log.info("recovery: {} on {} changed nothing and is ended by its server", xid, where.name());
                return true;
            }
            (outcome == DecisionLog.Outcome.COMMIT ? stats.recoveredCommits : stats.recoveredRollbacks).increment();
            log.info("recovery: {} on {} {}", xid, where.name(), outcome == DecisionLog.Outcome.COMMIT ? "committed" : "rolled back");
            return true;
        } catch (SQLException e) {
            log.warn("recovery: cannot resolve {} on {} yet: {}", xid, where.name(), e.getMessage());
            return false;
        }
    }

    /** This logical database's Lutra branches prepared on {@code p}'s server. */
    private List<Xid> recover(Backends.Placement p) throws SQLException {
        try (Connection c = connect(p)) {
            return recover(p, c);
        }
    }

    private static List<Xid> recover(Backends.Placement p, Connection c) throws SQLException {
        var out = new ArrayList<Xid>();
        try (Statement st = c.createStatement(); var rs = st.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                Xid xid = Xid.fromRecoverRow(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getBytes(4));
                if (xid.isLutra() && xid.bqual().equals(p.database())) out.add(xid);
            }
        }
        return out;
    }

    private void deleteForgotten() {
        for (var e : forgettable.entrySet()) {
            var batch = new ArrayList<>(e.getValue());
            if (batch.isEmpty()) continue;
            try (Connection c = connect(backends.placement(e.getKey()))) {
                DecisionLog.forget(c, batch);
                batch.forEach(e.getValue()::remove);
            } catch (SQLException ex) {
                log.debug("recovery: cannot delete decisions on {} yet: {}", backends.placement(e.getKey()).name(), ex.getMessage());
            }
        }
    }

    /** Deletes decisions whose transactions have no prepared branch left anywhere. */
    private void collect(Map<Integer, Map<String, DecisionLog.Outcome>> oldDecisions, Set<String> stillPrepared, int grace) {
        for (var e : oldDecisions.entrySet()) {
            var done = new ArrayList<String>();
            for (var d : e.getValue().entrySet()) {
                if (stillPrepared.contains(d.getKey())) continue;
                if (d.getValue() == DecisionLog.Outcome.ABORT) {
                    continue; // abort verdicts are kept longer, see below
                }
                done.add(d.getKey());
            }
            try (Connection c = connect(backends.placement(e.getKey()))) {
                DecisionLog.forget(c, done);
                DecisionLog.forgetAbortsOlderThan(c, grace * ABORT_ROW_GRACE_PERIODS, stillPrepared);
            } catch (SQLException ex) {
                log.debug("recovery: cannot collect decisions on {}: {}", backends.placement(e.getKey()).name(), ex.getMessage());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
