package org.lutra.plan;

import org.lutra.exec.Plan;
import org.lutra.exec.Planned;
import org.lutra.sql.AutoFill;
import org.lutra.sql.SqlTemplate;
import org.lutra.sql.ValueRef;

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
    public static Plan.Insert combine(Planned one, int paramsPerEntry, int rows) {
        if (!(one instanceof Plan.Insert insert) || insert.rows().itemCount() != 1 || insert.paramCount() != paramsPerEntry) return null;
        if (!insert.rows().prefix().stripLeading().toUpperCase(Locale.ROOT).startsWith("INSERT") || !insert.rows().suffix().isBlank()) {
            return null;
        }
        // INSERT IGNORE with ids the router fills: which rows were skipped, and so which entries got an id, would be unknown
        if (insert.auto() != null && insert.auto().ignore()) return null;
        if (!insert.secondaries().isEmpty()) return null; // each entry's rows write their secondary lookups' entries one by one
        if (insert.references() != null) return null; // each entry's rows are checked against their parents, and counted, one by one
        SqlTemplate template = insert.rows().repeated(rows);
        if (template == null) return null;
        int sentPerEntry = insert.auto() == null ? paramsPerEntry : insert.auto().sentParams(paramsPerEntry);
        var keys = new ArrayList<ValueRef>(rows);
        ValueRef key = insert.keyPerRow().isEmpty() ? null : insert.keyPerRow().getFirst();
        for (int r = 0; key != null && r < rows; r++) keys.add(shifted(key, r * sentPerEntry));
        return new Plan.Insert(insert.table(), template, keys, paramsPerEntry * rows, repeated(insert.auto(), rows, sentPerEntry));
    }

    private static AutoFill repeated(AutoFill one, int rows, int sentPerEntry) {
        if (one == null) return null;
        var perRow = new ArrayList<ValueRef>(rows);
        int[] added = new int[one.added().length * rows];
        for (int r = 0; r < rows; r++) {
            perRow.add(shifted(one.perRow().getFirst(), r * sentPerEntry));
            for (int a = 0; a < one.added().length; a++) added[r * one.added().length + a] = one.added()[a] + r * sentPerEntry;
        }
        return new AutoFill(one.column(), perRow, added, one.ignore(), one.upsert());
    }

    private static ValueRef shifted(ValueRef ref, int by) {
        return ref instanceof ValueRef.Param p ? new ValueRef.Param(p.index() + by) : ref;
    }
}
