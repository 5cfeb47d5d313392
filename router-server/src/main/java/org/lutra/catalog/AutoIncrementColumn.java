package org.lutra.catalog;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;

import java.util.Locale;

/**
 * Which column of a table is AUTO_INCREMENT, read from its CREATE TABLE text ({@link TableDef#ddl}).
 * Read when asked, not when the catalog is built, so a table created while the router runs is
 * found the same way as one from the schema file.
 */
public final class AutoIncrementColumn {
    private AutoIncrementColumn() {}

    /** The AUTO_INCREMENT column's name as the catalog spells it, or null if the table has none. */
    public static String of(TableDef table) {
        String ddl = table.ddl();
        if (ddl == null || !ddl.toUpperCase(Locale.ROOT).contains("AUTO_INCREMENT")) return null;
        CreateTable create;
        try {
            create = (CreateTable) CCJSqlParserUtil.parse(ddl);
        } catch (JSQLParserException | ClassCastException e) {
            return null; // the schema parser read this text already; a text it cannot read has no column to fill
        }
        for (ColumnDefinition c : CreateTableColumns.columnList(create)) {
            if (c.getColumnSpecs() == null) continue;
            for (String spec : c.getColumnSpecs()) {
                if (spec.equalsIgnoreCase("AUTO_INCREMENT")) {
                    ColumnDef known = table.column(c.getColumnName().replace("`", "").replace("\"", ""));
                    return known == null ? null : known.name();
                }
            }
        }
        return null;
    }
}
