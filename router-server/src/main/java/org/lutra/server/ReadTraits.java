package org.lutra.server;

import org.lutra.exec.Plan;

import java.util.List;

/** What the session's transaction state needs to know of a read's plan before it runs it. */
final class ReadTraits {
    private ReadTraits() {}

    /**
     * Whether the plan's rows come from routes that no operator of the router queries again while
     * they stream (routes merged, limited, projected): inside a transaction such a read streams
     * from the pinned connections (see SessionStatement#plainRead).
     */
    static boolean plainRead(Plan plan) {
        return plan instanceof Plan.Query q && plain(q.root());
    }

    /**
     * Whether every backend statement of the plan is a locking read that never waits (NOWAIT, SKIP LOCKED): then
     * its lock wait timeout cannot be part of a deadlock (see SessionStatement#neverWaits).
     */
    static boolean neverWaitingRead(Plan plan) {
        if (!(plan instanceof Plan.Query q)) return false;
        var routes = new java.util.ArrayList<org.lutra.exec.Route>();
        if (!onlyRoutes(q.root(), routes) || routes.isEmpty()) return false;
        return routes.stream().allMatch(r -> org.lutra.sql.Guards.neverWaitingLockingRead(r.sql()));
    }

    /** Collects the plan's routes; false where an operator of it queries backends otherwise (its own SQL). */
    private static boolean onlyRoutes(org.lutra.exec.Operator op, List<org.lutra.exec.Route> routes) {
        if (op instanceof org.lutra.exec.Route r) {
            routes.add(r);
            return true;
        }
        for (var in : op.inputs()) {
            if (!onlyRoutes(in, routes)) return false;
        }
        return true;
    }

    private static boolean plain(org.lutra.exec.Operator op) {
        if (op instanceof org.lutra.exec.Route) return true;
        if (op instanceof org.lutra.exec.SelectPlan select) return select.streamsPlainly(ReadTraits::plain);
        boolean passesRows = op instanceof org.lutra.exec.MergeSort || op instanceof org.lutra.exec.Limit
                || op instanceof org.lutra.exec.ParamLimit || op instanceof org.lutra.exec.Project;
        return passesRows && op.inputs().stream().allMatch(ReadTraits::plain);
    }
}
