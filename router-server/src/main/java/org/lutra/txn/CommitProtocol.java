package org.lutra.txn;

import org.lutra.placement.FailPoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How a {@link TransactionState}'s branches end, once it stopped taking statements: each commits alone when at
 * most one wrote, else XA two-phase commit with the decision logged in the coordinator branch ({@link DecisionLog});
 * and the rollback of every branch when anything fails. The deadlines and what each failure means are at
 * {@link #twoPhase}.
 */
final class CommitProtocol {
    private static final Logger log = LoggerFactory.getLogger(TransactionState.class); // (the transaction's log, as before)

    private final Transactions service;
    /** The branch holding the decision: the transaction's first. */
    private final Branch coordinator;
    /** The transaction's XA id; null while it had one branch. */
    private final GlobalId id;

    CommitProtocol(Transactions service, Branch coordinator, GlobalId id) {
        this.service = service;
        this.coordinator = coordinator;
        this.id = id;
    }

    /** At most one writer: no atomicity across branches is at stake, so each commits on its own. */
    void commitAlone(List<Branch> all, List<Branch> writers) throws SQLException {
        long start = System.nanoTime();
        long commitBy = start + TimeUnit.MILLISECONDS.toNanos(service.config().commitTimeoutMillis());
        var failures = service.parallel(all, b -> {
            b.phaseEndsAt(commitBy);
            b.commitAlone();
        });
        service.stats().readOnlyBranches.add(all.size() - writers.size());
        for (Branch w : writers) {
            SQLException e = failures.get(w);
            if (e != null) {
                abort(all);
                throw new SQLException("commit failed on " + w.placement.name() + ", transaction not committed"
                        + (TransactionState.isConnectionLoss(e) ? " (connection lost during COMMIT: its outcome on that partition is unknown)" : "")
                        + ": " + e.getMessage(), TransactionState.isConnectionLoss(e) ? "HY000" : "40000", e.getErrorCode(), e);
            }
        }
        service.stats().commit.add(System.nanoTime() - start);
        service.stats().onePhaseCommits.increment();
    }

    /*
     * Two-phase commit and its deadlines. t0 is taken before any branch can be prepared; recovery
     * rolls back a branch only once it has seen it prepared for recovery_grace_seconds (or once
     * this coordinator has given up on it). The coordinator must therefore have decided by
     * t0 + prepare_timeout_ms + decision_timeout_ms, which the configuration keeps under the grace:
     * a commit decision inserted later is rolled back, not committed. Past that bound an abort
     * verdict may exist or have existed (recovery inserts it; the primary key makes it exclude the
     * commit row), so a coordinator that paused — GC, a frozen VM — can never commit branches that
     * recovery has already rolled back. That is what keeps atomicity on MySQL 8, where a prepared
     * branch is detached from its connection (xa_detach_on_prepare) and recovery can end it while
     * the coordinator still holds that connection.
     *
     *   phase one   XA END + XA PREPARE   fails or times out      -> roll back everything (40000)
     *   decision    INSERT (gtrid, 'C')   fails, times out, fenced -> roll back everything (40000):
     *                                     no COMMIT was sent, the row can never become durable
     *               bound passed          -> roll back everything (40000)
     *               COMMIT                connection lost / timed out -> ask the log; unreadable -> outcome unknown (HY000)
     *   phase two   XA COMMIT             fails or times out      -> committed; recovery finishes the branch
     */
    void twoPhase(List<Branch> all, List<Branch> writers) throws SQLException {
        var config = service.config();
        String gtrid = id.toString();
        long t0 = System.nanoTime();
        if (service.nameTakenOver()) {
            abort(all);
            throw new SQLException("transaction rolled back: another router took over this router's name '" + config.routerName()
                    + "' (see the router's log); restart this router with a name of its own", "40000", 0);
        }
        // Phase one: prepare every writing XA branch; release the read-only ones.
        var phaseOne = new ArrayList<>(all);
        phaseOne.remove(coordinator);
        long prepareBy = t0 + TimeUnit.MILLISECONDS.toNanos(config.prepareTimeoutMillis());
        var failures = service.parallel(phaseOne, b -> {
            b.phaseEndsAt(prepareBy);
            if (b.written()) {
                b.endAndPrepare();
            } else {
                b.commitAlone();
            }
        });
        service.stats().readOnlyBranches.add(all.size() - writers.size());
        for (Branch w : writers) {
            SQLException e = failures.get(w);
            if (e != null) {
                boolean late = w.ranOutOfTime(e);
                abort(all);
                throw new SQLException("transaction rolled back: prepare failed on " + w.placement.name()
                        + (late ? " (no answer within prepare_timeout_ms = " + config.prepareTimeoutMillis() + ")" : "")
                        + ": " + e.getMessage(), "40000", e.getErrorCode(), e);
            }
        }
        long t1 = System.nanoTime();
        service.stats().prepare.add(t1 - t0);
        FailPoints.reach(FailPoints.AFTER_PREPARE);

        decide(all, gtrid, t0);
        long t2 = System.nanoTime();
        service.stats().decision.add(t2 - t1);
        FailPoints.reach(FailPoints.AFTER_DECISION);

        // Phase two. The transaction is committed: a branch that fails here is committed by recovery.
        var prepared = writers.stream().filter(b -> !b.plain()).toList();
        long commitBy = t2 + TimeUnit.MILLISECONDS.toNanos(config.commitTimeoutMillis());
        var unfinished = service.parallel(prepared, b -> {
            b.phaseEndsAt(commitBy);
            new PhaseTwo(service, coordinator.placement, gtrid).commit(b);
        });
        var lost = unfinished.entrySet().stream().filter(e -> e.getValue() instanceof PhaseTwo.BranchRolledBack).toList();
        unfinished.forEach((b, e) -> {
            if (!(e instanceof PhaseTwo.BranchRolledBack)) log.warn("phase two: {} not committed yet, recovery will finish it: {}", b, e.getMessage());
        });
        if (unfinished.isEmpty()) {
            service.recovery().forget(coordinator.placement, gtrid);
        } else {
            service.recovery().finishSoon(gtrid);
        }
        service.stats().commit.add(System.nanoTime() - t2);
        service.stats().twoPhaseCommits.increment();
        if (!lost.isEmpty()) {
            var e = lost.getFirst().getValue();
            throw new SQLException("transaction " + gtrid + " was committed but " + e.getMessage(), "HY000", 0, e);
        }
    }

    /** Writes the commit decision and makes it durable (see twoPhase for what each failure means). */
    private void decide(List<Branch> all, String gtrid, long t0) throws SQLException {
        var config = service.config();
        coordinator.phaseEndsAt(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.decisionTimeoutMillis()));
        try {
            coordinator.recordCommit(gtrid);
        } catch (DecisionLog.Fenced e) {
            abort(all);
            throw e;
        } catch (SQLException e) {
            boolean late = coordinator.ranOutOfTime(e);
            abort(all);
            throw new SQLException("transaction rolled back: could not log its commit decision on " + coordinator.placement.name()
                    + (late ? " (no answer within decision_timeout_ms = " + config.decisionTimeoutMillis() + ")" : "")
                    + ": " + e.getMessage(), "40000", e.getErrorCode(), e);
        }
        long took = System.nanoTime() - t0;
        if (took > config.decideWithinNanos()) {
            // The row is inserted but not committed: rolling back the coordinator branch removes it.
            abort(all);
            throw new SQLException("transaction rolled back: it took " + TimeUnit.NANOSECONDS.toMillis(took)
                    + " ms to prepare and decide, more than prepare_timeout_ms + decision_timeout_ms = "
                    + TimeUnit.NANOSECONDS.toMillis(config.decideWithinNanos()) + " ms, after which XA recovery may roll back its"
                    + " prepared branches", "40000", 0);
        }
        try {
            coordinator.commitPlain();
        } catch (SQLException e) {
            if (!TransactionState.isConnectionLoss(e)) {
                abort(all);
                throw new SQLException("transaction rolled back: could not log its commit decision on " + coordinator.placement.name()
                        + ": " + e.getMessage(), "40000", e.getErrorCode(), e);
            }
            // The COMMIT may or may not have happened: ask the log, as recovery would.
            DecisionLog.Outcome outcome;
            try {
                outcome = service.recovery().settle(coordinator.placement, gtrid);
            } catch (SQLException unknown) {
                service.recovery().finishSoon(gtrid);
                var err = new SQLException("the outcome of transaction " + gtrid + " is unknown: the connection to "
                        + coordinator.placement.name() + " was lost while committing it and its decision cannot be read yet ("
                        + unknown.getMessage() + "); XA recovery will finish it", "HY000", e.getErrorCode(), e);
                err.addSuppressed(unknown);
                throw err;
            }
            if (outcome != DecisionLog.Outcome.COMMIT) {
                abort(all);
                throw new SQLException("transaction rolled back: the connection to " + coordinator.placement.name()
                        + " was lost before its commit decision was durable: " + e.getMessage(), "40000", e.getErrorCode(), e);
            }
        }
    }

    /** Rolls back every branch not yet done; failures are left to the servers and to recovery. */
    void abort(List<Branch> all) {
        var failed = service.parallel(all, this::rollbackWithin);
        failed.forEach((b, e) -> log.info("rollback of {} failed: {}", b, e.getMessage()));
        // A branch that could not be rolled back may be prepared on its server: recovery rolls it
        // back at its next pass (no decision was logged).
        if (!failed.isEmpty() && id != null) service.recovery().finishSoon(id.toString());
        service.stats().aborts.increment();
    }

    /** Rolls {@code b} back within commit_timeout_ms: a backend that stops answering keeps no session waiting. */
    void rollbackWithin(Branch b) throws SQLException {
        b.phaseEndsAt(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(service.config().commitTimeoutMillis()));
        b.rollback();
    }
}
