package org.lutra.catalog;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.ReferentialAction;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.table.ForeignKeyIndex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The foreign keys of a catalog's tables, read from their definitions (table-level {@code [CONSTRAINT name] FOREIGN KEY
 * (...) REFERENCES t (...)} and a column's own {@code REFERENCES t (c)}), and for each whether it is crossing: whether a
 * child row and its parent row may be on different partitions. One is not crossing when the placement keeps them together:
 * <ul>
 *   <li>the parent is REPLICATED on every partition the child is on (each child row finds the parent's copy next to it);
 *   <li>the key is the child's routing column referencing the parent's, and both tables place that value alike: the same
 *       lookup group ({@code SAME AS}), or hash or range placement over the same partitions with the same bounds;
 *   <li>both tables live on the same single partition.
 * </ul>
 */
public final class ForeignKeys {
    private static final Pattern INLINE = Pattern.compile(
            "(?is)\\bREFERENCES\\s+(?:`?\\w+`?\\s*\\.\\s*)?`?(\\w+)`?\\s*\\(([^)]*)\\)(.*)");
    private static final Pattern ON = Pattern.compile("(?is)\\bON\\s+(DELETE|UPDATE)\\s+(RESTRICT|CASCADE|SET\\s+NULL|NO\\s+ACTION|SET\\s+DEFAULT)");

    private ForeignKeys() {}

    /** Every foreign key of {@code catalog}'s tables, in schema order, with {@code crossing} decided. */
    static List<ForeignKey> of(Catalog catalog) {
        var out = new ArrayList<ForeignKey>();
        for (TableDef t : catalog.tablesInSchemaOrder()) {
            for (ForeignKey fk : declared(t)) {
                TableDef parent = catalog.table(fk.parent());
                out.add(fk.crossing(parent == null || crossing(t, parent, fk)));
            }
        }
        return List.copyOf(out);
    }

    /** The foreign keys {@code table}'s definition declares (crossing not yet decided). */
    static List<ForeignKey> declared(TableDef table) {
        if (table.ddl() == null || !table.ddl().regionMatches(true, 0, "CREATE TABLE", 0, 12)) return List.of();
        CreateTable create;
        try {
            create = (CreateTable) CCJSqlParserUtil.parse(table.ddl());
        } catch (JSQLParserException | ClassCastException e) {
            return List.of(); // the catalog read it before; a definition it cannot read again declares nothing it knows of
        }
        var out = new ArrayList<ForeignKey>();
        int unnamed = 0;
        for (ColumnDefinition c : CreateTableColumns.columnList(create)) {
            if (c.getColumnSpecs() == null) continue;
            var inline = INLINE.matcher(String.join(" ", c.getColumnSpecs()));
            if (!inline.find()) continue;
            var referenced = Arrays.stream(inline.group(2).split(",")).map(s -> SchemaParser.unquote(s.strip())).toList();
            out.add(new ForeignKey(table.name() + "_ibfk_" + ++unnamed, table.name(), List.of(SchemaParser.unquote(c.getColumnName())),
                    inline.group(1), referenced, action(inline.group(3), "DELETE"), action(inline.group(3), "UPDATE"), true));
        }
        if (create.getIndexes() != null) {
            for (var index : create.getIndexes()) {
                if (!(index instanceof ForeignKeyIndex f)) continue;
                String name = f.getName() != null && !f.getName().isBlank() ? SchemaParser.unquote(f.getName()) : table.name() + "_ibfk_" + ++unnamed;
                out.add(new ForeignKey(name, table.name(), f.getColumnsNames().stream().map(SchemaParser::unquote).toList(),
                        SchemaParser.unquote(f.getTable().getName()), f.getReferencedColumnNames().stream().map(SchemaParser::unquote).toList(),
                        action(f.getReferentialAction(ReferentialAction.Type.DELETE)), action(f.getReferentialAction(ReferentialAction.Type.UPDATE)), true));
            }
        }
        return out;
    }

    private static ForeignKey.Action action(ReferentialAction a) {
        return a == null ? ForeignKey.Action.RESTRICT : ForeignKey.Action.valueOf(a.getAction().name());
    }

    private static ForeignKey.Action action(String tail, String event) {
        var m = ON.matcher(tail);
        while (m.find()) {
            if (m.group(1).equalsIgnoreCase(event)) return ForeignKey.Action.of(m.group(2));
        }
        return ForeignKey.Action.RESTRICT;
    }

    /** Whether a row of {@code child} and the {@code parent} row it references through {@code fk} may be on different partitions. */
    public static boolean isCrossing(TableDef child, TableDef parent, ForeignKey fk) {
        return crossing(child, parent, fk);
    }

    private static boolean crossing(TableDef child, TableDef parent, ForeignKey fk) {
        var c = child.partitioning();
        var p = parent.partitioning();
        if (p instanceof Partitioning.Replicated && contains(p.partitions(), c.partitions())) return false;
        if (c.partitions().length == 1 && p.partitions().length == 1 && c.partitions()[0] == p.partitions()[0]) return false;
        if (c instanceof Partitioning.Replicated || p instanceof Partitioning.Replicated) return true;
        boolean byRoutingColumns = fk.columns().size() == 1 && fk.columns().getFirst().equalsIgnoreCase(c.column())
                && fk.referenced().getFirst().equalsIgnoreCase(p.column());
        if (!byRoutingColumns) return true;
        if (c instanceof Partitioning.LookedUp l && p instanceof Partitioning.LookedUp m) return !l.owner().equalsIgnoreCase(m.owner());
        ColumnDef cc = child.column(c.column());
        ColumnDef pc = parent.column(p.column());
        boolean sameKeys = cc.keyType() == pc.keyType() && (cc.collation() == null ? pc.collation() == null
                : pc.collation() != null && cc.collation().name().equals(pc.collation().name()));
        if (!sameKeys || !Arrays.equals(c.partitions(), p.partitions())) return true;
        if (c instanceof Partitioning.Hashed && p instanceof Partitioning.Hashed) return false;
        if (c instanceof Partitioning.Ranged r && p instanceof Partitioning.Ranged s) return !r.upperBounds().equals(s.upperBounds());
        return true;
    }

    /**
     * Whether the router does {@code fk}'s child-side check (the parent rows read in share mode, the shards' checks off): a
     * crossing key, or one whose parent is REPLICATED on several partitions while a child row may be written elsewhere than
     * on the parent's first partition. A shard's own check locks the parent row's copy on the child row's partition, but
     * every locking read of a REPLICATED table locks its first partition's copy: a parent row another transaction holds
     * {@code FOR UPDATE} there would not hold up the child, as InnoDB's check (a shared lock on the parent row) is held up
     * on one MariaDB. The router's check reads the parent where locking reads lock.
     */
    public static boolean childCheckedByRouter(Catalog catalog, ForeignKey fk) {
        if (fk.crossing()) return true;
        TableDef parent = catalog.table(fk.parent());
        TableDef child = catalog.table(fk.child());
        if (parent == null || child == null || !(parent.partitioning() instanceof Partitioning.Replicated p) || p.partitions().length < 2) return false;
        int first = p.partitions()[0];
        var c = child.partitioning();
        boolean writtenOnFirst = c instanceof Partitioning.Replicated ? contains(c.partitions(), new int[] {first})
                : Arrays.stream(c.partitions()).allMatch(x -> x == first);
        return !writtenOnFirst;
    }

    private static boolean contains(int[] all, int[] some) {
        for (int x : some) {
            if (Arrays.stream(all).noneMatch(y -> y == x)) return false;
        }
        return true;
    }

    /** Why the router cannot enforce {@code fk} (crossing) exactly, or null: it must reference a whole unique key of columns it can convert. */
    public static String unenforceable(Catalog catalog, ForeignKey fk) {
        TableDef parent = catalog.table(fk.parent());
        TableDef child = catalog.table(fk.child());
        if (parent == null || child == null) return "its table " + (parent == null ? fk.parent() : fk.child()) + " is not in the catalog";
        if (fk.columns().size() != fk.referenced().size()) return "its column lists differ in length";
        boolean unique = UniqueKeys.of(parent).stream().anyMatch(k -> k.parts().size() == fk.referenced().size()
                && fk.referenced().stream().allMatch(k::holds));
        if (!unique) return "it references " + fk.parent() + " (" + String.join(", ", fk.referenced()) + "), which is no PRIMARY KEY or UNIQUE key";
        if (fk.onDelete() == ForeignKey.Action.SET_DEFAULT || fk.onUpdate() == ForeignKey.Action.SET_DEFAULT) return "SET DEFAULT (InnoDB refuses it)";
        for (int i = 0; i < fk.columns().size(); i++) {
            ColumnDef c = child.column(fk.columns().get(i));
            ColumnDef r = parent.column(fk.referenced().get(i));
            if (c == null || r == null) return "it names a column its table does not have";
            if (c.type().kind() == ColumnType.Kind.OTHER) return "the router does not convert values of " + c.name() + " " + c.typeName();
        }
        return null;
    }

    /**
     * Whether a foreign key {@code table} declares names a table that partition {@code partition} does not hold (or no table
     * the catalog has): its CREATE TABLE runs there with the shard's checks off, which would refuse a missing parent table.
     */
    public static boolean parentMissingOn(Catalog catalog, TableDef table, int partition) {
        for (ForeignKey fk : declared(table)) {
            TableDef parent = fk.selfReferencing() ? table : catalog.table(fk.parent());
            if (parent == null || Arrays.stream(parent.partitioning().partitions()).noneMatch(p -> p == partition)) return true;
        }
        return false;
    }

    /** The parents {@code table}'s foreign keys name that the catalog does not have (none: each is there, or the table itself). */
    public static List<String> missingParents(Catalog catalog, TableDef table) {
        return declared(table).stream().filter(fk -> !fk.selfReferencing() && catalog.table(fk.parent()) == null).map(ForeignKey::parent).toList();
    }
}
