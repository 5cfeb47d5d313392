package org.lutra.txn;

import org.lutra.exec.PartitionCounts;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of how transactions ended and how long the commit phases took, for the router's
 * status and the transaction benchmark.
 */
public final class TxnStats {
    /** A phase's count and total time; mean = total / count. */
    public static final class Phase {
        private final LongAdder count = new LongAdder();
        private final LongAdder nanos = new LongAdder();

        void add(long elapsedNanos) {
            count.increment();
            nanos.add(elapsedNanos);
        }

        public long count() {
            return count.sum();
        }

        /** Their time summed. */
        public long totalNanos() {
            return nanos.sum();
        }

        public double meanMillis() {
            long n = count.sum();
            return n == 0 ? 0 : nanos.sum() / 1e6 / n;
        }
    }

    /** Committed with one COMMIT on one writer (the others, if any, only read). */
    public final LongAdder onePhaseCommits = new LongAdder();
    /** Committed with XA two-phase commit. */
    public final LongAdder twoPhaseCommits = new LongAdder();
    public final LongAdder rollbacks = new LongAdder();
    /** Rolled back because a statement or a prepare failed. */
    public final LongAdder aborts = new LongAdder();
    /** Read-only branches released in phase one. */
    public final LongAdder readOnlyBranches = new LongAdder();
    public final Phase prepare = new Phase();
    public final Phase decision = new Phase();
    public final Phase commit = new Phase();
    /** Committed transactions by the partitions they touched (index: partitions, the last one: that many or more). */
    public final PartitionCounts partitions = new PartitionCounts();
    /** Branches resolved by recovery. */
    public final LongAdder recoveredCommits = new LongAdder();
    public final LongAdder recoveredRollbacks = new LongAdder();
    /** Deadlocks across partitions this router's detector broke (each by rolling back one victim of its own). */
    public final LongAdder deadlocksDetected = new LongAdder();
    /** Lock wait timeouts in a transaction holding locks on several partitions, reported as suspected deadlocks. */
    public final LongAdder deadlocksByTimeout = new LongAdder();
    /** Times the detector read the shards' lock-wait views (only while a locking statement had waited past deadlock_check_ms). */
    public final LongAdder deadlockChecks = new LongAdder();
    /** Auto-commit statements rolled back whole as deadlock victims and run again by the router (the client saw no error). */
    public final LongAdder deadlockRestarts = new LongAdder();
}
