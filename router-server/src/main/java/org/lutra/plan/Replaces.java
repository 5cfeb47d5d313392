package org.lutra.plan;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.TableDef;
import org.lutra.catalog.UniqueKeys;
import org.lutra.sql.PlanException;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How a REPLACE into a table runs on its partitions exactly as one MariaDB runs it, or why it cannot.
 *
 * <p>REPLACE deletes every row equal to its new row on the PRIMARY KEY or a UNIQUE key, then inserts it. The
 * router sends each row to the partition it routes to, which holds every such row when each of those keys holds
 * the routing column whole (rows equal on it route alike), and every row of a replicated table.
 *
 * <p>The count: 1 per row inserted plus 1 per row deleted, except that MariaDB updates the conflicting row in
 * place when the conflict is on the table's last unique key (sql_insert.cc {@code write_record}), and a row
 * written unchanged then counts 1, not 2 — unless the table has a DELETE trigger, or is referenced by a foreign
 * key: then it deletes and inserts. Hash, range and replicated tables are on their partitions as on one MariaDB,
 * so REPLACE counts alike there. The partitions of lookup-placed tables carry the placement triggers
 * ({@code placement.PlacementRows}), so there:
 * <ul>
 *   <li>without unique keys REPLACE deletes nothing: sent as written;</li>
 *   <li>with a PRIMARY KEY and other unique keys, an unchanged row conflicts first on the primary key, which InnoDB
 *       checks first and which is not the last: deleted and inserted on one MariaDB too. Sent as written;</li>
 *   <li>with one unique key, every conflict is in place: sent as {@code INSERT ... ON DUPLICATE KEY UPDATE} of
 *       every column to {@code VALUES(col)} (the value the row would get, its default for a column left out),
 *       which writes the same row, and counts 1 inserted, 2 changed, 1 unchanged (the router's backend connections
 *       report found rows, as Connector/J's default), as one MariaDB's REPLACE does;</li>
 *   <li>other shapes are refused: long (hashed) unique keys, which MariaDB checks before the primary key;
 *       several unique keys without a primary key; and for the one-key form generated columns (not assignable),
 *       system versioning, columns ON UPDATE CURRENT_TIMESTAMP and foreign keys referencing the table (one MariaDB
 *       would delete).</li>
 * </ul>
 */
final class Replaces {
    private Replaces() {}

    /**
     * Null: send REPLACE as written; else the {@code ON DUPLICATE KEY UPDATE ...} clause to send the rows' INSERT with.
     *
     * @throws PlanException (a refusal) where the router could not run it as one MariaDB
     */
    static String duplicateUpdate(Catalog catalog, TableDef table) throws PlanException {
        for (var s : catalog.secondariesOf(table.name())) {
            if (s.unique()) {
                throw refused(table, "it has the UNIQUE secondary lookup " + s.name() + " (the row with the value it would delete may live on another partition)");
            }
        }
        if (table.partitioning() instanceof Partitioning.Replicated) return null;
        List<UniqueKeys.Key> keys;
        try {
            keys = UniqueKeys.of(table);
        } catch (SchemaException e) {
            throw refused(table, e.getMessage());
        }
        String routing = table.partitioning().column();
        for (var key : keys) {
            if (!key.holds(routing)) {
                throw refused(table, "its unique key (" + String.join(", ", key.parts()) + ") does not hold the routing column " + routing
                        + " whole, so a row REPLACE would delete may live on another partition than the new row");
            }
        }
        if (!(table.partitioning() instanceof Partitioning.LookedUp) || keys.isEmpty()) return null;
        String placed = "it is placed by lookup (its partitions' placement triggers make MariaDB delete and re-insert rows one MariaDB updates in place)";
        if (keys.stream().anyMatch(UniqueKeys.Key::hashed)) throw refused(table, placed + " and has a long unique key (USING HASH, or over TEXT or BLOB)");
        if (keys.size() > 1) {
            if (keys.stream().noneMatch(UniqueKeys.Key::primary)) throw refused(table, placed + " and has several unique keys but no PRIMARY KEY");
            return null;
        }
        String ddl = table.ddl().toUpperCase(Locale.ROOT);
        if (GENERATED.matcher(ddl).find()) throw refused(table, placed + " and has a generated column");
        if (ddl.contains("WITH SYSTEM VERSIONING")) throw refused(table, placed + " and is system-versioned");
        // MySQL documents that a column ON UPDATE CURRENT_TIMESTAMP also keeps REPLACE from updating in place; not reproduced
        if (ON_UPDATE_NOW.matcher(ddl).find()) throw refused(table, placed + " and has a column ON UPDATE CURRENT_TIMESTAMP");
        for (TableDef other : catalog.tablesInSchemaOrder()) {
            if (references(other, table)) throw refused(table, placed + " and " + other.name() + " has a foreign key referencing it");
        }
        var sets = new StringBuilder(" ON DUPLICATE KEY UPDATE ");
        for (int i = 0; i < table.columns().size(); i++) {
            String c = "`" + table.columns().get(i).name().replace("`", "``") + "`";
            sets.append(i > 0 ? ", " : "").append(c).append(" = VALUES(").append(c).append(')');
        }
        return sets.toString();
    }

    private static final Pattern ON_UPDATE_NOW = Pattern.compile("\\bON\\s+UPDATE\\s+(CURRENT_TIMESTAMP|NOW|LOCALTIME)");

    /** {@code AS (expr)} or {@code GENERATED ALWAYS} in a column definition (quoted text aside). */
    private static final Pattern GENERATED = Pattern.compile("\\bGENERATED\\s+ALWAYS\\b|\\bAS\\s*\\(");

    private static boolean references(TableDef other, TableDef table) {
        return Pattern.compile("(?is)\\bREFERENCES\\s+(`?\\w+`?\\s*\\.\\s*)?`?" + Pattern.quote(table.name()) + "`?\\s*\\(").matcher(other.ddl()).find();
    }

    private static PlanException refused(TableDef table, String why) {
        return PlanException.unsupported("REPLACE into " + table.name() + ": " + why + "; use INSERT ... ON DUPLICATE KEY UPDATE, or DELETE then INSERT");
    }
}
