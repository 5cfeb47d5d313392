package org.lutra.catalog;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import static org.lutra.catalog.SchemaParser.firstLine;
import static org.lutra.catalog.SchemaParser.unquote;

/** What a CREATE TABLE says about its columns: their list, types, key types and collations, its primary and unique keys. */
public final class CreateTableColumns {
    private static final Pattern COLLATE = Pattern.compile("collate\\s+`?(\\w+)`?");

    private CreateTableColumns() {}

    /**
     * The column list of {@code create}; a CREATE TABLE the parser read without one
     * ({@code CREATE TABLE t LIKE u}, {@code ... AS SELECT}, or text it took apart oddly, as
     * {@code CREATE TABLE SUM(k) (a INT)}) is a schema error, not a missing list further on.
     */
    public static List<ColumnDefinition> columnList(CreateTable create) {
        if (create.getColumnDefinitions() == null || create.getColumnDefinitions().isEmpty()) {
            throw new SchemaException("CREATE TABLE " + create.getTable() + ": Lutra needs the table's columns in parentheses after its name"
                    + " (CREATE TABLE ... LIKE and CREATE TABLE ... AS SELECT are not supported)");
        }
        return create.getColumnDefinitions();
    }

    /** The primary key's columns of a CREATE TABLE without placement clause, in key order; empty without one. */
    public static List<String> primaryKey(String createText) {
        CreateTable create;
        try {
            create = (CreateTable) CCJSqlParserUtil.parse(createText);
        } catch (JSQLParserException | ClassCastException e) {
            throw new SchemaException("CREATE TABLE: cannot parse: " + firstLine(e));
        }
        return primaryKey(create);
    }

    /** The primary key's columns of {@code create}, in key order; empty without one. */
    static List<String> primaryKey(CreateTable create) {
        for (ColumnDefinition c : columnList(create)) {
            if (c.getColumnSpecs() != null && String.join(" ", c.getColumnSpecs()).toUpperCase(Locale.ROOT).matches("(.*\\s)?PRIMARY\\s+KEY(\\s.*)?")) {
                return List.of(unquote(c.getColumnName()));
            }
        }
        if (create.getIndexes() != null) {
            for (var index : create.getIndexes()) {
                if (index.getType() != null && index.getType().toUpperCase(Locale.ROOT).contains("PRIMARY")) {
                    return index.getColumnsNames().stream().map(SchemaParser::unquote).toList();
                }
            }
        }
        return List.of();
    }

    /** The columns of {@code create} as the catalog keeps them: type, key type and collation, stored type. */
    static List<ColumnDef> of(CreateTable create) {
        String tableOptions = create.getTableOptionsStrings() == null ? "" : String.join(" ", create.getTableOptionsStrings()).toLowerCase(Locale.ROOT);
        boolean binaryTable = tableOptions.matches(".*collate\\s*=?\\s*\\w+_bin\\b.*");
        var out = new ArrayList<ColumnDef>();
        for (ColumnDefinition c : columnList(create)) {
            String type = c.getColDataType().getDataType().toUpperCase(Locale.ROOT).split("[\\s(]")[0]; // "VARCHAR (255)" -> VARCHAR
            String specs = c.getColumnSpecs() == null ? "" : String.join(" ", c.getColumnSpecs()).toLowerCase(Locale.ROOT);
            String typeName = c.getColDataType().toString();
            KeyType keyType = keyType(type, specs, binaryTable);
            KeyCollation collation = null;
            if (keyType == null && (type.equals("CHAR") || type.equals("VARCHAR"))) {
                // not declared binary: the column's equality is its collation's, declared or the table's default,
                // learned from a backend before any key is routed (maintain.Collations)
                var explicit = COLLATE.matcher(specs);
                keyType = KeyType.STRING;
                collation = new KeyCollation(explicit.find() ? explicit.group(1) : null);
            }
            out.add(new ColumnDef(unquote(c.getColumnName()), typeName, keyType, collation,
                    ColumnType.parse(typeName, specs + tableDefault(typeName, specs, tableOptions))));
        }
        return out;
    }

    private static final Pattern TABLE_COLLATION = Pattern.compile("collate\\s*=?\\s*(\\w+)");
    private static final Pattern TABLE_CHARSET = Pattern.compile("(?:character\\s+set|charset)\\s*=?\\s*(\\w+)");

    /** For a column that names no character set or collation, the table's (its options, lower case), as a column spec; else "". */
    private static String tableDefault(String typeName, String specs, String tableOptions) {
        if (specs.contains("collate") || specs.contains("character set") || typeName.toLowerCase(Locale.ROOT).contains("character set")) return "";
        var collation = TABLE_COLLATION.matcher(tableOptions);
        if (collation.find()) return " collate " + collation.group(1);
        var charset = TABLE_CHARSET.matcher(tableOptions);
        return charset.find() ? " character set " + charset.group(1) : "";
    }

    private static KeyType keyType(String type, String specs, boolean binaryTable) {
        return switch (type) {
            case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT" -> KeyType.LONG;
            case "BINARY", "VARBINARY" -> KeyType.STRING;
            case "CHAR", "VARCHAR" -> {
                boolean binary = specs.matches(".*collate\\s+\\w+_bin\\b.*") || specs.contains("character set binary")
                        || binaryTable && !specs.contains("collate");
                yield binary ? KeyType.STRING : null;
            }
            default -> null;
        };
    }

    /** Whether {@code column} alone is a PRIMARY KEY or UNIQUE key of {@code create}. */
    static boolean isUnique(CreateTable create, String column) {
        for (ColumnDefinition c : columnList(create)) {
            if (unquote(c.getColumnName()).equalsIgnoreCase(column) && c.getColumnSpecs() != null) {
                String specs = String.join(" ", c.getColumnSpecs()).toUpperCase(Locale.ROOT);
                if (specs.contains("PRIMARY KEY") || specs.matches("(.*\\s)?UNIQUE(\\s.*)?")) return true;
            }
        }
        if (create.getIndexes() != null) {
            for (var index : create.getIndexes()) {
                String type = index.getType() == null ? "" : index.getType().toUpperCase(Locale.ROOT);
                boolean unique = type.contains("PRIMARY") || type.contains("UNIQUE");
                if (unique && index.getColumnsNames().size() == 1 && unquote(index.getColumnsNames().getFirst()).equalsIgnoreCase(column)) {
                    return true;
                }
            }
        }
        return false;
    }
}
