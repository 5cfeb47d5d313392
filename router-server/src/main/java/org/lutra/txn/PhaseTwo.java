package org.lutra.txn;

import org.lutra.backend.Backends;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;

/**
 * Commits one prepared branch of a transaction whose commit decision is durable, and says
 * honestly what happened when its server does not simply answer OK.
 *
 * <ul>
 *   <li>The branch's connection is lost (not timed out): the prepared branch outlives it on the
 *       server, detached, so it is committed at once on a connection of its own.</li>
 *   <li>{@code XA COMMIT} answers XAER_NOTA (the server does not know the branch): this is not
 *       taken as "already committed". The branch may still be prepared — MariaDB answers XAER_NOTA
 *       on every connection but the one that prepared it until that one closes — then recovery
 *       commits it later. If XA RECOVER no longer lists it, someone ended it; only recovery ends
 *       another's branch, and it carries out the logged decision, so the decision row is read:
 *       commit (or already collected, which happens only once no branch is prepared) means it was
 *       committed; an abort verdict would mean the branch was rolled back, which the fence in
 *       {@link DecisionLog} rules out, and is reported as such rather than hidden.</li>
 *   <li>XA_RBROLLBACK from a detached branch: it matched rows but changed none, there was nothing to commit.</li>
 *   <li>Anything else (a timeout included): the branch stays prepared for recovery.</li>
 * </ul>
 */
final class PhaseTwo {
    private static final Logger log = LoggerFactory.getLogger(PhaseTwo.class);
    static final int XAER_NOTA = 1397;
    /** MariaDB's answer to XA COMMIT of a detached prepared branch that changed nothing (see {@link Recovery}). */
    static final int XA_RBROLLBACK = 1402;

    /** A branch of a committed transaction was found rolled back: atomicity is lost, and the client must hear it. */
    static final class BranchRolledBack extends SQLException {
        BranchRolledBack(Branch b) {
            super("its branch " + b.xid + " on " + b.placement.name() + " is gone and the decision log holds an abort verdict:"
                    + " that branch was rolled back", "HY000", 0);
        }
    }

    private final Transactions service;
    private final Backends.Placement coordinator;
    private final String gtrid;

    PhaseTwo(Transactions service, Backends.Placement coordinator, String gtrid) {
        this.service = service;
        this.coordinator = coordinator;
        this.gtrid = gtrid;
    }

    void commit(Branch b) throws SQLException {
        try {
            b.commitPrepared();
            return;
        } catch (SQLException e) {
            if (e.getErrorCode() == XAER_NOTA) {
                confirmEnded(b, e);
                return;
            }
            // A timed-out server is not asked again here: recovery does, within its own deadline.
            if (!TransactionState.isConnectionLoss(e) || b.ranOutOfTime(e)) throw e;
            log.debug("phase two: connection of {} lost ({}), committing it on another", b, e.getMessage());
        }
        try {
            b.commitPreparedDetached(service.config().commitTimeoutMillis());
        } catch (SQLException e) {
            if (e.getErrorCode() == XA_RBROLLBACK) return; // it changed nothing: nothing to commit
            if (e.getErrorCode() != XAER_NOTA) throw e;
            confirmEnded(b, e);
        }
    }

    private void confirmEnded(Branch b, SQLException nota) throws SQLException {
        if (service.recovery().isPrepared(b.placement, b.xid)) {
            throw new SQLException(b.xid + " on " + b.placement.name() + " is still prepared though XA COMMIT answered XAER_NOTA"
                    + " (another connection holds it)", "HY000", XAER_NOTA, nota);
        }
        var outcome = service.recovery().loggedOutcome(coordinator, gtrid);
        if (outcome == DecisionLog.Outcome.ABORT) {
            log.error("phase two: {} on {} was rolled back although {} was decided commit: atomicity lost", b.xid, b.placement.name(), gtrid);
            throw new BranchRolledBack(b);
        }
        log.info("phase two: {} on {} was already committed by XA recovery", b.xid, b.placement.name());
    }
}
