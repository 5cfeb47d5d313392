package org.lutra.catalog;

/**
 * A column as the router needs it: its name and, if it can be a partitioning key, how its values
 * compare ({@code keyType} is null for types the router cannot route on), and for a string key
 * whose collation is not declared binary that collation's equality (learned from a backend); {@code type}: its
 * SQL type, which decides the value it holds after a write ({@link StoredValue}).
 */
public record ColumnDef(String name, String typeName, KeyType keyType, KeyCollation collation, ColumnType type) {
    public ColumnDef(String name, String typeName, KeyType keyType) {
        this(name, typeName, keyType, null);
    }

    public ColumnDef(String name, String typeName, KeyType keyType, KeyCollation collation) {
        this(name, typeName, keyType, collation, ColumnType.parse(typeName, collation == null || collation.name() == null ? null : "COLLATE " + collation.name()));
    }

    /** This column with another collation (a learned one). */
    public ColumnDef withCollation(KeyCollation learned) {
        return new ColumnDef(name, typeName, keyType, learned, type);
    }

    /**
     * The routing key of {@code value} in this column (see {@link KeyValues#normalize}): under a collation,
     * equal for exactly the values the column holds equal; null if the value cannot be routed exactly.
     *
     * @throws KeyWeighingException when a backend must weigh the value and cannot
     */
    public Object key(Object value) {
        if (value == null) return null;
        if (collation == null) return KeyValues.normalize(value, keyType);
        return value instanceof String s ? collation.key(s) : null; // a number against a string column compares numerically
    }

    /** {@link #key} of each value, the values a backend must weigh in one round trip. */
    public Object[] keys(Object[] values) {
        if (collation == null) {
            var out = new Object[values.length];
            for (int i = 0; i < values.length; i++) out[i] = key(values[i]);
            return out;
        }
        var strings = new String[values.length];
        for (int i = 0; i < values.length; i++) strings[i] = values[i] instanceof String s ? s : null;
        return collation.keys(strings);
    }
}
