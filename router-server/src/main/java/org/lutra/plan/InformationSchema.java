package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.PartitionSchemaRows;
import org.lutra.exec.Plan;
import org.lutra.exec.Route;
import org.lutra.exec.Target;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * SELECTs over {@code information_schema.TABLES}, {@code SCHEMATA} (and the empty VIEWS, TRIGGERS,
 * ROUTINES, EVENTS: see {@link #GIVEN}), the tables of {@link #FROM_PARTITIONS} and of {@link #SERVER_WIDE}, answered
 * for the logical database as one server holding it would (ORMs and migration tools ask them:
 * Hibernate's sequence lookup, Flyway's schema checks). Each reference becomes a derived table of
 * literal rows built from the catalog — the logical database and its tables, with
 * information_schema's own character set and collation — and {@code DATABASE()}/{@code SCHEMA()}
 * the logical database's name; MySQL on one partition then evaluates the statement over them, so
 * its WHERE, joins, ORDER BY and functions mean what they mean on one server.
 *
 * <p>COLUMNS, STATISTICS, KEY_COLUMN_USAGE, TABLE_CONSTRAINTS and REFERENTIAL_CONSTRAINTS are read from the
 * partitions when the statement runs, each table's rows where its first partition keeps it
 * ({@link PartitionSchemaRows}), all their columns (STATISTICS.CARDINALITY, an estimate, summed over the table's partitions). Of the others only the columns the catalog knows exactly are there. A column each partition's copy answers
 * differently (TABLE_ROWS, DATA_LENGTH, AUTO_INCREMENT, CREATE_TIME, ...), a column the catalog does
 * not hold (the database's defaults, ...), {@code *}, another information_schema table, or a table of
 * the logical database in the same statement is refused. A statement naming a column of TABLES that
 * the table's definition decides ({@link #DEFINED}: TABLE_COMMENT, ENGINE, ...) reads TABLES from the partitions too.
 */
final class InformationSchema {
    private static final String SCHEMA = "information_schema";
    /** Per table: the columns given, in information_schema's order. */
    private static final Map<String, List<String>> GIVEN = Map.of(
            "TABLES", List.of("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE"),
            "SCHEMATA", List.of("CATALOG_NAME", "SCHEMA_NAME"),
            "VIEWS", List.of("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME"),
            "TRIGGERS", List.of("TRIGGER_CATALOG", "TRIGGER_SCHEMA", "TRIGGER_NAME", "EVENT_MANIPULATION", "EVENT_OBJECT_CATALOG",
                    "EVENT_OBJECT_SCHEMA", "EVENT_OBJECT_TABLE"),
            "ROUTINES", List.of("SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME", "ROUTINE_TYPE"),
            "EVENTS", List.of("EVENT_CATALOG", "EVENT_SCHEMA", "EVENT_NAME"));
    /**
     * The tables only the partitions can answer (each table's definition: its columns, indexes, keys), by the
     * column naming a row's database; read when the statement runs ({@link PartitionSchemaRows}), all columns.
     */
    private static final Map<String, String> FROM_PARTITIONS = Map.of("COLUMNS", "TABLE_SCHEMA", "STATISTICS", "TABLE_SCHEMA",
            "KEY_COLUMN_USAGE", "TABLE_SCHEMA", "TABLE_CONSTRAINTS", "TABLE_SCHEMA", "REFERENTIAL_CONSTRAINTS", "CONSTRAINT_SCHEMA");
    // Views, triggers, routines and events cannot be created in the logical database (the router refuses
    // the DDL; the triggers it keeps on lookup tables are its own, as its lutra_ tables are): those are empty.
    /**
     * Tables that describe the server, not a database (Connector/J's getSQLKeywords reads KEYWORDS, which Hibernate
     * asks): every partition's server answers them alike, so the partition the statement runs on does.
     */
    private static final Set<String> SERVER_WIDE = Set.of("KEYWORDS", "SQL_FUNCTIONS", "CHARACTER_SETS", "COLLATIONS",
            "COLLATION_CHARACTER_SET_APPLICABILITY");
    /**
     * Columns of TABLES that the table's definition decides, the same on every copy (the DDL ran on each): a statement
     * naming one reads TABLES from the partitions, as {@link #FROM_PARTITIONS} (Connector/J's getTables asks TABLE_COMMENT).
     */
    private static final Set<String> DEFINED = Set.of("ENGINE", "ROW_FORMAT", "TABLE_COLLATION", "CREATE_OPTIONS", "TABLE_COMMENT");
    /** The other columns of those tables (MariaDB 11 and MySQL 8), refused by name: each copy has its own, or the catalog's database does. */
    private static final Set<String> NOT_GIVEN = Set.of("VERSION", "TABLE_ROWS", "AVG_ROW_LENGTH",
            "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE", "AUTO_INCREMENT", "CREATE_TIME", "UPDATE_TIME",
            "CHECK_TIME", "CHECKSUM", "MAX_INDEX_LENGTH", "TEMPORARY",
            "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME", "SQL_PATH", "SCHEMA_COMMENT", "DEFAULT_ENCRYPTION");

    private InformationSchema() {}

    /** The plan, or null when {@code statement} reads no information_schema table. */
    static Plan plan(Statement statement, Catalog catalog, String database) throws PlanException {
        if (!(statement instanceof Select)) return null;
        var found = new Finder();
        try {
            found.getTables(statement);
        } catch (RuntimeException e) {
            return null; // the planner's own checks report what the finder cannot walk
        }
        if (found.schemaTables.isEmpty()) return null;
        if (found.otherTables) {
            throw PlanException.unsupported("a statement joining information_schema with tables of the logical database");
        }
        boolean starRefused = false;
        for (Table t : found.schemaTables) {
            if (SERVER_WIDE.contains(name(t))) continue;
            if (!GIVEN.containsKey(name(t)) && !FROM_PARTITIONS.containsKey(name(t))) {
                var answered = new java.util.TreeSet<>(GIVEN.keySet());
                answered.addAll(FROM_PARTITIONS.keySet());
                answered.addAll(SERVER_WIDE);
                throw PlanException.unsupported("information_schema." + name(t) + " through the router (" + String.join(", ", answered)
                        + " are answered for the logical database)");
            }
            starRefused |= !FROM_PARTITIONS.containsKey(name(t));
        }
        if (found.star && starRefused) {
            throw PlanException.unsupported("SELECT * on information_schema through the router: name the columns (of TABLES: "
                    + String.join(", ", GIVEN.get("TABLES")) + "; of SCHEMATA: " + String.join(", ", GIVEN.get("SCHEMATA")) + ")");
        }
        for (String column : found.columns) {
            if (NOT_GIVEN.contains(column)) {
                throw PlanException.unsupported("information_schema column " + column + " through the router (each partition's copy "
                        + "of a table has its own; answered: " + String.join(", ", GIVEN.get("TABLES")) + ", "
                        + String.join(", ", GIVEN.get("SCHEMATA")) + ")");
            }
        }
        // the tables only the partitions know are read when the statement runs (exec.PartitionSchemaRows)
        var reads = new java.util.LinkedHashMap<String, PartitionSchemaRows.Read>();
        for (Table t : found.schemaTables) {
            if (SERVER_WIDE.contains(name(t))) continue; // read where the statement runs, as it is
            String alias = t.getAlias() != null ? t.getAlias().getName() : "`" + name(t) + "`";
            boolean definitions = found.columns.stream().anyMatch(DEFINED::contains);
            String rows = switch (name(t)) {
                case "TABLES" -> definitions ? reads.computeIfAbsent("TABLES", x -> new PartitionSchemaRows.Read(nonce("lutra_schema_"),
                        "TABLES", "TABLE_SCHEMA")).marker() : tables(catalog, database);
                case "SCHEMATA" -> schemata(database);
                case String n when FROM_PARTITIONS.containsKey(n) -> reads.computeIfAbsent(n, x -> new PartitionSchemaRows.Read(nonce("lutra_schema_"),
                        n, FROM_PARTITIONS.get(n))).marker();
                default -> empty(GIVEN.get(name(t)));
            };
            // the deparser prints a table's name as given: the derived table takes its place, under its name or alias
            t.setSchemaName(null);
            t.setName(rows);
            t.setAlias(new Alias(alias, true));
        }
        labelAsWritten(statement);
        // DATABASE() is a function call in the tree: marked there, replaced in the text (a nonce no client text holds)
        String marker = nonce("lutra_database_");
        found.databaseCalls.forEach(f -> f.setName(marker));
        String text = statement.toString().replace(marker + "()", text(database));
        Guards.requireNoSessionState(text);
        var anywhere = new Target(new TableDef("(information_schema)", List.of(), new Partitioning.Replicated(new int[] {0}), ""), null);
        if (reads.isEmpty()) return new Plan.Query(new Route(anywhere, text, null), ParamCounter.count(text));
        var tablesAt = new java.util.TreeMap<Integer, List<String>>();
        for (TableDef t : catalog.tables()) tablesAt.computeIfAbsent(t.partitioning().partitions()[0], p -> new ArrayList<>()).add(t.name());
        tablesAt.replaceAll((p, names) -> List.copyOf(names));
        // STATISTICS.CARDINALITY is an estimate of the rows' distinct keys: the whole table's is the sum over its partitions (a copy's alone for replicated)
        var rowsAt = new java.util.TreeMap<Integer, List<String>>();
        for (TableDef t : catalog.tables()) {
            int[] holding = t.partitioning() instanceof Partitioning.Replicated r ? new int[] {r.partitions()[0]} : t.partitioning().partitions();
            for (int p : holding) rowsAt.computeIfAbsent(p, x -> new ArrayList<>()).add(t.name());
        }
        rowsAt.replaceAll((p, names) -> List.copyOf(names));
        String counted = text;
        for (var read : reads.values()) counted = counted.replace(read.marker(), "");
        return new Plan.Query(new PartitionSchemaRows(text, List.copyOf(reads.values()), database, tablesAt, rowsAt, anywhere), ParamCounter.count(counted));
    }

    /**
     * MySQL labels a column of information_schema as the statement spells it ({@code table_name});
     * read from a derived table it would be labelled as the derived table spells it: each plain column item gets its written name.
     */
    private static void labelAsWritten(Statement statement) {
        switch (statement) {
            case PlainSelect p -> {
                for (var item : p.getSelectItems()) {
                    if (item.getAlias() == null && item.getExpression() instanceof Column c) {
                        item.setAlias(new Alias("`" + KeyFinder.unquote(c.getColumnName()).replace("`", "``") + "`", true));
                    }
                }
            }
            case net.sf.jsqlparser.statement.select.SetOperationList list when !list.getSelects().isEmpty() -> labelAsWritten(list.getSelects().getFirst());
            case net.sf.jsqlparser.statement.select.ParenthesedSelect p -> labelAsWritten(p.getSelect());
            default -> { }
        }
    }

    private static String tables(Catalog catalog, String database) {
        var rows = new ArrayList<String>();
        for (TableDef t : catalog.tables()) {
            rows.add("SELECT " + text("def") + " AS TABLE_CATALOG, " + text(database) + " AS TABLE_SCHEMA, " + text(t.name())
                    + " AS TABLE_NAME, " + text(org.lutra.catalog.Sequences.is(t) ? "SEQUENCE" : "BASE TABLE") + " AS TABLE_TYPE");
        }
        return rows.isEmpty() ? empty(GIVEN.get("TABLES")) : "(" + String.join(" UNION ALL ", rows) + ")";
    }

    /** A name no client text holds, to mark a place in the printed statement. */
    private static String nonce(String prefix) {
        return prefix + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() | 1L << 62);
    }

    private static String empty(List<String> columns) {
        var items = new ArrayList<String>();
        for (String c : columns) items.add(text("") + " AS " + c);
        return "(SELECT " + String.join(", ", items) + " FROM DUAL WHERE FALSE)";
    }

    private static String schemata(String database) {
        return "(SELECT " + text("def") + " AS CATALOG_NAME, " + text(database) + " AS SCHEMA_NAME)";
    }

    /** A literal as information_schema's columns hold it: utf8mb3, compared case-insensitively. */
    private static String text(String value) {
        return PartitionSchemaRows.text(value);
    }

    private static String name(Table t) {
        return KeyFinder.unquote(t.getName()).toUpperCase(Locale.ROOT);
    }

    /** The tables, columns, {@code *} items and DATABASE() calls of a statement. */
    private static final class Finder extends TableFinder {
        final List<Table> schemaTables = new ArrayList<>();
        final Set<String> columns = new java.util.HashSet<>();
        final List<net.sf.jsqlparser.expression.Function> databaseCalls = new ArrayList<>();
        boolean otherTables;
        boolean star;

        Finder() {
            init(false);
        }

        @Override
        public <S> Void visit(Table table, S context) {
            String schema = table.getSchemaName() == null ? null : KeyFinder.unquote(table.getSchemaName());
            if (SCHEMA.equalsIgnoreCase(schema)) schemaTables.add(table);
            else otherTables = true;
            return super.visit(table, context);
        }

        @Override
        public <S> Void visit(Column column, S context) {
            columns.add(KeyFinder.unquote(column.getColumnName()).toUpperCase(Locale.ROOT));
            return super.visit(column, context);
        }

        @Override
        public <S> Void visit(net.sf.jsqlparser.expression.Function function, S context) {
            if (function.getMultipartName().size() == 1 && function.getName().matches("(?i)DATABASE|SCHEMA")
                    && (function.getParameters() == null || function.getParameters().isEmpty())) {
                databaseCalls.add(function);
            }
            return super.visit(function, context);
        }

        @Override
        public <S> Void visit(PlainSelect select, S context) {
            for (var item : select.getSelectItems()) {
                if (item.getExpression() instanceof AllColumns) star = true; // AllTableColumns extends it
            }
            return super.visit(select, context);
        }
    }
}
