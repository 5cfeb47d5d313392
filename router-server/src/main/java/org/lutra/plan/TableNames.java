package org.lutra.plan;

import net.sf.jsqlparser.schema.Table;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.sql.PlanException;

/** How a statement's table names are read: the logical database's tables, as the catalog spells them. */
final class TableNames {
    private TableNames() {}

    /**
     * The table {@code t} names in {@code database}, its database qualifier stripped (partitions live in databases of
     * their own) and its name spelled as the catalog spells it; or, as a value, why it names none.
     */
    static Attempt<TableDef> resolved(Catalog catalog, String database, Table t) {
        if (t == null || t.getName() == null) { // the parser takes "DELETE FROM WHERE ...", which names no table
            return Attempt.notApplicable(new PlanException("42000", 1064, "You have an error in your SQL syntax: the statement names no table"));
        }
        String name = KeyFinder.unquote(t.getName());
        String schema = t.getSchemaName() == null ? null : KeyFinder.unquote(t.getSchemaName());
        if (schema != null && schema.matches("(?i)information_schema|performance_schema|mysql|sys")) {
            return Attempt.notApplicable(PlanException.unsupported("queries on " + schema + " through the router yet (partitions would answer about their own "
                    + "databases); SHOW TABLES, SHOW COLUMNS, DESCRIBE, SHOW INDEX and SHOW CREATE TABLE answer for the logical database"));
        }
        TableDef table = catalog.table(name);
        if (table == null || schema != null && !schema.equalsIgnoreCase(database)) {
            return Attempt.notApplicable(new PlanException("42S02", 1146, "Table '" + (schema == null ? database : schema) + "." + name + "' doesn't exist"));
        }
        t.setSchemaName(null);
        spellAsCatalog(t, table);
        return Attempt.planned(table);
    }

    /**
     * The backends may compare table names case-sensitively (lower_case_table_names=0): a table the
     * client names {@code ITEM} is sent as the catalog spells it, {@code item}, aliased {@code ITEM}
     * where it has no alias, so that {@code ITEM.col} still names it. (Single-table UPDATE, DELETE and
     * INSERT take no alias in MariaDB's grammar: there only the name changes.)
     */
    private static void spellAsCatalog(Table t, TableDef table) {
        if (KeyFinder.unquote(t.getName()).equals(table.name())) return;
        if (t.getAlias() == null) t.setAlias(new net.sf.jsqlparser.expression.Alias(t.getName(), false));
        t.setName("`" + table.name().replace("`", "``") + "`");
    }
}
