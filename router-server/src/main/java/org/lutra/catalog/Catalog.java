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
    private final List<SecondaryLookup> secondaries;

    /** {@code tables} in the order of the schema file (a LinkedHashMap). */
    Catalog(List<Partition> partitions, Map<String, TableDef> tables) {
        this(partitions, tables, List.of());
    }

    Catalog(List<Partition> partitions, Map<String, TableDef> tables, List<SecondaryLookup> secondaries) {
        this.partitions = List.copyOf(partitions);
        this.tables = Map.copyOf(tables);
        this.schemaOrder = List.copyOf(tables.values());
        this.secondaries = List.copyOf(secondaries);
    }

    /** The foreign keys of every table, read once when first asked for ({@link ForeignKeys}). */
    private volatile List<ForeignKey> foreignKeys;

    /** Every foreign key of the catalog's tables, in schema order, with whether it is crossing ({@link ForeignKeys}). */
    public List<ForeignKey> foreignKeys() {
        List<ForeignKey> all = foreignKeys;
        if (all == null) foreignKeys = all = ForeignKeys.of(this);
        return all;
    }

    /** The foreign keys {@code child} declares. */
    public List<ForeignKey> foreignKeysOf(String child) {
        return foreignKeys().stream().filter(f -> f.child().equalsIgnoreCase(child)).toList();
    }

    /** The foreign keys that reference {@code parent} (its own self-references included). */
    public List<ForeignKey> referencing(String parent) {
        return foreignKeys().stream().filter(f -> f.parent().equalsIgnoreCase(parent)).toList();
    }

    /** Every secondary lookup, in creation order. */
    public List<SecondaryLookup> secondaries() {
        return secondaries;
    }

    /** The secondary lookups on {@code table} (case-insensitively), building ones included. */
    public List<SecondaryLookup> secondariesOf(String table) {
        return secondaries.stream().filter(s -> s.table().equalsIgnoreCase(table)).toList();
    }

    /** The secondary lookup of that name (case-insensitively), or null. */
    public SecondaryLookup secondary(String name) {
        return secondaries.stream().filter(s -> s.name().equalsIgnoreCase(name)).findFirst().orElse(null);
    }

    /** This catalog with {@code lookup} added, or replacing the one of its name. */
    public Catalog withSecondary(SecondaryLookup lookup) {
        var next = new java.util.ArrayList<SecondaryLookup>();
        boolean replaced = false;
        for (SecondaryLookup s : secondaries) {
            if (s.name().equalsIgnoreCase(lookup.name())) {
                next.add(lookup);
                replaced = true;
            } else {
                next.add(s);
            }
        }
        if (!replaced) next.add(lookup);
        return new Catalog(partitions, linked(), next);
    }

    /** This catalog without the secondary lookup {@code name}. */
    public Catalog withoutSecondary(String name) {
        return new Catalog(partitions, linked(), secondaries.stream().filter(s -> !s.name().equalsIgnoreCase(name)).toList());
    }

    private Map<String, TableDef> linked() {
        var out = new java.util.LinkedHashMap<String, TableDef>();
        for (TableDef t : schemaOrder) out.put(t.name().toLowerCase(Locale.ROOT), t);
        return out;
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

    /** This catalog without {@code name} (case-insensitively) and its secondary lookups; the order of the others is kept. */
    public Catalog without(String name) {
        var rest = new java.util.LinkedHashMap<String, TableDef>();
        for (TableDef t : schemaOrder) {
            if (!t.name().equalsIgnoreCase(name)) rest.put(t.name().toLowerCase(Locale.ROOT), t);
        }
        return new Catalog(partitions, rest, secondaries.stream().filter(s -> !s.table().equalsIgnoreCase(name)).toList());
    }

    /** The tables as the schema file lists them: the order to create them in (a foreign key's table first). */
    public List<TableDef> tablesInSchemaOrder() {
        return schemaOrder;
    }
}
