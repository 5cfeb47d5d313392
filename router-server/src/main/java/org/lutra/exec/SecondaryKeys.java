package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.placement.SecondaryEntries;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The values a secondary lookup's entries hold for the rows a write (or a move) leaves on a partition. */
final class SecondaryKeys {
    private SecondaryKeys() {}

    /** The value a secondary lookup's column holds once {@code raw} is written into it; {@code raw} where the router cannot tell (then refused below if it is no exact key). */
    static Object written(TableDef table, SecondaryLookup lookup, Object raw) {
        var stored = table.stored(lookup.column(), raw);
        return stored == null ? raw : stored.value();
    }

    /**
     * The value a secondary lookup's entries hold for {@code raw}; null for NULL (no entry: {@code col = v} never
     * matches it). A value the router cannot index exactly is refused: its row would be missing from the entries.
     */
    static Object of(TableDef table, SecondaryLookup lookup, Object raw) throws SQLException {
        return of(table, lookup, raw, raw == null ? null : lookup.key(table, raw));
    }

    /** As {@link #of(TableDef, SecondaryLookup, Object)}, with {@code key} the lookup's key for {@code raw} (weighed before). */
    static Object of(TableDef table, SecondaryLookup lookup, Object raw, Object key) throws SQLException {
        if (raw == null) return null;
        if (key == null) {
            throw new SQLException("cannot index " + table.name() + "." + lookup.column() + " = " + raw + " in secondary lookup " + lookup.name()
                    + ": not a valid " + table.column(lookup.column()).keyType().name().toLowerCase() + " value (give it as the column holds it)", "22007", 1292);
        }
        return key;
    }

    /**
     * Writes the entries a move must write for rows it copied to {@code to} (inside the move's transaction): every
     * secondary lookup of {@code table}, the values of its column in {@code rows}.
     */
    static void moved(Shards shards, Catalog catalog, TableDef table, String[] columns, List<Object[]> rows, int to) throws SQLException {
        for (var lookup : catalog.secondariesOf(table.name())) {
            int at = -1;
            for (int i = 0; i < columns.length; i++) if (columns[i].equalsIgnoreCase(lookup.column())) at = i;
            if (at < 0) throw new SQLException("move of " + table.name() + ": no column " + lookup.column() + " for secondary lookup " + lookup.name(), "HY000", 0);
            var entries = new ArrayList<SecondaryEntries.Entry>();
            for (Object[] row : rows) {
                Object key = of(table, lookup, row[at]);
                if (key != null) entries.add(new SecondaryEntries.Entry(key, to));
            }
            SecondaryEntries.write(shards, table, lookup, entries);
        }
    }
}
