package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.ForeignKeys;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.TableDef;
import org.lutra.catalog.UniqueKeys;
import org.lutra.exec.Plan;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An UPDATE that sets the routing column: the rows it matches belong where their new value places them, so each is
 * moved there — read with a lock, deleted where it is, inserted where the INSERT path places it (lookup entries, home
 * rows, SAME AS owners, replicated keys, secondary lookups and foreign keys as for any INSERT) — in the statement's
 * transaction ({@link Plan.RowsMoved}). This is what an ORM writing a child in two steps needs: Hibernate inserts
 * {@code pets (name, type_id)} without its {@code owner_id}, then {@code UPDATE pets SET owner_id = ? WHERE id = ?}.
 *
 * <p>The new row is the old one with the assigned columns replaced, which MariaDB's UPDATE also writes, when:
 * <ul>
 *   <li>every assigned value is a literal or a parameter (a value computed from the row, {@code id = id + 1}, would make
 *       the outcome depend on the order rows are updated in: one MariaDB may fail with 1062 where delete-all-then-insert
 *       does not);</li>
 *   <li>the table has a PRIMARY KEY (each row is deleted by it and its old routing value, exactly that row), no
 *       generated columns, no column {@code ON UPDATE CURRENT_TIMESTAMP}, no system versioning, no UNIQUE secondary
 *       lookup;</li>
 *   <li>every foreign key that references the table is one the router enforces (child and parent rows may be on
 *       different partitions: the children stay and still find the row) and references no assigned column; a key
 *       whose children live with the row on its partition (the shard enforces it) would be left without its parent:
 *       refused, naming it;</li>
 *   <li>no subquery, ORDER BY, LIMIT or IGNORE.</li>
 * </ul>
 * A row whose routing column keeps its value exactly (the value it holds, as the column stores the new one) is not
 * moved: its other assigned columns are updated in place, by its key. The count is the rows matched, as the router's
 * backends count an UPDATE (found rows).
 */
final class RoutingUpdate {
    private static final Pattern ON_UPDATE_NOW = Pattern.compile("\\bON\\s+UPDATE\\s+(CURRENT_TIMESTAMP|NOW|LOCALTIME)");
    private static final Pattern GENERATED = Pattern.compile("\\bGENERATED\\s+ALWAYS\\b|\\bAS\\s*\\(");

    private RoutingUpdate() {}

    static Plan plan(Catalog catalog, TableDef table, Update update, Plan.Statements statements) throws PlanException {
        String routing = table.partitioning().column();
        String sql = update.toString();
        if (update.isModifierIgnore()) throw refused(table, routing, "UPDATE IGNORE");
        if (update.getOrderByElements() != null || update.getLimit() != null) throw refused(table, routing, "ORDER BY or LIMIT");
        if (Guards.selectWords(sql) > 0) throw refused(table, routing, "a subquery");
        Guards.requireNoSessionState(sql);
        var assigned = new ArrayList<String>();
        var values = new ArrayList<String>();
        for (UpdateSet set : update.getUpdateSets()) {
            if (set.getColumns().size() != set.getValues().size()) throw refused(table, routing, "a row assignment (" + set + ")");
            for (int i = 0; i < set.getColumns().size(); i++) {
                Column c = set.getColumns().get(i);
                String name = KeyFinder.unquote(c.getColumnName());
                var def = table.column(name);
                if (def == null) throw new PlanException("42S22", 1054, "Unknown column '" + name + "' in 'SET'");
                Expression v = (Expression) set.getValues().get(i);
                if (KeyFinder.valueRef(v) == null) {
                    throw refused(table, routing, "a computed value for " + name + " (" + v + "); give literals or parameters");
                }
                if (assigned.stream().anyMatch(a -> a.equalsIgnoreCase(def.name()))) throw refused(table, routing, "a column assigned twice (" + name + ")");
                assigned.add(def.name());
                values.add(v.toString());
            }
        }
        requireMovable(catalog, table, routing, assigned);
        List<String> primary = primaryKey(table, routing);
        var columns = new ArrayList<>(assigned);
        for (var c : table.columns()) {
            if (columns.stream().noneMatch(a -> a.equalsIgnoreCase(c.name()))) columns.add(c.name());
        }
        var items = new ArrayList<>(values);
        for (int i = assigned.size(); i < columns.size(); i++) items.add(quote(columns.get(i)));
        items.add(quote(routing));
        for (String p : primary) items.add(quote(p));
        String where = update.getWhere() == null ? "" : " WHERE " + update.getWhere();
        String readText = "SELECT " + String.join(", ", items) + " FROM " + update.getTable() + where + " FOR UPDATE";
        if (ParamCounter.count(readText) != ParamCounter.count(sql)) throw refused(table, routing, "parameters outside SET and WHERE");
        if (!(statements.plan(readText) instanceof Plan.Query read)) throw refused(table, routing, "a WHERE the router does not read rows with");
        String byKey = String.join(" AND ", primary.stream().map(p -> quote(p) + " = ?").toList());
        Plan keyed = statements.plan("DELETE FROM " + quote(table.name()) + " WHERE " + quote(routing) + " = ? AND " + byKey);
        Plan nullKey = statements.plan("DELETE FROM " + quote(table.name()) + " WHERE " + quote(routing) + " IS NULL AND " + byKey);
        String head = "INSERT INTO " + quote(table.name()) + " (" + String.join(", ", columns.stream().map(RoutingUpdate::quote).toList()) + ") VALUES ";
        String row = "(" + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
        Plan.Batches inserts = rows -> {
            if (!(statements.plan(head + String.join(", ", Collections.nCopies(rows, row))) instanceof Plan.Insert one)) {
                throw refused(table, routing, "rows the router could not insert");
            }
            return one;
        };
        inserts.rows(1); // refused when planned, not when run
        boolean checksOff = !catalog.referencing(table.name()).isEmpty();
        int routingAt = 0;
        while (!columns.get(routingAt).equalsIgnoreCase(routing)) routingAt++;
        return new Plan.RowsMoved(table, read, columns.size(), routingAt, keyed, nullKey, inserts, checksOff, staying(table, routing, assigned, byKey, statements),
                read.paramCount());
    }

    /**
     * The UPDATE, by key, of a row whose routing column keeps its value (an ORM writes every column of an entity it saves,
     * the one it is placed by too): the other assigned columns in place, where one MariaDB's UPDATE writes them.
     */
    private static Plan.RowsStaying staying(TableDef table, String routing, List<String> assigned, String byKey, Plan.Statements statements)
            throws PlanException {
        var others = new ArrayList<String>();
        var positions = new ArrayList<Integer>();
        for (int i = 0; i < assigned.size(); i++) {
            if (assigned.get(i).equalsIgnoreCase(routing)) continue;
            others.add(quote(assigned.get(i)) + " = ?");
            positions.add(i);
        }
        if (others.isEmpty()) return null;
        String head = "UPDATE " + quote(table.name()) + " SET " + String.join(", ", others) + " WHERE ";
        return new Plan.RowsStaying(statements.plan(head + quote(routing) + " = ? AND " + byKey), statements.plan(head + quote(routing) + " IS NULL AND " + byKey),
                positions.stream().mapToInt(Integer::intValue).toArray());
    }

    private static void requireMovable(Catalog catalog, TableDef table, String routing, List<String> assigned) throws PlanException {
        String ddl = table.ddl() == null ? "" : table.ddl().toUpperCase(Locale.ROOT);
        if (GENERATED.matcher(ddl).find()) throw refused(table, routing, "a table with a generated column");
        if (ON_UPDATE_NOW.matcher(ddl).find()) throw refused(table, routing, "a table with a column ON UPDATE CURRENT_TIMESTAMP");
        if (ddl.contains("WITH SYSTEM VERSIONING")) throw refused(table, routing, "a system-versioned table");
        for (var s : catalog.secondariesOf(table.name())) {
            if (s.unique()) throw refused(table, routing, "a table with the UNIQUE secondary lookup " + s.name());
        }
        Set<String> changed = new LinkedHashSet<>();
        for (String a : assigned) changed.add(a.toLowerCase(Locale.ROOT));
        for (var fk : catalog.referencing(table.name())) {
            TableDef child = catalog.table(fk.child());
            if (child == null || !ForeignKeys.isCrossing(child, table, fk)) {
                throw refused(table, routing, "a table whose rows the rows of " + fk.child() + " reference through the foreign key " + fk.name()
                        + " on their own partition (they would stay behind without their parent row)");
            }
            for (String r : fk.referenced()) {
                if (changed.contains(r.toLowerCase(Locale.ROOT))) {
                    throw refused(table, routing, "an assignment of " + r + ", which the foreign key " + fk.name() + " of " + fk.child() + " references");
                }
            }
        }
    }

    private static List<String> primaryKey(TableDef table, String routing) throws PlanException {
        try {
            for (var key : UniqueKeys.of(table)) {
                if (!key.primary()) continue;
                var columns = new ArrayList<String>();
                for (String part : key.parts()) {
                    if (table.column(part.strip()) == null) throw refused(table, routing, "a PRIMARY KEY over a prefix (" + part + ")");
                    columns.add(table.column(part.strip()).name());
                }
                return columns;
            }
        } catch (SchemaException e) {
            throw refused(table, routing, e.getMessage());
        }
        throw refused(table, routing, "a table without a PRIMARY KEY (the router deletes each moved row by it)");
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    private static PlanException refused(TableDef table, String routing, String what) {
        return PlanException.unsupported("UPDATE of the routing column " + table.name() + "." + routing + " (which moves the rows to where the new"
                + " value places them) with " + what);
    }
}
