package org.lutra.catalog;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code CREATE SECONDARY LOOKUP name ON table(column) [UNIQUE]}: an index from the values of a column
 * the table is not placed by to the partitions holding rows with that value. Its entries live on the
 * backends, in {@code lutra_sec_<name> (v, p)} on each value's <i>home</i> partition (the table's
 * partitions, by the same hash as {@code hash(col)} placement), so that every router reads the same
 * entries and correctness depends on no router's memory. The protocol that keeps them right is
 * {@code org.lutra.placement.SecondaryEntries}'.
 *
 * @param building true while CREATE fills the entries of existing rows: writers keep its entries,
 *                 readers do not route by it yet
 */
public record SecondaryLookup(String name, String table, String column, boolean unique, boolean building) {
    private static final Pattern TEXT = Pattern.compile(
            "(?is)\\s*CREATE\\s+SECONDARY\\s+LOOKUP\\s+`?(\\w+)`?\\s+ON\\s+`?(\\w+)`?\\s*\\(\\s*`?(\\w+)`?\\s*\\)\\s*(UNIQUE\\b)?\\s*(BUILDING\\b)?\\s*;?\\s*");
    /** Names stay short enough for {@code lutra_sec_<name>} to be a table name (64 characters). */
    public static final int MAX_NAME = 54;

    /** Whether {@code text} is a CREATE SECONDARY LOOKUP statement (as the stored catalog and the schema file hold them). */
    public static boolean isDefinition(String text) {
        return text.stripLeading().regionMatches(true, 0, "CREATE SECONDARY", 0, 16);
    }

    /** The definition in {@code text}, or null if it is not one. */
    public static SecondaryLookup parse(String text) {
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) return null;
        return new SecondaryLookup(m.group(1).toLowerCase(Locale.ROOT), m.group(2), m.group(3), m.group(4) != null, m.group(5) != null);
    }

    /** The definition as the stored catalog keeps it. */
    public String createText() {
        return "CREATE SECONDARY LOOKUP `" + name + "` ON `" + table + "` (`" + column + "`)" + (unique ? " UNIQUE" : "") + (building ? " BUILDING" : "");
    }

    /** The stored catalog's row name: never a table's (table names beginning lutra_ are refused). */
    public String catalogKey() {
        return "lutra_sec:" + name;
    }

    /** The backend table of its entries, on every partition of the table. */
    public String indexTable() {
        return "lutra_sec_" + name;
    }

    public SecondaryLookup built() {
        return new SecondaryLookup(name, table, column, unique, false);
    }

    public boolean readable() {
        return !building;
    }

    /**
     * The indexed value as the entries are found by it ({@link ColumnDef#key}: equal for values the column
     * holds equal, so they share one home), or null: no entry can name it.
     */
    public Object key(TableDef t, Object value) {
        return t.column(column).key(value);
    }

    /** {@link #key} of each value, those a backend must weigh in one round trip. */
    public Object[] keys(TableDef t, Object[] values) {
        return t.column(column).keys(values);
    }

    /** The partition whose {@link #indexTable} holds {@code key}'s entries. */
    public int home(TableDef t, Object key) {
        int[] partitions = t.partitioning().partitions();
        return partitions[KeyValues.bucket(key, partitions.length)];
    }
}
