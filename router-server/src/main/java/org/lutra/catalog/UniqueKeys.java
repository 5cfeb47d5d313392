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
 * alone only when each of them holds the routing column whole ({@link #withoutColumn}).
 */
public final class UniqueKeys {
    private UniqueKeys() {}

    /**
     * Each key's parts as written, unquoted, in key order: a column name, or a prefix part with its
     * length ({@code name (3)}), which is not the whole column.
     */
    public static List<List<String>> of(TableDef table) {
        CreateTable create;
        try {
            create = (CreateTable) CCJSqlParserUtil.parse(table.ddl());
        } catch (JSQLParserException | ClassCastException e) {
            throw new SchemaException("cannot read the keys of " + table.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
        var keys = new ArrayList<List<String>>();
        for (ColumnDefinition c : SchemaParser.columnList(create)) {
            if (c.getColumnSpecs() == null) continue;
            // column attributes [UNIQUE [KEY]] [[PRIMARY] KEY]; quoted words (DEFAULT 'key', COMMENT) are not attributes
            for (String spec : c.getColumnSpecs()) {
                String word = spec.toUpperCase(Locale.ROOT);
                if (word.equals("UNIQUE") || word.equals("PRIMARY") || word.equals("KEY")) {
                    keys.add(List.of(SchemaParser.unquote(c.getColumnName())));
                    break;
                }
            }
        }
        if (create.getIndexes() != null) {
            for (var index : create.getIndexes()) {
                String type = index.getType() == null ? "" : index.getType().toUpperCase(Locale.ROOT);
                if (type.contains("PRIMARY") || type.contains("UNIQUE")) {
                    keys.add(index.getColumnsNames().stream().map(SchemaParser::unquote).toList());
                }
            }
        }
        return keys;
    }

    /** The first key of {@code table} that does not hold {@code column} whole, or null when every key does. */
    public static List<String> withoutColumn(TableDef table, String column) {
        for (List<String> key : of(table)) {
            if (key.stream().noneMatch(part -> part.strip().equalsIgnoreCase(column))) return key;
        }
        return null;
    }
}
