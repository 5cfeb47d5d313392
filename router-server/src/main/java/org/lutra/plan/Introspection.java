package org.lutra.plan;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;

import java.util.ArrayList;
import java.util.List;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SHOW TABLES, SHOW [FULL] COLUMNS, DESCRIBE, SHOW INDEX, SHOW CREATE TABLE, SHOW DATABASES and
 * USE, answered for the logical database: table lists from the catalog, a table's columns,
 * indexes and DDL from a partition that holds it (its copy is the table, and MySQL's answers for
 * these name no database). Another database is unknown, as on a server that has only this one.
 */
final class Introspection {
    private static final String NAME = "`?([\\w$]+)`?";
    private static final String QUALIFIED = "(?:" + NAME + "\\.)?" + NAME;
    private static final String END = "\\s*;?\\s*";
    private static final Pattern SHOW_TABLES = Pattern.compile("(?is)\\s*SHOW\\s+(FULL\\s+)?TABLES(?:\\s+(?:FROM|IN)\\s+" + NAME + ")?"
            + "(?:\\s+LIKE\\s+'((?:[^'\\\\]|\\\\.|'')*)')?" + END);
    private static final Pattern SHOW_COLUMNS = Pattern.compile("(?is)\\s*SHOW\\s+(FULL\\s+)?(?:COLUMNS|FIELDS)\\s+(?:FROM|IN)\\s+" + QUALIFIED
            + "(?:\\s+(?:FROM|IN)\\s+" + NAME + ")?(\\s+LIKE\\s+'(?:[^'\\\\]|\\\\.|'')*')?" + END);
    private static final Pattern DESCRIBE = Pattern.compile("(?is)\\s*(?:DESCRIBE|DESC|EXPLAIN)\\s+" + QUALIFIED + "(?:\\s+(" + NAME.replace("(", "(?:") + "|'(?:[^'\\\\]|\\\\.|'')*'))?" + END);
    private static final Pattern SHOW_INDEX = Pattern.compile("(?is)\\s*SHOW\\s+(?:INDEX|INDEXES|KEYS)\\s+(?:FROM|IN)\\s+" + QUALIFIED
            + "(?:\\s+(?:FROM|IN)\\s+" + NAME + ")?" + END);
    private static final Pattern SHOW_CREATE = Pattern.compile("(?is)\\s*SHOW\\s+CREATE\\s+TABLE\\s+" + QUALIFIED + END);
    private static final Pattern SHOW_DATABASES = Pattern.compile("(?is)\\s*SHOW\\s+(?:DATABASES|SCHEMAS)" + END);
    private static final Pattern USE = Pattern.compile("(?is)\\s*USE\\s+" + NAME + END);

    private Introspection() {}

    /** The plan for an introspection statement, or null if {@code sql} is none. */
    static Plan plan(String sql, Catalog catalog, String database) throws PlanException {
        Matcher m;
        if ((m = SHOW_TABLES.matcher(sql)).matches()) {
            requireDatabase(m.group(2), database);
            boolean full = m.group(1) != null;
            Pattern like = m.group(3) == null ? null : like(Literals.unescape(m.group(3), '\''));
            var rows = new ArrayList<List<String>>();
            for (TableDef t : catalog.tables()) {
                if (like == null || like.matcher(t.name()).matches()) rows.add(full ? List.of(t.name(), "BASE TABLE") : List.of(t.name()));
            }
            String label = "Tables_in_" + database + (m.group(3) == null ? "" : " (" + m.group(3) + ")");
            return new Plan.Rows(full ? List.of(label, "Table_type") : List.of(label), rows);
        }
        if ((m = SHOW_COLUMNS.matcher(sql)).matches()) {
            requireDatabase(m.group(2) != null ? m.group(2) : m.group(4), database);
            TableDef t = table(catalog, database, m.group(3));
            return onePartition(t, "SHOW " + (m.group(1) != null ? "FULL " : "") + "COLUMNS FROM " + quote(t.name()) + (m.group(5) == null ? "" : m.group(5)));
        }
        if ((m = DESCRIBE.matcher(sql)).matches()) {
            requireDatabase(m.group(1), database);
            TableDef t = table(catalog, database, m.group(2));
            String column = m.group(3);
            String like = column == null ? "" : column.startsWith("'") ? " LIKE " + column : " LIKE '" + KeyFinder.unquote(column).replace("'", "''") + "'";
            return onePartition(t, "SHOW COLUMNS FROM " + quote(t.name()) + like);
        }
        if ((m = SHOW_INDEX.matcher(sql)).matches()) {
            requireDatabase(m.group(1) != null ? m.group(1) : m.group(3), database);
            TableDef t = table(catalog, database, m.group(2));
            return onePartition(t, "SHOW INDEX FROM " + quote(t.name()));
        }
        if ((m = SHOW_CREATE.matcher(sql)).matches()) {
            requireDatabase(m.group(1), database);
            TableDef t = table(catalog, database, m.group(2));
            return onePartition(t, "SHOW CREATE TABLE " + quote(t.name()));
        }
        if (SHOW_DATABASES.matcher(sql).matches()) {
            return new Plan.Rows(List.of("Database"), List.of(List.of(database)));
        }
        if ((m = USE.matcher(sql)).matches()) {
            requireDatabase(m.group(1), database);
            return new Plan.NoOp();
        }
        return null;
    }

    private static Plan onePartition(TableDef t, String sql) {
        return new Plan.OnePartition(t.partitioning().partitions()[0], sql);
    }

    private static TableDef table(Catalog catalog, String database, String name) throws PlanException {
        TableDef t = catalog.table(name);
        if (t == null) throw new PlanException("42S02", 1146, "Table '" + database + "." + name + "' doesn't exist");
        return t;
    }

    private static void requireDatabase(String named, String database) throws PlanException {
        if (named != null && !named.equalsIgnoreCase(database)) {
            throw new PlanException("42000", 1049, "Unknown database '" + named + "'");
        }
    }

    /** A LIKE pattern as a regular expression: % any run, _ any one character, backslash escapes. */
    static Pattern like(String pattern) {
        var sb = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) sb.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            else if (c == '%') sb.append(".*");
            else if (c == '_') sb.append('.');
            else sb.append(Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(sb.toString(), Pattern.DOTALL);
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

}
