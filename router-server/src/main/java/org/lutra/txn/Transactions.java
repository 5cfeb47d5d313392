package org.lutra.txn;

import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The router's transaction service: opens transactions, runs their per-branch work in parallel,
 * and owns the decision log and recovery.
 */
public final class Transactions implements AutoCloseable {
    interface BranchAction {
        void run(Branch branch) throws SQLException;
    }

    private final Backends backends;
    private final RouterConfig.Transactions config;
    private final GlobalId.Factory ids;
    private final TxnStats stats = new TxnStats();
    private final org.lutra.exec.RouterMetrics metrics;
    private final ExecutorService threads = org.lutra.backend.BackendThreads.pool("lutra-branches"); // platform threads: see BackendThreads
    private final RouterNameLock name;
    private final Recovery recovery;
    private final DeadlockDetector deadlocks;
    /** The recording of live traffic, {@link org.lutra.trace.TraceRecorder#OFF} unless the config asks for one. */
    private volatile org.lutra.trace.TraceRecorder recorder = org.lutra.trace.TraceRecorder.OFF;

    /**
     * Takes this router's name (refused if a live router holds it), creates the decision tables,
     * then resolves what earlier lives of this router left in doubt.
     */
    public Transactions(Backends backends, RouterConfig.Transactions config) throws SQLException {
        this(backends, config, org.lutra.exec.RouterMetrics.NONE);
    }

    /** {@code metrics}: where committed transactions are reported (partitions, one or two phases). */
    public Transactions(Backends backends, RouterConfig.Transactions config, org.lutra.exec.RouterMetrics metrics) throws SQLException {
        this.metrics = metrics;
        this.backends = backends;
        this.config = config;
        this.ids = new GlobalId.Factory(config.routerName());
        ids.check(backends.placements().stream().map(Backends.Placement::name).toList());
        this.name = RouterNameLock.acquire(backends.placements().getFirst(), config.routerName());
        try {
            DecisionLog.install(backends);
            if (config.detectsDeadlocks()) WaitBoard.install(backends);
            this.recovery = new Recovery(backends, ids, config, stats);
            recovery.start();
        } catch (SQLException | RuntimeException e) {
            name.close();
            throw e;
        }
        this.deadlocks = new DeadlockDetector(backends, config.deadlockCheckMillis(), stats, ids);
    }

    /** Another router took this router's name (see {@link RouterNameLock}): two-phase commits are refused. */
    boolean nameTakenOver() {
        return name.takenOver();
    }

    /** A new transaction; {@code isolation} is a java.sql.Connection level, or TRANSACTION_NONE for the backend default. */
    TransactionState begin(int isolation) {
        return begin(isolation, false);
    }

    /** @param readOnly the transaction was declared READ ONLY (its writes are refused): it needs no XA branch */
    TransactionState begin(int isolation, boolean readOnly) {
        return new TransactionState(this, isolation, false, readOnly);
    }

    /** A transaction of the router's own move batch, at REPEATABLE READ: it waits for locks briefly and yields ({@code Backends.Placement#YIELDING_LOCK_WAIT_SECONDS}). */
    TransactionState beginYielding() {
        return new TransactionState(this, java.sql.Connection.TRANSACTION_REPEATABLE_READ, true, false);
    }

    public SessionTransactions session() {
        return new SessionTransactions(this);
    }

    /** Transactions from now on are drawn into {@code recorder}'s sample (docs/traces.md). */
    public void tracing(org.lutra.trace.TraceRecorder recorder) {
        this.recorder = recorder;
    }

    org.lutra.trace.TraceRecorder recorder() {
        return recorder;
    }

    org.lutra.exec.RouterMetrics metrics() {
        return metrics;
    }

    public TxnStats stats() {
        return stats;
    }

    public Recovery recovery() {
        return recovery;
    }

    DeadlockDetector deadlocks() {
        return deadlocks;
    }

    Backends backends() {
        return backends;
    }

    GlobalId.Factory ids() {
        return ids;
    }

    RouterConfig.Transactions config() {
        return config;
    }

    /** Runs {@code action} on every branch at once (one on the caller's thread); returns the failures. */
    Map<Branch, SQLException> parallel(List<Branch> branches, BranchAction action) {
        var failures = new LinkedHashMap<Branch, SQLException>();
        if (branches.isEmpty()) return failures;
        var futures = new ArrayList<Future<?>>();
        for (Branch b : branches.subList(1, branches.size())) {
            futures.add(threads.submit(() -> {
                action.run(b);
                return null;
            }));
        }
        try {
            action.run(branches.getFirst());
        } catch (SQLException e) {
            failures.put(branches.getFirst(), e);
        }
        for (int i = 0; i < futures.size(); i++) {
            Branch b = branches.get(i + 1);
            try {
                futures.get(i).get();
            } catch (ExecutionException e) {
                failures.put(b, e.getCause() instanceof SQLException s ? s : new SQLException(String.valueOf(e.getCause()), "HY000", 0, e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.put(b, new SQLException("interrupted while waiting for " + b, "HY008", 0, e));
            }
        }
        return failures;
    }

    @Override
    public void close() {
        recorder.close();
        deadlocks.close();
        recovery.close();
        threads.close();
        name.close();
    }
}
