package org.lutra.backend;

import java.sql.SQLException;

/**
 * Checked each time a statement takes a backend connection to route to ({@link Backends.Placement#borrow(int)}):
 * the router routes only while its catalog lease is fresh ({@code org.lutra.ddl.CatalogLease}). The
 * router's own work (loading, the decision log, recovery) borrows without it.
 */
public final class RoutingFence {
    @FunctionalInterface
    public interface Check {
        void check() throws SQLException;
    }

    private volatile Check check = () -> {};

    public void use(Check check) {
        this.check = check;
    }

    public void check() throws SQLException {
        check.check();
    }
}
