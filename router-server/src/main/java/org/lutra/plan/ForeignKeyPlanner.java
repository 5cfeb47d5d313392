package org.lutra.plan;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.ForeignKey;
import org.lutra.catalog.ForeignKeys;
import org.lutra.catalog.CreateTableColumns;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.SqlTemplate;
import org.lutra.sql.ValueRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Decides what the router must do for the foreign keys an INSERT, UPDATE or DELETE meets (docs/foreign-keys.md). The
 * shards enforce the keys that are not crossing. A statement that meets a crossing key — it writes a child row of one,
 * or deletes or changes a parent row one references — runs with the shards' checks off, and the router does the part of
 * every key the statement meets, crossing or not (a shard with its checks off does none). What the router cannot do
 * exactly is refused here, naming the key.
 */
final class ForeignKeyPlanner {
    private ForeignKeyPlanner() {}

    /** The checks of an INSERT's (REPLACE's) rows, or null when the shards check all of them. */
    static Plan.InsertReferences insert(Catalog catalog, String database, TableDef table, Insert insert, List<ExpressionList<?>> rows,
                                        SqlTemplate template, boolean replace, Plan.Statements statements) throws PlanException {
        var own = catalog.foreignKeysOf(table.name());
        var referencing = catalog.referencing(table.name());
        boolean childCrossing = own.stream().anyMatch(fk -> ForeignKeys.childCheckedByRouter(catalog, fk));
        boolean parentCrossing = referencing.stream().anyMatch(ForeignKey::crossing);
        if (replace && !referencing.isEmpty() && (parentCrossing || childCrossing)) {
            // REPLACE deletes the rows its new rows meet on a unique key: which parent rows go, the router cannot tell before
            throw refused(referencing.getFirst(), "REPLACE into " + table.name() + ", whose rows it may delete");
        }
        if (insert.getDuplicateUpdateSets() != null) {
            for (UpdateSet set : insert.getDuplicateUpdateSets()) {
                for (Column c : set.getColumns()) {
                    String name = KeyFinder.unquote(c.getColumnName());
                    for (ForeignKey fk : own) {
                        if (childCrossing && fk.hasColumn(name)) throw refused(fk, "ON DUPLICATE KEY UPDATE of its column " + table.name() + "." + name);
                    }
                    for (ForeignKey fk : referencing) {
                        if ((fk.crossing() || childCrossing) && fk.referencesColumn(name)) {
                            throw refused(fk, "ON DUPLICATE KEY UPDATE of the column " + table.name() + "." + name + " it references");
                        }
                    }
                }
            }
        }
        if (!childCrossing) return null;
        var keys = new ArrayList<Plan.ChildValues>();
        for (ForeignKey fk : own) {
            requireEnforceable(catalog, fk);
            var perRow = new ArrayList<List<ValueRef>>();
            var referencedPerRow = fk.selfReferencing() ? new ArrayList<List<ValueRef>>() : null;
            for (int r = 0; r < rows.size(); r++) {
                perRow.add(rowValues(table, insert, rows, template, r, fk, fk.columns(), true));
                if (referencedPerRow != null) referencedPerRow.add(rowValues(table, insert, rows, template, r, fk, fk.referenced(), false));
            }
            keys.add(new Plan.ChildValues(fk, perRow, referencedPerRow));
        }
        var unique = org.lutra.catalog.UniqueKeys.of(table);
        // a row repeating the primary key is the partition's to report (1062) or update before any parent is looked for; under
        // REPLACE it replaces the row it repeats, whose new values need their parent all the same: no row is a duplicate then
        var primary = replace ? List.<String>of()
                : unique.stream().filter(org.lutra.catalog.UniqueKeys.Key::primary).findFirst().map(k -> k.parts()).orElse(List.of());
        var primaryPerRow = new ArrayList<List<ValueRef>>();
        for (int r = 0; r < rows.size(); r++) {
            primaryPerRow.add(primary.isEmpty() || primary.stream().anyMatch(part -> table.column(part) == null) ? null
                    : rowValues(table, insert, rows, template, r, own.getFirst(), primary, false));
        }
        return new Plan.InsertReferences(keys, insert.isModifierIgnore(), insert.getDuplicateUpdateSets() != null, primary, primaryPerRow,
                unique.stream().anyMatch(k -> !k.primary()), database, statements);
    }

    /**
     * Row {@code r}'s values of {@code columns}: a literal or parameter each, null for NULL (or a column left out, NULL by
     * default); {@code strict}: refuse what the router cannot check (a computed value, a default other than NULL), else
     * answer null for the whole row (a self-reference's own key, which then satisfies nothing).
     */
    private static List<ValueRef> rowValues(TableDef table, Insert insert, List<ExpressionList<?>> rows, SqlTemplate template, int r, ForeignKey fk,
                                            List<String> columns, boolean strict) throws PlanException {
        var values = new ArrayList<ValueRef>();
        for (String column : columns) {
            int at = columnIndex(table, insert, column);
            if (at < 0) {
                if (!strict) return null;
                if (!nullByDefault(table, column)) {
                    throw refused(fk, "an INSERT into " + table.name() + " that leaves its column " + column + " to a default other than NULL");
                }
                values.add(null);
                continue;
            }
            if (rows.get(r).size() <= at) throw new PlanException("21S01", 1136, "Column count doesn't match value count in INSERT INTO " + table.name());
            Object v = rows.get(r).get(at);
            if (!(v instanceof JdbcParameter) && KeyFinder.valueRef((Expression) v) == null) {
                if (!strict) return null;
                throw refused(fk, "a computed value for its column " + table.name() + "." + column + " (found " + v + "); give a literal or a parameter");
            }
            ValueRef ref = InsertIds.position(rows.get(r), at, template.firstParamOf(r));
            values.add(ref instanceof ValueRef.Literal(Object value) && value == null ? null : ref);
        }
        return values;
    }

    /** What an UPDATE asks of the crossing keys, or null when the shards enforce every key it meets. */
    static Plan.WriteReferences update(Catalog catalog, String database, TableDef table, Update update, Plan.Statements statements)
            throws PlanException {
        var assigned = new HashSet<String>();
        var newValues = new HashMap<String, ValueRef>();
        int setParams = 0;
        for (UpdateSet set : update.getUpdateSets()) {
            for (int i = 0; i < set.getColumns().size(); i++) {
                String name = KeyFinder.unquote(set.getColumns().get(i).getColumnName()).toLowerCase(Locale.ROOT);
                assigned.add(name);
                if (set.getValues().size() == set.getColumns().size()) {
                    ValueRef v = KeyFinder.valueRef((Expression) set.getValues().get(i));
                    if (v != null) newValues.put(name, v);
                }
            }
            setParams += ParamCounter.count(set.toString());
        }
        var children = catalog.foreignKeysOf(table.name()).stream().filter(fk -> fk.columns().stream().anyMatch(c -> assigned.contains(lower(c)))).toList();
        var parents = catalog.referencing(table.name()).stream().filter(fk -> fk.referenced().stream().anyMatch(c -> assigned.contains(lower(c)))).toList();
        // a crossing key on either side: the shards' checks off for the statement, and the router does every key's part
        if (children.stream().noneMatch(fk -> ForeignKeys.childCheckedByRouter(catalog, fk)) && parents.stream().noneMatch(ForeignKey::crossing)) {
            return null;
        }
        var childValues = new ArrayList<Plan.ChildValues>();
        {
            for (ForeignKey fk : children) {
                requireEnforceable(catalog, fk);
                var values = new ArrayList<ValueRef>();
                for (String column : fk.columns()) {
                    if (!assigned.contains(lower(column))) {
                        throw refused(fk, "an UPDATE that sets some of its columns and not " + table.name() + "." + column);
                    }
                    ValueRef v = newValues.get(lower(column));
                    if (v == null) throw refused(fk, "an UPDATE that sets " + table.name() + "." + column + " to a computed value; set a literal or a parameter");
                    values.add(v instanceof ValueRef.Literal(Object value) && value == null ? null : v);
                }
                childValues.add(new Plan.ChildValues(fk, List.of(values), null));
            }
        }
        for (ForeignKey fk : parents) requireEnforceable(catalog, fk);
        String orderLimit = orderLimit(update.getOrderByElements(), update.getLimit());
        return new Plan.WriteReferences(false, update.isModifierIgnore(), childValues, parents, Map.copyOf(newValues), Set.copyOf(assigned),
                update.getTable().toString(), update.getWhere() == null ? null : update.getWhere().toString(), orderLimit, setParams, true,
                database, statements);
    }

    /** What a DELETE asks of the crossing keys referencing its table, or null: none. */
    static Plan.WriteReferences delete(Catalog catalog, String database, TableDef table, Delete delete, Plan.Statements statements)
            throws PlanException {
        var parents = catalog.referencing(table.name());
        if (parents.stream().noneMatch(ForeignKey::crossing)) return null;
        for (ForeignKey fk : parents) requireEnforceable(catalog, fk);
        return new Plan.WriteReferences(true, delete.isModifierIgnore(), List.of(), parents, Map.of(), Set.of(), delete.getTable().toString(),
                delete.getWhere() == null ? null : delete.getWhere().toString(), orderLimit(delete.getOrderByElements(), delete.getLimit()), 0,
                true, database, statements);
    }

    private static String orderLimit(List<?> orderBy, Object limit) {
        String order = orderBy == null || orderBy.isEmpty() ? "" : " ORDER BY " + String.join(", ", orderBy.stream().map(Object::toString).toList());
        return order + (limit == null ? "" : " " + limit.toString().strip());
    }

    private static void requireEnforceable(Catalog catalog, ForeignKey fk) throws PlanException {
        String why = ForeignKeys.unenforceable(catalog, fk);
        if (why != null) throw PlanException.unsupported("writes that foreign key " + fk.name() + " of " + fk.child() + " checks across partitions: " + why);
    }

    static PlanException refused(ForeignKey fk, String what) {
        return PlanException.unsupported(what + ", where foreign key " + fk.name() + " (" + fk.child() + " (" + String.join(", ", fk.columns())
                + ") REFERENCES " + fk.parent() + ") is enforced by the router (its rows may be on different partitions: docs/foreign-keys.md)");
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    /** The position of {@code column} in the INSERT's rows, or -1 when it does not give it. */
    private static int columnIndex(TableDef table, Insert insert, String column) {
        var columns = insert.getColumns();
        if (columns == null || columns.isEmpty()) {
            for (int i = 0; i < table.columns().size(); i++) if (table.columns().get(i).name().equalsIgnoreCase(column)) return i;
            return -1;
        }
        for (int i = 0; i < columns.size(); i++) if (KeyFinder.unquote(columns.get(i).getColumnName()).equalsIgnoreCase(column)) return i;
        return -1;
    }

    /** Whether a row that leaves {@code column} out gets NULL: nullable, without a DEFAULT other than NULL. */
    private static boolean nullByDefault(TableDef table, String column) {
        net.sf.jsqlparser.statement.Statement parsed;
        try {
            parsed = CCJSqlParserUtil.parse(table.ddl());
        } catch (JSQLParserException unreadable) {
            return false; // a definition the parser cannot read: not known to give NULL
        }
        if (!(parsed instanceof CreateTable create)) return false;
        for (ColumnDefinition c : CreateTableColumns.columnList(create)) {
            if (!KeyFinder.unquote(c.getColumnName()).equalsIgnoreCase(column)) continue;
            String specs = c.getColumnSpecs() == null ? "" : " " + String.join(" ", c.getColumnSpecs()).toUpperCase(Locale.ROOT) + " ";
            if (specs.contains(" NOT NULL ") || specs.contains(" PRIMARY ") || specs.contains(" AUTO_INCREMENT ")) return false;
            return !specs.contains(" DEFAULT ") || specs.matches("(?s).*\\sDEFAULT\\s+NULL\\s.*");
        }
        return false;
    }
}
