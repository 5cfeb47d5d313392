package org.lutra.placement;

import org.lutra.catalog.Catalog;

import java.sql.SQLException;
import java.sql.Statement;

/** The placement protocol's tables on one partition, created at start ({@code Backends.open}): the home rows and their trigger, the change log. */
public final class PlacementTables {
    private PlacementTables() {}

    public static void install(Statement st, Catalog catalog, int partition) throws SQLException {
        PlacementRows.install(st, catalog, partition);
        PlacementLog.install(st);
    }
}
