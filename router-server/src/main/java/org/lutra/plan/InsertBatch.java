package org.lutra.plan;

import java.util.ArrayList;
import java.util.Locale;

/**
 * A PreparedStatement batch of one-row INSERTs run as one multi-row INSERT, which the executor
 * then splits per partition like any other (what Connector/J's rewriteBatchedStatements does on
 * the client, done here where the rows are routed): one statement per partition instead of one
 * round trip per row.
 *
 * <p>Only plain {@code INSERT [IGNORE] INTO .. VALUES (..)}: with {@code ON DUPLICATE KEY UPDATE}
 * or {@code REPLACE} a row may count 0, 1 or 2, so the combined count could not be given back
 * per entry.
 */
public final class InsertBatch {
    private InsertBatch() {}

    /**
     * {@code one} (the plan of the batch's statement) for {@code rows} entries whose parameters,
     * {@code paramsPerEntry} each, follow one another; null if it cannot be combined.
     */
    public static Plan.Insert combine(Plan one, int paramsPerEntry, int rows) {
        if (!(one instanceof Plan.Insert insert) || insert.rows().itemCount() != 1 || insert.paramCount() != paramsPerEntry) return null;
        if (!insert.rows().prefix().stripLeading().toUpperCase(Locale.ROOT).startsWith("INSERT") || !insert.rows().suffix().isBlank()) {
            return null;
        }
        SqlTemplate template = insert.rows().repeated(rows);
        if (template == null) return null;
        var keys = new ArrayList<ValueRef>(rows);
        ValueRef key = insert.keyPerRow().isEmpty() ? null : insert.keyPerRow().getFirst();
        for (int r = 0; key != null && r < rows; r++) {
            keys.add(key instanceof ValueRef.Param p ? new ValueRef.Param(p.index() + r * paramsPerEntry) : key);
        }
        return new Plan.Insert(insert.table(), template, keys, paramsPerEntry * rows);
    }
}
