package org.lutra.plan;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SHOW TABLES, SHOW [FULL] COLUMNS, DESCRIBE, SHOW INDEX, SHOW CREATE TABLE, SHOW CREATE SEQUENCE,
 * SHOW DATABASES and USE, answered for the logical database: table lists from the catalog, a
 * table's columns, indexes and DDL from a partition that holds it (its copy is the table, and
 * MySQL's answers for these name no database), a sequence's from the one partition it lives on.
 * Another database is unknown, as on a server that has only this one.
 */
final class Introspection {
    private static final String NAME = "`?([\\w$]+)`?";
    private static final String QUALIFIED = "(?:" + NAME + "\\.)?" + NAME;
    private static final String END = "\\s*+(?:;\\s*+)?"; // possessive: "\\s*;?\\s*" backtracks quadratically over a run of spaces
    private static final Pattern SHOW_TABLES = Pattern.compile("(?is)\\s*SHOW\\s+(FULL\\s+)?TABLES(?:\\s+(?:FROM|IN)\\s+" + NAME + ")?"
            + "(?:\\s+LIKE\\s+'((?:[^'\\\\]++|\\\\.|'')*+)')?" + END);
    private static final Pattern SHOW_COLUMNS = Pattern.compile("(?is)\\s*SHOW\\s+(FULL\\s+)?(?:COLUMNS|FIELDS)\\s+(?:FROM|IN)\\s+" + QUALIFIED
            + "(?:\\s+(?:FROM|IN)\\s+" + NAME + ")?(\\s+LIKE\\s+'(?:[^'\\\\]++|\\\\.|'')*+')?" + END);
    private static final Pattern DESCRIBE = Pattern.compile("(?is)\\s*(?:DESCRIBE|DESC|EXPLAIN)\\s+" + QUALIFIED + "(?:\\s+(" + NAME.replace("(", "(?:") + "|'(?:[^'\\\\]++|\\\\.|'')*+'))?" + END);
    private static final Pattern SHOW_INDEX = Pattern.compile("(?is)\\s*SHOW\\s+(?:INDEX|INDEXES|KEYS)\\s+(?:FROM|IN)\\s+" + QUALIFIED
            + "(?:\\s+(?:FROM|IN)\\s+" + NAME + ")?" + END);
    private static final Pattern SHOW_CREATE = Pattern.compile("(?is)\\s*SHOW\\s+CREATE\\s+TABLE\\s+" + QUALIFIED + END);
    private static final Pattern SHOW_CREATE_SEQUENCE = Pattern.compile("(?is)\\s*SHOW\\s+CREATE\\s+SEQUENCE\\s+" + QUALIFIED + END);
    private static final Pattern SHOW_DATABASES = Pattern.compile("(?is)\\s*SHOW\\s+(?:DATABASES|SCHEMAS)" + END);
    private static final Pattern USE = Pattern.compile("(?is)\\s*USE\\s+" + NAME + END);

    private Introspection() {}

    /** The plan for an introspection statement, or null if {@code sql} is none. */
    static Plan plan(String sql, Catalog catalog, String database) throws PlanException {
        if (sql.length() > MAX_LENGTH) {
            // The patterns below recurse per escaped character of a quoted pattern: they never see a long text.
            // Names are at most 64 characters; nothing this long is an introspection statement MySQL would answer.
            String first = sql.stripLeading();
            first = first.substring(0, Math.min(first.length(), 9)).toUpperCase(java.util.Locale.ROOT);
            if (first.matches("(SHOW|USE|DESCRIBE|DESC)\\b.*")) {
                throw new PlanException("42000", 1064, "You have an error in your SQL syntax: a " + sql.length()
                        + "-character " + first.split("\\s")[0] + " statement (the router reads at most " + MAX_LENGTH + ")");
            }
            return null;
        }
        Matcher m;
        if ((m = SHOW_TABLES.matcher(sql)).matches()) {
            requireDatabase(m.group(2), database);
            boolean full = m.group(1) != null;
            String like = m.group(3) == null ? null : Literals.unescape(m.group(3), '\'');
            var rows = new ArrayList<List<String>>();
            for (TableDef t : catalog.tables()) {
                if (like == null || like(like, t.name())) rows.add(full ? List.of(t.name(), org.lutra.catalog.Sequences.is(t) ? "SEQUENCE" : "BASE TABLE") : List.of(t.name()));
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
        if ((m = SHOW_CREATE_SEQUENCE.matcher(sql)).matches()) {
            requireDatabase(m.group(1), database);
            TableDef t = table(catalog, database, m.group(2));
            if (!org.lutra.catalog.Sequences.is(t)) {
                throw new PlanException("42S02", 4089, "'" + database + "." + t.name() + "' is not a SEQUENCE"); // MariaDB's ER_NOT_SEQUENCE
            }
            return onePartition(t, "SHOW CREATE SEQUENCE " + quote(t.name()));
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

    /** Introspection statements longer than this are not matched (see {@link #plan}). */
    static final int MAX_LENGTH = 1_024;

    /**
     * Whether {@code text} matches the LIKE {@code pattern} (% any run, _ any one character,
     * backslash escapes; case as written). Not a regular expression: {@code %a%a%a...} would
     * backtrack exponentially there; this is the usual wildcard walk, which returns to the last %
     * only, O(pattern x text).
     */
    static boolean like(String pattern, String text) {
        int p = 0, t = 0, starP = -1, starT = -1;
        while (t < text.length()) {
            if (p < pattern.length() && pattern.charAt(p) == '%') {
                starP = ++p;
                starT = t;
            } else if (p < pattern.length() && pattern.charAt(p) != '%' && matchesOne(pattern, p, text.charAt(t))) {
                p += pattern.charAt(p) == '\\' && p + 1 < pattern.length() ? 2 : 1;
                t++;
            } else if (starP >= 0) {
                p = starP;
                t = ++starT;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '%') p++;
        return p == pattern.length();
    }

    private static boolean matchesOne(String pattern, int p, char c) {
        char pc = pattern.charAt(p);
        if (pc == '\\' && p + 1 < pattern.length()) return pattern.charAt(p + 1) == c;
        return pc == '_' || pc == c;
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

}
