package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;

/**
 * Orders rows by a list of {@link SortKey}s. Built once the columns are known (from the first
 * shard's metadata): a character column is compared by its weight string, and one without a
 * weight column is refused rather than compared in some other collation.
 */
public final class RowOrder implements Comparator<Row> {
    private final SortKey[] keys;

    private RowOrder(SortKey[] keys) {
        this.keys = keys;
    }

    public static RowOrder of(List<SortKey> keys, List<Column> columns, String what) throws SQLException {
        var effective = new SortKey[keys.size()];
        for (int i = 0; i < effective.length; i++) {
            SortKey k = keys.get(i);
            Column c = columns.get(k.column());
            // ENUM and SET sort by their index: the planner asks the shards for col + 0 as their key
            boolean byIndex = k.weightColumn() >= 0 && Values.isInteger(columns.get(k.weightColumn()));
            if (!byIndex) Values.requireOrderable(c, what);
            if (Values.needsWeight(c)) {
                if (k.weightColumn() < 0) {
                    throw Refusal.of("Lutra cannot compare the text column '" + c.getLabel() + "' for " + what
                            + " over several partitions (its collation's order is unknown to the router)");
                }
                effective[i] = k;
            } else {
                effective[i] = new SortKey(k.column(), k.descending(), -1);
            }
        }
        return new RowOrder(effective);
    }

    @Override
    public int compare(Row a, Row b) {
        for (SortKey k : keys) {
            int column = k.weightColumn() >= 0 ? k.weightColumn() : k.column();
            int c = Values.compare(a.getValues(column), b.getValues(column));
            if (c != 0) return k.descending() ? -c : c;
        }
        return 0;
    }

    /** Whether two rows are equal on every key: the same group, or duplicates for DISTINCT. */
    public boolean same(Row a, Row b) {
        return compare(a, b) == 0;
    }

    static Value key(Row r, SortKey k) {
        return r.getValues(k.weightColumn() >= 0 ? k.weightColumn() : k.column());
    }
}
