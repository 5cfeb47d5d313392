package org.lutra.exec;

import java.util.List;

/**
 * What the session's transaction state needs to know of a read before it runs it, decided when the plan is made (plans are
 * cached: an execution reads two booleans instead of walking the tree and matching its SQL).
 *
 * @param plainRead  the rows come from routes that no operator of the router queries again while they stream (routes merged,
 *                   limited, projected): inside a transaction such a read streams from the pinned connections
 * @param neverWaits every backend statement of the plan is a locking read that never waits (NOWAIT, SKIP LOCKED): its lock
 *                   wait timeout cannot be part of a deadlock
 */
public record QueryTraits(boolean plainRead, boolean neverWaits) {
    static QueryTraits of(Operator root) {
        return new QueryTraits(plain(root), neverWaiting(root));
    }

    private static boolean neverWaiting(Operator root) {
        var routes = new java.util.ArrayList<Route>();
        if (!onlyRoutes(root, routes) || routes.isEmpty()) return false;
        return routes.stream().allMatch(r -> org.lutra.sql.Guards.neverWaitingLockingRead(r.sql()));
    }

    /** Collects the plan's routes; false where an operator of it queries backends otherwise (its own SQL). */
    private static boolean onlyRoutes(Operator op, List<Route> routes) {
        if (op instanceof Route r) {
            routes.add(r);
            return true;
        }
        for (var in : op.inputs()) {
            if (!onlyRoutes(in, routes)) return false;
        }
        return true;
    }

    private static boolean plain(Operator op) {
        if (op instanceof Route) return true;
        if (op instanceof SelectPlan select) return select.streamsPlainly(QueryTraits::plain);
        boolean passesRows = op instanceof MergeSort || op instanceof Limit || op instanceof ParamLimit || op instanceof Project;
        return passesRows && op.inputs().stream().allMatch(QueryTraits::plain);
    }
}
