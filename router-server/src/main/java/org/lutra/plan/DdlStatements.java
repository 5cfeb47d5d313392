package org.lutra.plan;

import org.lutra.catalog.SqlScript;
import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognizes the DDL the router runs ({@link SessionCommand.Ddl}) from the client's text, before anything else
 * touches it: the statement goes to the backends as written, with only the table name made
 * unqualified. Grammar (docs/ddl.md):
 *
 * <pre>
 * CREATE TABLE [IF NOT EXISTS] t (...) [table options] [placement clause]
 * DROP TABLE [IF EXISTS] t [, t2 ...]
 * TRUNCATE [TABLE] t
 * ALTER [ONLINE|IGNORE] TABLE t clause [, clause ...]
 * CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX [IF NOT EXISTS] i ON t (...)
 * DROP INDEX [IF EXISTS] i ON t
 * CREATE SEQUENCE [IF NOT EXISTS] s [options] [ON p]
 * ALTER SEQUENCE [IF EXISTS] s options
 * DROP SEQUENCE [IF EXISTS] s [, s2 ...]
 * </pre>
 *
 * Other DDL (views, databases, triggers, routines, RENAME TABLE, temporary tables, CREATE TABLE ... LIKE
 * / AS SELECT) is refused here (a Refusal), naming it. A name qualified by another database than the
 * logical one is refused: the router has one database.
 */
public final class DdlStatements {
    private static final String NAME = "(?:`((?:[^`]|``)+)`|(\\w+))";
    private static final String QUALIFIED = "(?:" + NAME + "\\s*\\.\\s*)?" + NAME;
    private static final Pattern CREATE_TABLE = Pattern.compile("(?is)\\s*CREATE\\s+TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?" + QUALIFIED + "\\s*+(.*)");
    private static final Pattern DROP_TABLE = Pattern.compile("(?is)\\s*DROP\\s+TABLE\\s+(IF\\s+EXISTS\\s+)?(.*)");
    private static final Pattern RESTRICT = Pattern.compile("(?is)\\s(?:RESTRICT|CASCADE)$");
    private static final Pattern TRUNCATE = Pattern.compile("(?is)\\s*TRUNCATE\\s+(?:TABLE\\s+)?" + QUALIFIED);
    /** Lutra's own ALTER TABLE ... SET PARTITION (a move): {@link PlacementStatements}' to plan. */
    private static final Pattern SET_PARTITION = Pattern.compile("(?is)\\s*ALTER\\s+TABLE\\s+\\S+\\s+SET\\s+PARTITION\\b.*");
    private static final Pattern ALTER = Pattern.compile("(?is)\\s*ALTER\\s+((?:ONLINE\\s+|IGNORE\\s+)*)TABLE\\s+" + QUALIFIED + "\\s+(.*)");
    private static final Pattern CREATE_INDEX = Pattern.compile(
            "(?is)\\s*(CREATE\\s+(?:UNIQUE\\s+|FULLTEXT\\s+|SPATIAL\\s+)?INDEX\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?" + NAME + "\\s+(?:USING\\s+\\w+\\s+)?ON)\\s+"
            + QUALIFIED + "\\s*+(\\(.*)");
    private static final Pattern DROP_INDEX = Pattern.compile("(?is)\\s*(DROP\\s+INDEX\\s+(?:IF\\s+EXISTS\\s+)?" + NAME + "\\s+ON)\\s+" + QUALIFIED + "\\s*+(.*)");
    private static final Pattern OTHER_DDL = Pattern.compile(
            "(?is)\\s*((?:CREATE|DROP|ALTER)\\s+(?:OR\\s+REPLACE\\s+)?(?:TEMPORARY\\s+(?:TABLE|SEQUENCE)|DATABASE|SCHEMA|VIEW|TRIGGER|PROCEDURE|FUNCTION|EVENT|SEQUENCE|USER|ROLE|SERVER|TABLESPACE|LOGFILE|DEFINER|ALGORITHM|SQL\\s+SECURITY|AGGREGATE)\\b|RENAME\\s+(?:TABLE|USER)\\b|CREATE\\s+TABLE\\b|DROP\\s+TABLE\\b|ALTER\\s+TABLE\\b|CREATE\\s+(?:\\w+\\s+)?INDEX\\b|DROP\\s+INDEX\\b|TRUNCATE\\b).*");

    private static final Pattern CREATE_SEQUENCE = Pattern.compile("(?is)\\s*CREATE\\s+SEQUENCE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?" + QUALIFIED + "(.*?)");
    /** A sequence's partition, at the end of CREATE SEQUENCE (no option of MariaDB's sequence grammar holds ON). */
    /** Greedy, and the options stripped after: a lazy group before optional whitespace backtracks quadratically over long blank runs. */
    private static final Pattern SEQUENCE_ON = Pattern.compile("(?is)(.*)\\bON\\s+`?(\\w+)`?");
    private static final Pattern ALTER_SEQUENCE = Pattern.compile("(?is)\\s*ALTER\\s+SEQUENCE\\s+(IF\\s+EXISTS\\s+)?" + QUALIFIED + "(.*)");
    private static final Pattern DROP_SEQUENCE = Pattern.compile("(?is)\\s*DROP\\s+SEQUENCE\\s+(IF\\s+EXISTS\\s+)?(.*)");

    private static final Pattern CREATE_SECONDARY = Pattern.compile(
            "(?is)\\s*CREATE\\s+SECONDARY\\s+LOOKUP\\s+" + NAME + "\\s+ON\\s+" + QUALIFIED + "\\s*\\(([^()]*)\\)\\s*(UNIQUE)?");
    private static final Pattern ONE_NAME = Pattern.compile("\\s*" + NAME + "\\s*");
    private static final Pattern DROP_SECONDARY = Pattern.compile("(?is)\\s*DROP\\s+SECONDARY\\s+LOOKUP\\s+(IF\\s+EXISTS\\s+)?" + NAME);
    private static final Pattern SECONDARY = Pattern.compile("(?is)\\s*(?:CREATE|DROP)\\s+SECONDARY\\b.*");
    private static final Pattern WORD = Pattern.compile("\\w+");

    private static final Pattern NAME_IN_LIST = Pattern.compile("(?is)\\s*+" + QUALIFIED + "\\s*+(?:,|$)");

    private DdlStatements() {}

    /** The statement without its trailing semicolon and blanks (removed here: a pattern ending in \\s*;?\\s* backtracks quadratically over blanks). */
    private static String withoutEnd(String sql) {
        int end = sql.length();
        while (end > 0 && Character.isWhitespace(sql.charAt(end - 1))) end--;
        if (end > 0 && sql.charAt(end - 1) == ';') end--;
        while (end > 0 && Character.isWhitespace(sql.charAt(end - 1))) end--;
        return sql.substring(0, end);
    }

    /** The DDL plan for {@code sql}, or null when it is not DDL. */
    public static SessionCommand.Ddl plan(String sql, String database) throws PlanException {
        sql = withoutLeadingComments(sql); // migration tools send a script's statement with the comments above it
        if (!mayBeDdl(sql)) return null;
        if (SECONDARY.matcher(sql).matches()) return secondary(withoutEnd(sql), database);
        if (!OTHER_DDL.matcher(sql).matches() || SET_PARTITION.matcher(sql).matches()) return null;
        if (SqlScript.split(sql).size() > 1) {
            throw new PlanException("42000", 1064, "one statement per execute: the text holds several (found a ';' before its end)");
        }
        String original = sql;
        sql = withoutEnd(sql);
        Matcher m;
        if ((m = CREATE_TABLE.matcher(sql)).matches()) {
            String table = table(m, 2, database);
            String rest = m.group(6);
            if (!rest.startsWith("(")) {
                throw PlanException.unsupported("CREATE TABLE ... LIKE / AS SELECT through the router: write the columns out");
            }
            return new SessionCommand.CreateTable(table, m.group(1) != null, "CREATE TABLE " + quote(table) + " " + rest, sql.strip());
        }
        if ((m = DROP_TABLE.matcher(sql)).matches()) {
            return new SessionCommand.DropTables(names(m.group(2), database, sql), m.group(1) != null, sql.strip());
        }
        if ((m = CREATE_SEQUENCE.matcher(sql)).matches()) {
            String options = m.group(6);
            String partition = null;
            Matcher on = SEQUENCE_ON.matcher(options);
            if (on.matches()) {
                options = on.group(1);
                partition = on.group(2);
            }
            return new SessionCommand.CreateSequence(table(m, 2, database), m.group(1) != null, options.strip(), partition, sql.strip());
        }
        if ((m = ALTER_SEQUENCE.matcher(sql)).matches()) {
            return new SessionCommand.AlterSequence(table(m, 2, database), m.group(1) != null, m.group(6).strip(), sql.strip());
        }
        if ((m = DROP_SEQUENCE.matcher(sql)).matches()) {
            return new SessionCommand.DropSequences(names(m.group(2), database, sql), m.group(1) != null, sql.strip());
        }
        if ((m = TRUNCATE.matcher(sql)).matches()) {
            return new SessionCommand.Truncate(table(m, 1, database), sql.strip());
        }
        if ((m = ALTER.matcher(sql)).matches()) {
            String table = table(m, 2, database);
            String body = m.group(6);
            String flags = m.group(1).isBlank() ? "" : m.group(1).strip().toUpperCase(Locale.ROOT) + " ";
            return new SessionCommand.AlterTable(table, "ALTER " + flags + "TABLE " + quote(table) + " " + body, org.lutra.catalog.SqlScript.splitTopLevel(body), sql.strip());
        }
        if ((m = CREATE_INDEX.matcher(sql)).matches()) {
            String table = table(m, 4, database);
            String head = m.group(1).strip();
            return new SessionCommand.AlterTable(table, head + " " + quote(table) + " " + m.group(8), List.of(head.replaceFirst("(?is)\\s+ON$", "")), sql.strip());
        }
        if ((m = DROP_INDEX.matcher(sql)).matches()) {
            String table = table(m, 4, database);
            String head = m.group(1).strip();
            String index = m.group(2) != null ? m.group(2).replace("``", "`") : m.group(3);
            return new SessionCommand.AlterTable(table, head + " " + quote(table) + (m.group(8).isBlank() ? "" : " " + m.group(8)),
                    List.of("DROP INDEX " + quote(index)), sql.strip());
        }
        String what = OTHER_DDL.matcher(original).replaceFirst("$1").replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
        throw PlanException.unsupported(what + " through the router (it runs CREATE/DROP/ALTER/TRUNCATE TABLE, CREATE/DROP INDEX and CREATE/ALTER/DROP SEQUENCE;"
                + " docs/ddl.md)");
    }

    /** The names of DROP TABLE / DROP SEQUENCE's list. */
    private static List<String> names(String text, String database, String sql) throws PlanException {
        var tables = new ArrayList<String>();
        String list = RESTRICT.matcher(text).replaceFirst("");
        Matcher name = NAME_IN_LIST.matcher(list);
        int at = 0;
        while (at < list.length()) {
            if (!name.region(at, list.length()).lookingAt()) throw new PlanException("42000", 1064, "DROP: expected a list of names: " + sql.strip());
            tables.add(table(name, 1, database));
            at = name.end();
        }
        if (tables.isEmpty()) throw new PlanException("42000", 1064, "DROP: expected a name");
        return List.copyOf(tables);
    }

    /** {@code sql} from its first token on: whitespace and comments before it dropped (not executable /*! comments). */
    /** The first words of DDL statements, the patterns' alternatives; every other first word is ruled out before them. */
    private static final java.util.Set<String> FIRST_WORDS = java.util.Set.of("CREATE", "DROP", "ALTER", "RENAME", "TRUNCATE");

    /**
     * False when the first word of {@code sql} (its comments taken off) rules DDL out, as the SELECTs and writes of the
     * hot path: a cheaper test than the patterns. Anything else (a sign, an executable comment, a letter outside ASCII)
     * goes to the patterns.
     */
    private static boolean mayBeDdl(String sql) {
        int end = 0;
        while (end < sql.length() && end <= 8 && (sql.charAt(end) | 0x20) >= 'a' && (sql.charAt(end) | 0x20) <= 'z') end++;
        return end == 0 || end > 8 || FIRST_WORDS.contains(sql.substring(0, end).toUpperCase(Locale.ROOT));
    }

    static String withoutLeadingComments(String sql) {
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#' || sql.startsWith("--", i) && (i + 2 == sql.length() || Character.isWhitespace(sql.charAt(i + 2)))) {
                int nl = sql.indexOf('\n', i);
                i = nl < 0 ? sql.length() : nl + 1;
            } else if (sql.startsWith("/*", i) && !sql.startsWith("/*!", i) && !sql.startsWith("/*M!", i)) {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) return sql; // unterminated: the parser reports it
                i = end + 2;
            } else {
                break;
            }
        }
        return i == 0 ? sql : sql.substring(i);
    }

    /**
     * {@code CREATE SECONDARY LOOKUP name ON t (col [, col ...]) [UNIQUE]} and {@code DROP SECONDARY LOOKUP [IF EXISTS] name}.
     * Names are words (they become part of a backend table's name, {@code lutra_sec_<name>}).
     */
    private static SessionCommand.Ddl secondary(String sql, String database) throws PlanException {
        Matcher m;
        if ((m = CREATE_SECONDARY.matcher(sql)).matches()) {
            String name = word(m, 1);
            var columns = new java.util.ArrayList<String>();
            for (String item : m.group(7).split(",", -1)) {
                Matcher c = ONE_NAME.matcher(item);
                if (!c.matches()) throw new PlanException("42000", 1064, "expected a column name in CREATE SECONDARY LOOKUP " + name + " (...), found: '" + item.strip() + "'");
                String column = word(c, 1);
                if (columns.stream().anyMatch(column::equalsIgnoreCase)) throw new PlanException("42S21", 1060, "Duplicate column name '" + column + "' in secondary lookup " + name);
                columns.add(column);
            }
            if (columns.size() > org.lutra.catalog.SecondaryLookup.MAX_COLUMNS) {
                throw new PlanException("42000", 1070, "Too many key parts specified; secondary lookup " + name + " has " + columns.size() + " columns, at most "
                        + org.lutra.catalog.SecondaryLookup.MAX_COLUMNS + " are allowed");
            }
            return new SessionCommand.CreateSecondary(name, table(m, 3, database), columns, m.group(8) != null, sql.strip());
        }
        if ((m = DROP_SECONDARY.matcher(sql)).matches()) {
            return new SessionCommand.DropSecondary(word(m, 2), m.group(1) != null, sql.strip());
        }
        throw new PlanException("42000", 1064, "expected CREATE SECONDARY LOOKUP name ON table (column [, column ...]) [UNIQUE] or DROP SECONDARY LOOKUP [IF EXISTS] name,"
                + " found: " + sql.strip());
    }

    private static String word(Matcher m, int first) throws PlanException {
        String w = m.group(first) != null ? m.group(first).replace("``", "`") : m.group(first + 1);
        if (!WORD.matcher(w).matches()) throw new PlanException("42000", 1064, "a secondary lookup's name and column are words (letters, digits, _): " + w);
        return w;
    }

    /** The table name of a QUALIFIED match starting at group {@code first}; a qualifier must name the logical database. */
    private static String table(Matcher m, int first, String database) throws PlanException {
        String schema = m.group(first) != null ? m.group(first).replace("``", "`") : m.group(first + 1);
        String table = m.group(first + 2) != null ? m.group(first + 2).replace("``", "`") : m.group(first + 3);
        if (schema != null && !schema.equalsIgnoreCase(database)) {
            throw new PlanException("42000", 1044, "DDL on database '" + schema + "': this router serves database '" + database + "' only");
        }
        return table;
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
