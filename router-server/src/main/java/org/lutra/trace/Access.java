package org.lutra.trace;

import java.util.Objects;

/**
 * One row a transaction touched: its table and its key (the row's value of the table's routing
 * column, as text), read or written.
 */
public record Access(boolean write, String table, String key) {
    public Access {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
        if (table.isEmpty()) throw new IllegalArgumentException("an access needs a table name");
    }

    public static Access read(String table, String key) {
        return new Access(false, table, key);
    }

    public static Access write(String table, String key) {
        return new Access(true, table, key);
    }
}
