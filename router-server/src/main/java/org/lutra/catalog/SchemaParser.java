package org.lutra.catalog;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.LookupTable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a schema file: MySQL CREATE TABLE statements, each ending in one of Lutra's placement clauses.
 *
 * <pre>
 * PARTITION BY lookup(col) ON (p0, p1, ...) [DEFAULT NEW ON hash(col)]
 * PARTITION BY lookup(col) SAME AS other_table
 * PARTITION BY hash(col) ON (p0, p1, ...)
 * PARTITION BY range(col) ON (p0 &lt; 100, p1 &lt; 200, p2)
 * REPLICATED [ON (p0, p1, ...)]
 * </pre>
 *
 * The clause is cut off and the rest of the statement is what runs on the backends, so any
 * MySQL column and table options work. Routing columns are integers or strings; a string column
 * not declared binary routes by its collation's equality (under a case-insensitive collation 'Ann'
 * and 'ANN' are the same key to MySQL, so they must be to the router), learned from a backend
 * before any key is routed ({@link KeyCollation}).
 *
 * <p>Its length is the placement clauses' grammar (lookup, hash, range, SAME AS, DEFAULT NEW, REPLICATED) and their checks
 * against the CREATE TABLE they end, which share the partition names and the tables read so far; what a CREATE TABLE says
 * about its columns and keys is {@link CreateTableColumns}'.
 */
public final class SchemaParser {
    private static final Pattern CLAUSE = Pattern.compile(
            "(?is)\\b(PARTITION\\s+BY\\s+(lookup|hash|range)\\s*\\(\\s*`?(\\w+)`?\\s*\\)\\s*(.*)|REPLICATED\\b\\s*(.*))$");
    private static final Pattern ON_LIST = Pattern.compile("(?is)ON\\s*\\(((?:[^)']|'[^']*')*)\\)\\s*(.*)");
    private static final Pattern DEFAULT_NEW = Pattern.compile("(?is)DEFAULT\\s+NEW\\s+ON\\s+hash\\s*\\(\\s*`?(\\w+)`?\\s*\\)\\s*");
    private static final Pattern SAME_AS = Pattern.compile("(?is)SAME\\s+AS\\s+`?(\\w+)`?\\s*");
    private static final Pattern RANGE_ITEM = Pattern.compile("(?s)\\s*`?(\\w+)`?\\s*(?:<\\s*(.+?))?\\s*");

    private final Map<String, Integer> partitionIds = new LinkedHashMap<>();
    private final Map<String, TableDef> tables = new LinkedHashMap<>();
    private final List<SecondaryLookup> secondaries = new ArrayList<>();
    /** The catalog this one replaces: its lookup tables and learned collations carry over (null at start). */
    private final Catalog previous;
    /** What an error message starts with: where the statement came from. */
    private String origin = "";

    private SchemaParser(List<String> partitionNames, Catalog previous) {
        for (String p : partitionNames) {
            partitionIds.put(p.toLowerCase(Locale.ROOT), partitionIds.size());
        }
        this.previous = previous;
    }

    /** Parses {@code script}; {@code partitionNames} are the logical partitions in catalog order. */
    public static Catalog parse(String script, List<String> partitionNames) {
        var parser = new SchemaParser(partitionNames, null);
        for (var statement : SqlScript.split(script)) {
            parser.origin = "schema line " + statement.line() + ": ";
            if (SecondaryLookup.isDefinition(statement.text())) {
                // its entries are built by the statement (docs/placement.md, "Secondary lookups"); the stored catalog then keeps it
                throw parser.error("CREATE SECONDARY LOOKUP belongs to DDL through the router, which builds its entries, not in the schema file");
            }
            parser.addTable(statement.text());
        }
        Catalog catalog = parser.catalog(partitionNames);
        for (TableDef t : catalog.tablesInSchemaOrder()) {
            var missing = ForeignKeys.missingParents(catalog, t);
            if (!missing.isEmpty()) throw new SchemaException("table '" + t.name() + "' has a foreign key to '" + missing.getFirst() + "', which is not defined");
        }
        for (ForeignKey fk : catalog.foreignKeys()) {
            String why = fk.crossing() ? ForeignKeys.unenforceable(catalog, fk) : null;
            if (why != null) {
                throw new SchemaException("foreign key " + fk.name() + " of '" + fk.child() + "': its rows may be on other partitions than their '"
                        + fk.parent() + "' rows, and the router, which enforces such keys, cannot: " + why + " (docs/foreign-keys.md)");
            }
        }
        return catalog;
    }

    /**
     * The catalog of {@code createTexts} (full CREATE TABLE statements with their placement clauses, an
     * owner before its SAME AS tables), as the stored catalog holds them. A lookup table of {@code previous}
     * whose owner keeps its column and partitions is carried over with its entries, as are learned collations.
     */
    public static Catalog rebuild(List<String> createTexts, List<String> partitionNames, Catalog previous) {
        var parser = new SchemaParser(partitionNames, previous);
        for (String text : createTexts) {
            parser.origin = "stored catalog: ";
            parser.addTable(text);
        }
        return parser.catalog(partitionNames);
    }

    /** {@code base} with the table {@code createText} (a CREATE TABLE with its placement clause) added at the end. */
    public static Catalog withTable(Catalog base, String createText) {
        List<String> names = base.partitions().stream().map(Partition::name).toList();
        var parser = new SchemaParser(names, base);
        for (TableDef t : base.tablesInSchemaOrder()) parser.tables.put(key(t.name()), t);
        parser.secondaries.addAll(base.secondaries());
        parser.origin = "CREATE TABLE: ";
        parser.addTable(createText);
        return parser.catalog(names);
    }

    private Catalog catalog(List<String> partitionNames) {
        var partitions = new ArrayList<Partition>();
        partitionNames.forEach(n -> partitions.add(new Partition(partitions.size(), n)));
        return new Catalog(partitions, tables, secondaries);
    }

    /** Whether {@code createText} ends in a placement clause (else the router's default placement applies). */
    /**
     * {@code createText} with the partition list written out where its clause leaves it out, {@code PARTITION BY hash(col)}
     * or {@code PARTITION BY lookup(col) [DEFAULT NEW ON hash(col)]}: every partition of {@code partitions}, recorded, so
     * that partitions added to the config later do not change where the table's rows are; else the text as it is.
     */
    public static String withPartitionList(String createText, List<String> partitions) {
        int open = createText.indexOf('(');
        int bodyEnd = open < 0 ? -1 : closingParen(createText, open);
        if (bodyEnd < 0) return createText;
        Matcher clause = CLAUSE.matcher(createText).region(bodyEnd + 1, createText.length());
        if (!clause.find() || clause.group(2) == null || clause.group(2).equalsIgnoreCase("range")) return createText;
        String rest = clause.group(4);
        if (!rest.isBlank() && !(clause.group(2).equalsIgnoreCase("lookup") && DEFAULT_NEW.matcher(rest).matches())) return createText;
        int at = clause.start(4);
        return createText.substring(0, at).stripTrailing() + " ON (" + String.join(", ", partitions) + ")" + (rest.isBlank() ? "" : " " + rest);
    }

    public static boolean hasPlacementClause(String createText) {
        int open = createText.indexOf('(');
        int bodyEnd = open < 0 ? -1 : closingParen(createText, open);
        return bodyEnd >= 0 && CLAUSE.matcher(createText).region(bodyEnd + 1, createText.length()).find();
    }

    private void addTable(String text) {
        if (SecondaryLookup.isDefinition(text)) {
            addSecondary(text);
            return;
        }
        if (Sequences.isDefinition(text)) {
            TableDef sequence;
            try {
                sequence = Sequences.parse(text, partitionIds);
            } catch (SchemaException e) {
                throw error(e.getMessage());
            }
            if (tables.containsKey(key(sequence.name()))) throw error("table '" + sequence.name() + "' is defined twice");
            tables.put(key(sequence.name()), sequence);
            return;
        }
        if (!text.regionMatches(true, 0, "CREATE TABLE", 0, 12)) {
            throw error("only CREATE TABLE statements belong in the schema file; found: " + abbreviate(text));
        }
        int open = text.indexOf('(');
        int bodyEnd = open < 0 ? -1 : closingParen(text, open);
        Matcher clause = CLAUSE.matcher(text);
        if (bodyEnd < 0 || !clause.region(bodyEnd + 1, text.length()).find()) {
            throw error("CREATE TABLE needs a placement clause at its end: PARTITION BY lookup|hash|range(col) ON (...), or REPLICATED; found: " + abbreviate(text));
        }
        String ddl = text.substring(0, clause.start()).strip();
        CreateTable create;
        try {
            create = (CreateTable) CCJSqlParserUtil.parse(ddl);
        } catch (JSQLParserException | ClassCastException e) {
            throw error("cannot parse CREATE TABLE: " + firstLine(e));
        }
        String name = unquote(create.getTable().getName());
        if (tables.containsKey(key(name))) {
            throw error("table '" + name + "' is defined twice");
        }
        var columns = CreateTableColumns.of(create);
        Partitioning partitioning = clause.group(2) == null
                ? replicated(clause.group(5))
                : partitioned(name, clause.group(2).toLowerCase(Locale.ROOT), clause.group(3), clause.group(4), columns, create);
        tables.put(key(name), new TableDef(name, carryCollations(name, columns), partitioning, ddl, text.substring(clause.start()).strip()));
    }

    /** {@code CREATE SECONDARY LOOKUP name ON t (col [, col ...]) [UNIQUE]}, after its table (docs/placement.md). */
    private void addSecondary(String text) {
        SecondaryLookup s = SecondaryLookup.parse(text);
        if (s == null) throw error("expected CREATE SECONDARY LOOKUP name ON table (column [, column ...]) [UNIQUE], found: " + abbreviate(text));
        TableDef t = tables.get(key(s.table()));
        if (t == null) throw error("secondary lookup '" + s.name() + "' names table '" + s.table() + "', which is not defined before it");
        if (s.columns().size() > SecondaryLookup.MAX_COLUMNS) throw error("secondary lookup '" + s.name() + "' has more than " + SecondaryLookup.MAX_COLUMNS + " columns");
        var columns = new ArrayList<String>();
        for (String name : s.columns()) {
            ColumnDef c = find(t.columns(), name);
            if (c == null) throw error("secondary lookup '" + s.name() + "': '" + name + "' is not a column of " + t.name());
            if (c.keyType() == null) {
                throw error("secondary lookup '" + s.name() + "': cannot index " + t.name() + "." + c.name() + " of type " + c.typeName()
                        + ": the column must be an integer, CHAR, VARCHAR, BINARY or VARBINARY");
            }
            if (c.name().equalsIgnoreCase(t.partitioning().column())) {
                throw error("secondary lookup '" + s.name() + "': " + t.name() + " is placed by " + c.name() + " already");
            }
            if (columns.stream().anyMatch(c.name()::equalsIgnoreCase)) throw error("secondary lookup '" + s.name() + "' names " + c.name() + " twice");
            columns.add(c.name());
        }
        if (t.partitioning() instanceof Partitioning.Replicated) {
            throw error("secondary lookup '" + s.name() + "': " + t.name() + " is REPLICATED (every partition holds every row)");
        }
        if (s.name().length() > SecondaryLookup.MAX_NAME) throw error("secondary lookup name '" + s.name() + "' is longer than " + SecondaryLookup.MAX_NAME);
        if (secondaries.stream().anyMatch(o -> o.name().equalsIgnoreCase(s.name()))) throw error("secondary lookup '" + s.name() + "' is defined twice");
        secondaries.add(new SecondaryLookup(s.name(), t.name(), columns, s.unique(), s.building()));
    }

    private Partitioning replicated(String rest) {
        if (rest.isBlank()) {
            return new Partitioning.Replicated(partitionIds.values().stream().mapToInt(Integer::intValue).toArray());
        }
        Matcher on = ON_LIST.matcher(rest);
        if (!on.matches() || !on.group(2).isBlank()) {
            throw error("expected REPLICATED [ON (p0, p1, ...)], found: REPLICATED " + abbreviate(rest));
        }
        return new Partitioning.Replicated(partitionList(on.group(1)));
    }

    private Partitioning partitioned(String table, String method, String column, String rest, List<ColumnDef> columns, CreateTable create) {
        ColumnDef col = find(columns, column);
        if (col == null) {
            throw error("table '" + table + "' is partitioned by '" + column + "', which is not one of its columns");
        }
        if (col.keyType() == null) {
            throw error("table '" + table + "': cannot partition by '" + column + "' of type " + col.typeName()
                    + ": routing columns must be integers (TINYINT to BIGINT) or strings (CHAR, VARCHAR, BINARY, VARBINARY)");
        }
        column = col.name();
        Matcher sameAs = SAME_AS.matcher(rest);
        if (sameAs.matches()) {
            if (!method.equals("lookup")) throw error("SAME AS goes with PARTITION BY lookup(col)");
            return sameAs(table, column, col, sameAs.group(1), columns, create);
        }
        Matcher on = ON_LIST.matcher(rest);
        if (!on.matches()) {
            throw error("expected ON (p0, p1, ...) after PARTITION BY " + method + "(" + column + "), found: " + abbreviate(rest));
        }
        String tail = on.group(2);
        return switch (method) {
            case "hash" -> {
                requireBlank(tail);
                yield new Partitioning.Hashed(column, partitionList(on.group(1)));
            }
            case "range" -> {
                requireBlank(tail);
                if (col.collation() != null) {
                    throw error("table '" + table + "': range partitioning of '" + column + "' ("
                            + (col.collation().declared() == null ? "the table's default collation" : "collation " + col.collation().declared())
                            + ") is not supported: the router orders range bounds by code point, so declare the column binary"
                            + " (COLLATE utf8mb4_bin), or use hash or lookup placement");
                }
                yield range(column, col.keyType(), on.group(1));
            }
            default -> {
                if (!tail.isBlank()) {
                    Matcher dflt = DEFAULT_NEW.matcher(tail);
                    if (!dflt.matches()) throw error("expected DEFAULT NEW ON hash(" + column + "), found: " + abbreviate(tail));
                    if (!dflt.group(1).equalsIgnoreCase(column)) {
                        throw error("DEFAULT NEW ON hash(" + dflt.group(1) + "): the default rule must hash the lookup column '" + column + "'");
                    }
                }
                int[] partitions = partitionList(on.group(1));
                yield new Partitioning.LookedUp(column, partitions, lookupTable(table, column, partitions), table, column, CreateTableColumns.isUnique(create, column));
            }
        };
    }

    /**
     * The lookup table of owner {@code table}: the previous catalog's when the owner keeps its column and
     * partitions (its entries stay right), else a new one, empty until RouterLoader has seen the keys
     * and installs the representation the chooser picks.
     */
    private LookupTable lookupTable(String table, String column, int[] partitions) {
        TableDef before = previous == null ? null : previous.table(table);
        if (before != null && before.partitioning() instanceof Partitioning.LookedUp was && was.owner().equalsIgnoreCase(table)
                && was.column().equalsIgnoreCase(column) && java.util.Arrays.equals(was.partitions(), partitions)) {
            return was.table();
        }
        return AdaptiveLookupTable.empty();
    }

    /** Columns whose collation the previous catalog's table of the same name already learned keep that (learned) collation. */
    private List<ColumnDef> carryCollations(String table, List<ColumnDef> columns) {
        TableDef before = previous == null ? null : previous.table(table);
        if (before == null) return columns;
        var out = new ArrayList<ColumnDef>();
        for (ColumnDef c : columns) {
            ColumnDef was = before.column(c.name());
            boolean same = c.collation() != null && was != null && was.collation() != null
                    && java.util.Objects.equals(was.collation().declared(), c.collation().declared());
            out.add(same ? c.withCollation(was.collation()) : c);
        }
        return out;
    }

    private Partitioning sameAs(String table, String column, ColumnDef col, String ownerName, List<ColumnDef> columns, CreateTable create) {
        TableDef owner = tables.get(key(ownerName));
        if (owner == null) {
            throw error("table '" + table + "' is SAME AS '" + ownerName + "', which is not defined above it");
        }
        if (!(owner.partitioning() instanceof Partitioning.LookedUp parent)) {
            throw error("table '" + table + "' is SAME AS '" + ownerName + "', which is not partitioned by lookup");
        }
        // collations not declared alike are compared once learned (maintain.Collations)
        var ownerCollation = owner.column(parent.ownerColumn()).collation();
        boolean bothDeclared = ownerCollation != null && col.collation() != null && ownerCollation.declared() != null && col.collation().declared() != null;
        if (owner.column(parent.ownerColumn()).keyType() != col.keyType()
                || bothDeclared && !ownerCollation.declared().equalsIgnoreCase(col.collation().declared())) {
            throw error("table '" + table + "': column '" + column + "' and " + ownerName + "." + parent.ownerColumn() + " have different key types");
        }
        return new Partitioning.LookedUp(column, parent.partitions(), parent.table(), parent.owner(), parent.ownerColumn(), CreateTableColumns.isUnique(create, column));
    }

    private Partitioning range(String column, KeyType type, String items) {
        var ids = new ArrayList<Integer>();
        var bounds = new ArrayList<Object>();
        for (String item : SqlScript.splitTopLevel(items)) {
            Matcher m = RANGE_ITEM.matcher(item);
            if (!m.matches()) throw error("bad range item '" + item.strip() + "': expected 'p0 < value' or 'p0'");
            ids.add(partitionId(m.group(1)));
            Object bound = m.group(2) == null ? null : KeyValues.normalize(literal(m.group(2)), type);
            if (m.group(2) != null && bound == null) {
                throw error("range bound " + m.group(2) + " is not a " + (type == KeyType.LONG ? "integer" : "quoted string"));
            }
            if (!bounds.isEmpty() && (bounds.getLast() == null || bound != null && KeyValues.compare(bounds.getLast(), bound) >= 0)) {
                throw error("range bounds must increase, and only the last partition may have no bound: " + item.strip());
            }
            bounds.add(bound);
        }
        return new Partitioning.Ranged(column, ids.stream().mapToInt(Integer::intValue).toArray(), bounds);
    }

    /** Index of the ')' that closes the '(' at {@code open}, skipping quoted text; -1 if none. */
    private static int closingParen(String s, int open) {
        int depth = 0;
        char quote = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static Object literal(String text) {
        String t = text.strip();
        if (t.length() >= 2 && (t.charAt(0) == '\'' || t.charAt(0) == '"') && t.charAt(t.length() - 1) == t.charAt(0)) {
            return t.substring(1, t.length() - 1).replace("''", "'");
        }
        return t.matches("[+-]?\\d+") ? Long.valueOf(t) : t;
    }

    private int[] partitionList(String items) {
        var list = SqlScript.splitTopLevel(items);
        int[] ids = new int[list.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = partitionId(list.get(i).strip().replace("`", ""));
        }
        if (ids.length == 0) throw error("the ON list names no partitions");
        return ids;
    }

    private int partitionId(String name) {
        Integer id = partitionIds.get(name.toLowerCase(Locale.ROOT));
        if (id == null) {
            throw error("unknown partition '" + name + "' (the router config defines " + String.join(", ", partitionIds.keySet()) + ")");
        }
        return id;
    }

    private static ColumnDef find(List<ColumnDef> columns, String name) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst().orElse(null);
    }

    private void requireBlank(String tail) {
        if (!tail.isBlank()) throw error("unexpected text after the ON list: " + abbreviate(tail));
    }

    static String unquote(String name) {
        return name.replace("`", "").replace("\"", "");
    }

    private static String key(String table) {
        return table.toLowerCase(Locale.ROOT);
    }

    private SchemaException error(String message) {
        return new SchemaException(origin + message);
    }

    private static String abbreviate(String s) {
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() > 80 ? one.substring(0, 77) + "..." : one;
    }

    static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
