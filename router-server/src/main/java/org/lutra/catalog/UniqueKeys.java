package org.lutra.catalog;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The PRIMARY KEY and UNIQUE keys of a table as its backends' CREATE TABLE defines them (the
 * catalog's text: the schema's, or SHOW CREATE TABLE after an ALTER through the router). A REPLACE
 * deletes the rows that equal its new row on any of them, so it can run on the new row's partition
 * alone only when each of them holds the routing column whole.
 */
public final class UniqueKeys {
    private UniqueKeys() {}

    /**
     * A PRIMARY KEY or UNIQUE key.
     *
     * @param parts   the key's parts as written, unquoted, in key order: a column name, or a prefix part with
     *                its length ({@code name (3)}), which is not the whole column
     * @param primary the PRIMARY KEY (also a column's {@code KEY} attribute)
     * @param hashed  MariaDB checks it itself before the engine writes the row: {@code USING HASH}, or over a TEXT
     *                or BLOB column (a long unique key)
     */
    public record Key(List<String> parts, boolean primary, boolean hashed) {
        /** Whether one part is {@code column} whole. */
        public boolean holds(String column) {
            return parts.stream().anyMatch(part -> part.strip().equalsIgnoreCase(column));
        }
    }

    /** The table's keys in the order written. */
    public static List<Key> of(TableDef table) {
        CreateTable create;
        try {
            create = (CreateTable) CCJSqlParserUtil.parse(table.ddl());
        } catch (JSQLParserException | ClassCastException e) {
            throw new SchemaException("cannot read the keys of " + table.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
        var keys = new ArrayList<Key>();
        for (ColumnDefinition c : CreateTableColumns.columnList(create)) {
            if (c.getColumnSpecs() == null) continue;
            // column attributes [UNIQUE [KEY]] [[PRIMARY] KEY]; quoted words (DEFAULT 'key', COMMENT) are not attributes
            for (String spec : c.getColumnSpecs()) {
                String word = spec.toUpperCase(Locale.ROOT);
                if (word.equals("UNIQUE") || word.equals("PRIMARY") || word.equals("KEY")) {
                    String name = SchemaParser.unquote(c.getColumnName());
                    keys.add(new Key(List.of(name), !word.equals("UNIQUE"), long_(table, List.of(name))));
                    break;
                }
            }
        }
        if (create.getIndexes() != null) {
            for (var index : create.getIndexes()) {
                String type = index.getType() == null ? "" : index.getType().toUpperCase(Locale.ROOT);
                if (type.contains("PRIMARY") || type.contains("UNIQUE")) {
                    var parts = index.getColumnsNames().stream().map(SchemaParser::unquote).toList();
                    boolean hashed = index.toString().toUpperCase(Locale.ROOT).contains("USING HASH") || long_(table, parts);
                    keys.add(new Key(parts, type.contains("PRIMARY"), hashed));
                }
            }
        }
        return keys;
    }

    /** Whether a part is over a TEXT or BLOB column (MariaDB makes such a unique key a long, hashed one). */
    private static boolean long_(TableDef table, List<String> parts) {
        for (String part : parts) {
            ColumnDef c = table.column(part.replaceAll("\\s*\\(.*", "").strip());
            String type = c == null || c.typeName() == null ? "" : c.typeName().toUpperCase(Locale.ROOT);
            if (type.contains("TEXT") || type.contains("BLOB")) return true;
        }
        return false;
    }
}
