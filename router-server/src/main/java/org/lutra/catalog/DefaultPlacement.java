package org.lutra.catalog;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a {@code CREATE TABLE} without a placement clause (as ORMs, migration tools and benchmarks
 * write it) puts its rows: the router config's {@code catalog.default_placement}.
 *
 * <ul>
 *   <li>{@code hash} (the default) reads the schema (docs/ddl.md, "The default placement"), first rule that applies:
 *     <ol>
 *       <li>a foreign key to a table placed by a key, held by every unique key of the table: the parent's placement
 *           through it ({@link ForeignKeyPlacement}), so a child's rows and the joins along the key stay on the parent's partition;
 *       <li>the primary key: {@code PARTITION BY hash(first primary-key column) ON (every partition)};
 *       <li>no primary key: hash on the first column of its first UNIQUE key that is NOT NULL, can route and
 *           every UNIQUE key holds (duplicates of each key then meet on one partition, whose MariaDB refuses
 *           them; refused if there is none); without unique keys, on the table's first NOT NULL column the
 *           router can route. A nullable column is not taken: its NULL rows have no key to route by;
 *       <li>else refused: no column says where a row goes;
 *     </ol>
 *   <li>{@code replicated}: {@code REPLICATED} on every partition (small reference data);
 *   <li>{@code refuse}: every CREATE TABLE must say where its rows go.
 * </ul>
 */
public enum DefaultPlacement {
    HASH, REPLICATED, REFUSE;

    /** The placement clause the rule gives a table, and why (the DDL's note says it). */
    public record Choice(String clause, String reason) {}

    public static DefaultPlacement of(String configured) {
        if (configured == null || configured.isBlank()) return HASH;
        try {
            return valueOf(configured.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("config: catalog.default_placement '" + configured + "' must be hash, replicated or refuse");
        }
    }

    /** The placement clause this rule gives {@code createText} (a CREATE TABLE without one) over {@code partitions}, no table known. */
    public String clauseFor(String createText, List<String> partitions) {
        var ps = new ArrayList<Partition>();
        for (String p : partitions) ps.add(new Partition(ps.size(), p));
        return choose(createText, new Catalog(ps, new java.util.LinkedHashMap<>(), List.of())).clause();
    }

    /** The placement this rule gives {@code createText} (a CREATE TABLE without a placement clause) among {@code catalog}'s tables. */
    public Choice choose(String createText, Catalog catalog) {
        String all = " ON (" + String.join(", ", catalog.partitions().stream().map(Partition::name).toList()) + ")";
        return switch (this) {
            case REPLICATED -> new Choice("REPLICATED" + all, "catalog.default_placement is 'replicated'");
            case REFUSE -> throw new SchemaException("CREATE TABLE needs a placement clause at its end (catalog.default_placement is 'refuse'):"
                    + " PARTITION BY lookup|hash|range(col) ON (...), PARTITION BY lookup(col) SAME AS t, or REPLICATED");
            case HASH -> byKeys(parse(createText), all, catalog);
        };
    }

    private static Choice byKeys(CreateTable create, String all, Catalog catalog) {
        List<ColumnDef> columns = CreateTableColumns.of(create);
        var keys = UniqueKeys.of(new TableDef(SchemaParser.unquote(create.getTable().getName()), columns, null, create.toString()));
        var foreign = ForeignKeyPlacement.of(create, columns, keys, catalog);
        Choice chosen = foreign.choice() != null ? foreign.choice() : byOwnKeys(create, columns, keys, all);
        if (foreign.mayCross().isEmpty()) return chosen;
        return new Choice(chosen.clause(), chosen.reason() + "; its foreign key" + (foreign.mayCross().size() > 1 ? "s " : " ")
                + String.join(", ", foreign.mayCross()) + " may reference rows on other partitions");
    }

    private static Choice byOwnKeys(CreateTable create, List<ColumnDef> columns, List<UniqueKeys.Key> keys, String all) {
        List<String> primary = CreateTableColumns.primaryKey(create);
        if (!primary.isEmpty()) {
            return new Choice("PARTITION BY hash(`" + primary.getFirst() + "`)" + all, "its primary key's first column");
        }
        if (!keys.isEmpty()) {
            for (String part : keys.getFirst().parts()) {
                String column = part.strip();
                if (routableNotNull(create, columns, column) && keys.stream().allMatch(k -> k.holds(column))) {
                    return new Choice("PARTITION BY hash(`" + column + "`)" + all, "no primary key; a NOT NULL column every unique key holds");
                }
            }
            throw new SchemaException("CREATE TABLE without a placement clause and without a primary key (catalog.default_placement: hash) is"
                    + " placed by hash on a NOT NULL integer or string column that every unique key holds, and this table has none: add a"
                    + " placement clause (PARTITION BY hash(col) ON (...), REPLICATED, ...)");
        }
        for (ColumnDef c : columns) {
            if (routableNotNull(create, columns, c.name())) {
                return new Choice("PARTITION BY hash(`" + c.name() + "`)" + all, "no primary key; its first NOT NULL column the router can route");
            }
        }
        throw new SchemaException("CREATE TABLE without a placement clause (catalog.default_placement: hash) is placed through a foreign key"
                + " to a placed table, by hash on its first primary-key column, or without a primary key by hash on a NOT NULL integer"
                + " or string column, and this table has no primary key and none of these: add one, or a placement clause"
                + " (PARTITION BY hash(col) ON (...), REPLICATED, ...)");
    }

    private static boolean routableNotNull(CreateTable create, List<ColumnDef> columns, String column) {
        ColumnDef c = ForeignKeyPlacement.find(columns, column);
        if (c == null || c.keyType() == null) return false;
        for (ColumnDefinition d : CreateTableColumns.columnList(create)) {
            if (SchemaParser.unquote(d.getColumnName()).equalsIgnoreCase(column) && d.getColumnSpecs() != null) {
                return String.join(" ", d.getColumnSpecs()).toUpperCase(Locale.ROOT).matches("(.*\\s)?NOT\\s+NULL(\\s.*)?");
            }
        }
        return false;
    }

    private static CreateTable parse(String createText) {
        try {
            return (CreateTable) CCJSqlParserUtil.parse(createText);
        } catch (JSQLParserException | ClassCastException e) {
            throw new SchemaException("CREATE TABLE: cannot parse: " + SchemaParser.firstLine(e));
        }
    }
}
