package org.lutra.workload;

import java.util.List;

/**
 * The rows of one table to load, in load order.
 *
 * @param table   the table
 * @param columns its columns, in the order of each row's values
 * @param rows    the values, one array per row
 */
public record TableData(String table, List<String> columns, List<Object[]> rows) {
    public TableData {
        columns = List.copyOf(columns);
    }

    /** {@code INSERT INTO table (c1, c2) VALUES (?, ?)}. */
    public String insertSql() {
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(columns.size(), "?")) + ")";
    }
}
