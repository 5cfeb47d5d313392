package org.lutra.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code CREATE SECONDARY LOOKUP name ON table(col [, col ...]) [UNIQUE]}: an index from the values of columns the table
 * is not placed by to the partitions holding rows with that value. Over several columns the value is the tuple of the
 * columns' values ({@link TupleKey}), and a statement routes by it when its WHERE clause pins every column to one value.
 * Its entries live on the backends, in {@code lutra_sec_<name> (v, p)} ({@code (v1, v2, ..., p)} over several columns) on
 * each value's <i>home</i> partition (the table's partitions, by the same hash as {@code hash(col)} placement), so that every
 * router reads the same entries and correctness depends on no router's memory. The protocol that keeps them right is
 * {@code org.lutra.placement.SecondaryEntries}'.
 *
 * @param columns  the indexed columns, in the order of the entries' value columns (one, or several: a tuple)
 * @param building true while CREATE fills the entries of existing rows: writers keep its entries,
 *                 readers do not route by it yet
 */
public record SecondaryLookup(String name, String table, List<String> columns, boolean unique, boolean building) {
    private static final String COLUMN = "`?(\\w+)`?";
    private static final Pattern TEXT = Pattern.compile(
            "(?is)\\s*CREATE\\s+SECONDARY\\s+LOOKUP\\s+`?(\\w+)`?\\s+ON\\s+`?(\\w+)`?\\s*\\(\\s*(" + COLUMN + "(?:\\s*,\\s*" + COLUMN
                    + ")*)\\s*\\)\\s*(UNIQUE\\b)?\\s*(BUILDING\\b)?\\s*;?\\s*");
    private static final Pattern ONE_COLUMN = Pattern.compile(COLUMN);
    /** Names stay short enough for {@code lutra_sec_<name>} to be a table name (64 characters). */
    public static final int MAX_NAME = 54;
    /** Columns of one lookup at most (the entries' primary key holds them all, and InnoDB's holds 16 columns). */
    public static final int MAX_COLUMNS = 8;

    public SecondaryLookup {
        if (columns.isEmpty()) throw new IllegalArgumentException("a secondary lookup has a column");
        columns = List.copyOf(columns);
    }

    /** A lookup over one column. */
    public SecondaryLookup(String name, String table, String column, boolean unique, boolean building) {
        this(name, table, List.of(column), unique, building);
    }

    /** Whether {@code text} is a CREATE SECONDARY LOOKUP statement (as the stored catalog and the schema file hold them). */
    public static boolean isDefinition(String text) {
        return text.stripLeading().regionMatches(true, 0, "CREATE SECONDARY", 0, 16);
    }

    /** The definition in {@code text}, or null if it is not one. */
    public static SecondaryLookup parse(String text) {
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) return null;
        var columns = new ArrayList<String>();
        Matcher c = ONE_COLUMN.matcher(m.group(3));
        while (c.find()) columns.add(c.group(1));
        return new SecondaryLookup(m.group(1).toLowerCase(Locale.ROOT), m.group(2), columns, m.group(6) != null, m.group(7) != null);
    }

    /** The definition as the stored catalog keeps it (one column: as before lookups had several). */
    public String createText() {
        var cols = new ArrayList<String>();
        for (String c : columns) cols.add("`" + c + "`");
        return "CREATE SECONDARY LOOKUP `" + name + "` ON `" + table + "` (" + String.join(", ", cols) + ")" + (unique ? " UNIQUE" : "") + (building ? " BUILDING" : "");
    }

    /** The columns as messages name them: {@code tax_id}, {@code (page_namespace, page_title)}. */
    public String columnList() {
        return columns.size() == 1 ? columns.getFirst() : "(" + String.join(", ", columns) + ")";
    }

    /** Whether {@code column} is one of the lookup's (case-insensitively). */
    public boolean indexes(String column) {
        for (String c : columns) if (c.equalsIgnoreCase(column)) return true;
        return false;
    }

    /** The stored catalog's row name: never a table's (table names beginning lutra_ are refused). */
    public String catalogKey() {
        return "lutra_sec:" + name;
    }

    /** The backend table of its entries, on every partition of the table. */
    public String indexTable() {
        return "lutra_sec_" + name;
    }

    /** The entries' value columns: {@code v} for one column (the entries' tables of every lookup made before there were several), else {@code v1, v2, ...}. */
    public List<String> valueColumns() {
        if (columns.size() == 1) return List.of("v");
        var out = new ArrayList<String>();
        for (int i = 1; i <= columns.size(); i++) out.add("v" + i);
        return out;
    }

    /** {@link #valueColumns} as a select or insert list: {@code v}, {@code v1, v2}. */
    public String valueList() {
        return String.join(", ", valueColumns());
    }

    /** A predicate matching the entries of {@code count} values, their parts bound in order ({@link #parts}): {@code v = ?}, {@code v IN (?, ?)}, {@code (v1 = ? AND v2 = ?) OR ...}. */
    public String entriesMatch(int count) {
        if (columns.size() == 1) return count == 1 ? "v = ?" : "v IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
        var one = new ArrayList<String>();
        for (String v : valueColumns()) one.add(v + " = ?");
        String tuple = String.join(" AND ", one);
        return count == 1 ? tuple : "(" + String.join(") OR (", Collections.nCopies(count, tuple)) + ")";
    }

    /** A predicate on the table's rows matching one value, its parts bound in order: {@code `col` = ?}, {@code `c1` = ? AND `c2` = ?}. */
    public String rowsMatch() {
        var one = new ArrayList<String>();
        for (String c : columns) one.add("`" + c.replace("`", "``") + "` = ?");
        return String.join(" AND ", one);
    }

    /** The parts of a value as they are bound, one per column: the key itself for one column, a tuple's parts otherwise. */
    public static List<Object> parts(Object key) {
        return key instanceof TupleKey t ? t.parts() : List.of(key);
    }

    public SecondaryLookup built() {
        return new SecondaryLookup(name, table, columns, unique, false);
    }

    public boolean readable() {
        return !building;
    }

    /**
     * The indexed value of a row or statement whose columns hold {@code raw} (one value per column, in order) as the
     * entries are found by it ({@link ColumnDef#key} of each: equal for values the columns hold equal, so they share one
     * home), or null: a NULL part (no entry: {@code =} never matches it), or a part no entry can name.
     */
    public Object key(TableDef t, Object[] raw) {
        return keys(t, new Object[][] {raw})[0];
    }

    /** {@link #key} of each value, the parts a backend must weigh in one round trip per column. */
    public Object[] keys(TableDef t, Object[][] raw) {
        var out = new Object[raw.length];
        if (columns.size() == 1) {
            var values = new Object[raw.length];
            for (int i = 0; i < raw.length; i++) values[i] = raw[i][0];
            return t.column(columns.getFirst()).keys(values);
        }
        var parts = new Object[columns.size()][];
        for (int c = 0; c < columns.size(); c++) {
            var values = new Object[raw.length];
            for (int i = 0; i < raw.length; i++) values[i] = raw[i][c];
            parts[c] = t.column(columns.get(c)).keys(values);
        }
        for (int i = 0; i < raw.length; i++) {
            var tuple = new Object[columns.size()];
            boolean whole = true;
            for (int c = 0; c < tuple.length && whole; c++) whole = (tuple[c] = parts[c][i]) != null;
            out[i] = whole ? new TupleKey(tuple) : null;
        }
        return out;
    }

    /** The partition whose {@link #indexTable} holds {@code key}'s entries. */
    public int home(TableDef t, Object key) {
        int[] partitions = t.partitioning().partitions();
        return partitions[KeyValues.bucket(key, partitions.length)];
    }
}
