package org.lutra.catalog;

/**
 * A column as the router needs it: its name and, if it can be a partitioning key, how its values
 * compare ({@code keyType} is null for types the router cannot route on), and for a string key
 * with a case- or accent-insensitive collation that collation's equality.
 */
public record ColumnDef(String name, String typeName, KeyType keyType, KeyCollation collation) {
    public ColumnDef(String name, String typeName, KeyType keyType) {
        this(name, typeName, keyType, null);
    }
}
