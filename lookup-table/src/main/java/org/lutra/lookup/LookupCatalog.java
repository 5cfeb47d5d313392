package org.lutra.lookup;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which lookup table serves which column. Columns tied by a location dependency
 * ({@code PARTITION BY lookup(source) SAME AS users}) share one table object, so a move or insert
 * recorded through one column is seen through all of them and the keys are stored once.
 */
public final class LookupCatalog {
    private final Map<String, LookupTable> byColumn = new ConcurrentHashMap<>();

    private static String column(String table, String column) {
        return table + "." + column;
    }

    /** Registers the table that holds {@code table.column}'s keys; returns it. */
    public LookupTable define(String table, String column, LookupTable lookup) {
        if (byColumn.putIfAbsent(column(table, column), lookup) != null) {
            throw new IllegalArgumentException(column(table, column) + " already has a lookup table");
        }
        return lookup;
    }

    /** Makes {@code table.column} use the same table object as {@code ownerTable.ownerColumn}. */
    public LookupTable sameAs(String table, String column, String ownerTable, String ownerColumn) {
        LookupTable owner = table(ownerTable, ownerColumn);
        if (owner == null) {
            throw new IllegalArgumentException("SAME AS " + column(ownerTable, ownerColumn) + ": that column has no lookup table");
        }
        return define(table, column, owner);
    }

    /** The table for the column, or null. */
    public LookupTable table(String table, String column) {
        return byColumn.get(column(table, column));
    }

    /** Every column served by this table object. */
    public Set<String> columnsSharing(LookupTable lookup) {
        Set<String> columns = new LinkedHashSet<>();
        byColumn.forEach((c, t) -> {
            if (t == lookup) {
                columns.add(c);
            }
        });
        return columns;
    }
}
