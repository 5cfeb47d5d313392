package org.lutra.cli.bench;

import org.lutra.txn.TxnStats;

/**
 * A copy of the router's transaction counters ({@link TxnStats}), so a run's share is the
 * difference of two copies. Phase times are kept as totals: a delta's mean is total / count.
 */
record TxnCounters(long onePhase, long twoPhase, long aborts, long rollbacks, long readOnlyBranches,
                   Phase prepare, Phase decision, Phase commit) {

    record Phase(long count, double totalMillis) {
        static Phase of(TxnStats.Phase p) {
            long n = p.count();
            return new Phase(n, p.meanMillis() * n);
        }

        Phase minus(Phase o) {
            return new Phase(count - o.count, totalMillis - o.totalMillis);
        }

        Phase plus(Phase o) {
            return new Phase(count + o.count, totalMillis + o.totalMillis);
        }

        double meanMillis() {
            return count == 0 ? Double.NaN : totalMillis / count;
        }
    }

    static final TxnCounters ZERO = new TxnCounters(0, 0, 0, 0, 0, new Phase(0, 0), new Phase(0, 0), new Phase(0, 0));

    static TxnCounters of(TxnStats s) {
        return new TxnCounters(s.onePhaseCommits.sum(), s.twoPhaseCommits.sum(), s.aborts.sum(), s.rollbacks.sum(),
                s.readOnlyBranches.sum(), Phase.of(s.prepare), Phase.of(s.decision), Phase.of(s.commit));
    }

    TxnCounters minus(TxnCounters o) {
        return new TxnCounters(onePhase - o.onePhase, twoPhase - o.twoPhase, aborts - o.aborts, rollbacks - o.rollbacks,
                readOnlyBranches - o.readOnlyBranches, prepare.minus(o.prepare), decision.minus(o.decision), commit.minus(o.commit));
    }

    TxnCounters plus(TxnCounters o) {
        return new TxnCounters(onePhase + o.onePhase, twoPhase + o.twoPhase, aborts + o.aborts, rollbacks + o.rollbacks,
                readOnlyBranches + o.readOnlyBranches, prepare.plus(o.prepare), decision.plus(o.decision), commit.plus(o.commit));
    }

    /**
     * Whether the router ended {@code committed} transactions of {@code w} the way it must: one
     * COMMIT for a single writer, XA two-phase commit for several, nothing at all for statements
     * that never reached it. Null when they match, else what differs.
     */
    String mismatch(TxnWorkload w, long committed) {
        long expectOne = 0;
        long expectTwo = 0;
        if (w.path == TxnWorkload.Path.ROUTER && !w.autocommit()) {
            if (w.participants == 1) expectOne = committed; else expectTwo = committed;
        }
        // a single-partition auto-commit statement runs on a pooled connection, outside any TransactionState
        if (onePhase == expectOne && twoPhase == expectTwo) return null;
        return "expected 1PC=" + expectOne + " 2PC=" + expectTwo + ", router counted 1PC=" + onePhase + " 2PC=" + twoPhase;
    }
}
