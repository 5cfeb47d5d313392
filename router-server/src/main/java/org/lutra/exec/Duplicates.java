package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which rows of an INSERT repeat the table's primary key (a row already there, or an earlier row of the same INSERT), asked
 * only for rows whose parent row is missing: MariaDB finds the duplicate before it looks for the parent, so such a row
 * fails, or is skipped, or updates, as a duplicate (1062), not for its foreign key (1452).
 */
final class Duplicates {
    private final TableDef table;
    private final Map<Integer, List<Object>> repeated; // row -> its primary key's values, for the rows that repeat one

    private Duplicates(TableDef table, Map<Integer, List<Object>> repeated) {
        this.table = table;
        this.repeated = repeated;
    }

    static Duplicates of(Executor executor, TableDef table, Plan.InsertReferences refs, List<Value> params, Collection<Integer> asked, Connections c)
            throws SQLException {
        var repeated = new HashMap<Integer, List<Object>>();
        if (refs.primaryKey().isEmpty()) return new Duplicates(table, repeated);
        var earlier = new java.util.HashSet<List<Object>>();
        int last = asked.stream().mapToInt(Integer::intValue).max().orElse(-1);
        var wanted = new TreeSet<>(asked);
        for (int r = 0; r <= last; r++) {
            var refsOfRow = refs.primaryPerRow().get(r);
            var key = refsOfRow == null ? null : ForeignKeyChecks.stored(table, refs.primaryKey(), refsOfRow, params);
            if (key == null) continue;
            if (wanted.contains(r)) {
                boolean repeats = earlier.contains(key.values()) || !ForeignKeyChecks.rows(executor, refs.statements(), "SELECT 1 FROM "
                        + ForeignKeyChecks.quote(table.name()) + " WHERE " + ForeignKeyChecks.equalities(refs.primaryKey()) + " LIMIT 1 LOCK IN SHARE MODE",
                        ForeignKeyChecks.values(key.values()), c).isEmpty();
                if (repeats) repeated.put(r, key.values());
            } else {
                earlier.add(key.values()); // a row that goes in (or repeats one already there): a later row with its key repeats it
            }
        }
        return new Duplicates(table, repeated);
    }

    boolean repeats(int row) {
        return repeated.containsKey(row);
    }

    /** The first row before {@code row} that repeats the primary key, or -1. */
    int firstBefore(int row) {
        return repeated.keySet().stream().filter(r -> r < row).mapToInt(Integer::intValue).min().orElse(-1);
    }

    /** MariaDB's 1062 for {@code row}. */
    SQLException error(int row) {
        var text = new ArrayList<String>();
        for (Object v : repeated.get(row)) text.add(v instanceof java.math.BigDecimal d ? d.toPlainString() : String.valueOf(v));
        return new SQLException("Duplicate entry '" + String.join("-", text) + "' for key 'PRIMARY'", "23000", 1062);
    }
}
