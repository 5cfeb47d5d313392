package org.lutra.catalog;

import java.util.List;

/**
 * A table as the router sees it.
 *
 * @param ddl the CREATE TABLE statement without Lutra's partitioning clause, as run on each backend
 */
public record TableDef(String name, List<ColumnDef> columns, Partitioning partitioning, String ddl) {
    public ColumnDef column(String columnName) {
        for (var c : columns) {
            if (c.name().equalsIgnoreCase(columnName)) {
                return c;
            }
        }
        return null;
    }

    /** The routing column's key type; null for replicated tables. */
    public KeyType keyType() {
        String col = partitioning.column();
        return col == null ? null : column(col).keyType();
    }
}
