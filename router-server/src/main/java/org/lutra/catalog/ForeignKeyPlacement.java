package org.lutra.catalog;

import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.table.ForeignKeyIndex;
import net.sf.jsqlparser.statement.create.table.Index;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The placement a foreign key gives a CREATE TABLE without a placement clause: the child's rows go
 * where the parent's rows with the same key are, so the key's joins and the shard's own check of the
 * constraint meet on one partition. A foreign key decides it when
 *
 * <ul>
 *   <li>it references a table of the catalog that is placed by a key (hash, range or lookup; a REPLICATED
 *       parent is on every partition, so any placement of the child finds it),
 *   <li>its referenced columns include that table's routing column, and
 *   <li>the child's column at that position routes alike: the same key type, and for a string key not
 *       declared binary, both columns declaring the same collation, and
 *   <li>every PRIMARY and UNIQUE key of the child holds that column whole: rows equal on a key then meet on
 *       one partition, whose MariaDB refuses the duplicate ({@code pets (id PRIMARY KEY, owner_id)} placed
 *       by owner_id would take a second pet 1 of another owner on another partition).
 * </ul>
 *
 * The first such key, in the order the statement writes its foreign keys, decides: the parent's
 * placement through the child's column ({@code hash} and {@code range} with the parent's partitions and
 * bounds, {@code lookup} as {@code SAME AS} the parent's owner).
 */
final class ForeignKeyPlacement {
    private static final Pattern RANGE_COLUMN = Pattern.compile("(?i)range\\s*\\(\\s*`?\\w+`?\\s*\\)");

    private ForeignKeyPlacement() {}

    /**
     * What the foreign keys of {@code create} say: the placement the first deciding key gives (null if none
     * does), and the other keys to tables placed by a key, which may reference rows on another partition.
     */
    record Decision(DefaultPlacement.Choice choice, List<String> mayCross) {}

    static Decision of(CreateTable create, List<ColumnDef> columns, List<UniqueKeys.Key> keys, Catalog catalog) {
        DefaultPlacement.Choice choice = null;
        var mayCross = new ArrayList<String>();
        for (var index : create.getIndexes() == null ? List.<Index>of() : create.getIndexes()) {
            if (!(index instanceof ForeignKeyIndex fk) || fk.getTable() == null) continue;
            TableDef parent = catalog.table(SchemaParser.unquote(fk.getTable().getName()));
            if (parent == null || parent.partitioning() instanceof Partitioning.Replicated) continue;
            List<String> referenced = fk.getReferencedColumnNames().stream().map(SchemaParser::unquote).toList();
            List<String> own = fk.getColumnsNames().stream().map(SchemaParser::unquote).toList();
            String named = "(" + String.join(", ", own) + ") references " + parent.name() + " (" + String.join(", ", referenced) + ")";
            int at = indexOf(referenced, parent.partitioning().column());
            ColumnDef child = at < 0 || at >= own.size() ? null : find(columns, own.get(at));
            if (choice != null || child == null || !routesAlike(child, parent.column(parent.partitioning().column()))) {
                mayCross.add(named);
                continue;
            }
            var without = keys.stream().filter(k -> !k.holds(child.name())).findFirst();
            if (without.isPresent()) {
                mayCross.add(named + " (not followed: its unique key (" + String.join(", ", without.get().parts()) + ") does not hold "
                        + child.name() + ", and rows equal on it on two partitions would not be refused)");
                continue;
            }
            choice = new DefaultPlacement.Choice(clause(parent, child.name(), catalog),
                    "its foreign key " + named + ", placed by " + parent.partitioning().column());
        }
        return new Decision(choice, mayCross);
    }

    private static String clause(TableDef parent, String column, Catalog catalog) {
        String col = "`" + column + "`";
        return switch (parent.partitioning()) {
            case Partitioning.Hashed h -> "PARTITION BY hash(" + col + ") ON (" + names(h.partitions(), catalog) + ")";
            case Partitioning.LookedUp l -> "PARTITION BY lookup(" + col + ") SAME AS `" + l.owner() + "`";
            case Partitioning.Ranged r -> {
                Matcher m = RANGE_COLUMN.matcher(parent.placement());
                if (!m.find()) throw new SchemaException("cannot read the range placement of " + parent.name() + ": " + parent.placement());
                yield parent.placement().substring(0, m.start()) + "range(" + col + ")" + parent.placement().substring(m.end());
            }
            case Partitioning.Replicated ignored -> throw new IllegalStateException("a REPLICATED parent decides nothing");
        };
    }

    /** Equal values of the two columns are one key to the router: they route to one partition. */
    private static boolean routesAlike(ColumnDef child, ColumnDef parent) {
        if (child.keyType() == null || child.keyType() != parent.keyType()) return false;
        if (child.collation() == null && parent.collation() == null) return true;
        if (child.collation() == null || parent.collation() == null) return false;
        String a = child.collation().declared();
        String b = parent.collation().declared();
        return a != null && a.equalsIgnoreCase(b);
    }

    private static String names(int[] partitions, Catalog catalog) {
        var out = new StringBuilder();
        for (int p : partitions) out.append(out.isEmpty() ? "" : ", ").append(catalog.partition(p).name());
        return out.toString();
    }

    private static int indexOf(List<String> names, String name) {
        for (int i = 0; i < names.size(); i++) if (names.get(i).equalsIgnoreCase(name)) return i;
        return -1;
    }

    static ColumnDef find(List<ColumnDef> columns, String name) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst().orElse(null);
    }
}
