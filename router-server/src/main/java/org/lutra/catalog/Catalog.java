package org.lutra.catalog;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables and partitions the router knows: the stored catalog (seeded from the schema file, changed by
 * DDL; see {@code org.lutra.ddl.CatalogStore}). Immutable: a change makes a new Catalog ({@link LiveCatalog}).
 */
public final class Catalog {
    private final List<Partition> partitions;
    private final Map<String, TableDef> tables;
    private final List<TableDef> schemaOrder;

    /** {@code tables} in the order of the schema file (a LinkedHashMap). */
    Catalog(List<Partition> partitions, Map<String, TableDef> tables) {
        this.partitions = List.copyOf(partitions);
        this.tables = Map.copyOf(tables);
        this.schemaOrder = List.copyOf(tables.values());
    }

    public List<Partition> partitions() {
        return partitions;
    }

    public Partition partition(int id) {
        return partitions.get(id);
    }

    /** The partition of that name (case-insensitive). */
    public Partition partitionNamed(String name) {
        for (Partition p : partitions) {
            if (p.name().equalsIgnoreCase(name)) return p;
        }
        throw new IllegalArgumentException("no partition named '" + name + "'");
    }

    /** The table, case-insensitively, or null. */
    public TableDef table(String name) {
        return tables.get(name.toLowerCase(Locale.ROOT));
    }

    public List<TableDef> tables() {
        return tables.values().stream().sorted((a, b) -> a.name().compareTo(b.name())).toList();
    }

    /** This catalog without {@code name} (case-insensitively); the order of the others is kept. */
    public Catalog without(String name) {
        var rest = new java.util.LinkedHashMap<String, TableDef>();
        for (TableDef t : schemaOrder) {
            if (!t.name().equalsIgnoreCase(name)) rest.put(t.name().toLowerCase(Locale.ROOT), t);
        }
        return new Catalog(partitions, rest);
    }

    /** The tables as the schema file lists them: the order to create them in (a foreign key's table first). */
    public List<TableDef> tablesInSchemaOrder() {
        return schemaOrder;
    }
}
