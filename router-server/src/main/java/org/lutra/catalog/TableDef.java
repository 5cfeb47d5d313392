package org.lutra.catalog;

import java.util.List;

/**
 * A table as the router sees it.
 *
 * @param ddl       the CREATE TABLE statement without Lutra's partitioning clause, as run on each backend
 * @param placement the placement clause as written ({@code PARTITION BY hash(id) ON (p0, p1)}); null for
 *                  stand-in tables the planner makes up
 */
public record TableDef(String name, List<ColumnDef> columns, Partitioning partitioning, String ddl, String placement) {
    public TableDef(String name, List<ColumnDef> columns, Partitioning partitioning, String ddl) {
        this(name, columns, partitioning, ddl, null);
    }

    /** The whole definition, as the stored catalog keeps it: the backends' CREATE TABLE and the placement clause. */
    public String createText() {
        return ddl + "\n  " + placement;
    }

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

    /** The routing column's collation when it is not declared binary, else null. */
    public KeyCollation keyCollation() {
        String col = partitioning.column();
        return col == null ? null : column(col).collation();
    }

    /**
     * What column {@code columnName} holds after an INSERT or UPDATE writes {@code value} into it ({@link StoredValue});
     * null where the router cannot tell.
     */
    public StoredValue.Stored stored(String columnName, Object value) {
        ColumnDef c = column(columnName);
        return c == null ? null : StoredValue.of(c.type(), value);
    }

    /**
     * The routing key of {@code value} ({@link ColumnDef#key}): values the column holds equal route
     * alike; null if the value cannot be routed exactly.
     */
    public Object key(Object value) {
        return column(partitioning.column()).key(value);
    }

    /** {@link #key} of each value, those a backend must weigh in one round trip. */
    public Object[] keys(Object[] values) {
        return column(partitioning.column()).keys(values);
    }
}
