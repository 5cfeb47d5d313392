package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.placement.SecondaryEntries;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The values a secondary lookup's entries hold for the rows a write (or a move) leaves on a partition. A row's raw value
 * is one value per column of the lookup, in its order.
 */
final class SecondaryKeys {
    private SecondaryKeys() {}

    /** The values the lookup's columns hold once {@code raw} is written into them; each part {@code raw}'s where the router cannot tell (then refused below if it is no exact key). */
    static Object[] written(TableDef table, SecondaryLookup lookup, Object[] raw) {
        var out = new Object[raw.length];
        for (int i = 0; i < raw.length; i++) {
            var stored = raw[i] == null ? null : table.stored(lookup.columns().get(i), raw[i]);
            out[i] = stored == null ? raw[i] : stored.value();
        }
        return out;
    }

    /** Whether a part of {@code raw} is NULL: the row has no entry ({@code col = v} never matches it, nor a tuple with a NULL part). */
    static boolean hasNull(Object[] raw) {
        for (Object v : raw) if (v == null) return true;
        return false;
    }

    /**
     * The value a secondary lookup's entries hold for {@code raw}; null where a part is NULL (no entry). A value the router
     * cannot index exactly is refused: its row would be missing from the entries.
     */
    static Object of(TableDef table, SecondaryLookup lookup, Object[] raw) throws SQLException {
        return of(table, lookup, raw, hasNull(raw) ? null : lookup.key(table, raw));
    }

    /** As {@link #of(TableDef, SecondaryLookup, Object[])}, with {@code key} the lookup's key for {@code raw} (weighed before). */
    static Object of(TableDef table, SecondaryLookup lookup, Object[] raw, Object key) throws SQLException {
        if (hasNull(raw)) return null;
        if (key == null) {
            for (int i = 0; i < raw.length; i++) {
                var column = table.column(lookup.columns().get(i));
                if (column.key(raw[i]) == null) {
                    throw new SQLException("cannot index " + table.name() + "." + column.name() + " = " + raw[i] + " in secondary lookup " + lookup.name()
                            + ": not a valid " + column.keyType().name().toLowerCase() + " value (give it as the column holds it)", "22007", 1292);
                }
            }
            throw new SQLException("cannot index " + table.name() + "." + lookup.columnList() + " = " + java.util.Arrays.toString(raw) + " in secondary lookup "
                    + lookup.name() + " (give the values as the columns hold them)", "22007", 1292);
        }
        return key;
    }

    /**
     * Writes the entries a move must write for rows it copied to {@code to} (inside the move's transaction): every
     * secondary lookup of {@code table}, the values of its columns in {@code rows}.
     */
    static void moved(Shards shards, Catalog catalog, TableDef table, String[] columns, List<Object[]> rows, int to) throws SQLException {
        for (var lookup : catalog.secondariesOf(table.name())) {
            int[] at = new int[lookup.columns().size()];
            for (int c = 0; c < at.length; c++) {
                at[c] = -1;
                for (int i = 0; i < columns.length; i++) if (columns[i].equalsIgnoreCase(lookup.columns().get(c))) at[c] = i;
                if (at[c] < 0) throw new SQLException("move of " + table.name() + ": no column " + lookup.columns().get(c) + " for secondary lookup " + lookup.name(), "HY000", 0);
            }
            var entries = new ArrayList<SecondaryEntries.Entry>();
            for (Object[] row : rows) {
                var raw = new Object[at.length];
                for (int c = 0; c < at.length; c++) raw[c] = row[at[c]];
                Object key = of(table, lookup, raw);
                if (key != null) entries.add(new SecondaryEntries.Entry(key, to));
            }
            SecondaryEntries.write(shards, table, lookup, entries);
        }
    }
}
