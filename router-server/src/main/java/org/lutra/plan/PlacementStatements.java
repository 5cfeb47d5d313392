package org.lutra.plan;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;
import org.lutra.sql.ValueRef;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The administrator's placement statements, recognised from the text (MySQL has none of them,
 * so nothing else may claim them): {@code SHOW PARTITIONS}, {@code SHOW LOOKUP TABLES} and
 * {@code SHOW LOOKUP [db.]t FOR key}, the key a number, a quoted string, NULL or {@code ?}.
 * Anything else that starts {@code SHOW PARTITIONS} or {@code SHOW LOOKUP} is MySQL's syntax error.
 */
final class PlacementStatements {
    private static final String NAME = "`?([\\w$]+)`?";
    private static final String END = "\\s*+(?:;\\s*+)?"; // possessive: "\\s*;?\\s*" backtracks quadratically over a run of spaces
    private static final Pattern SHOW_PARTITIONS = Pattern.compile("(?is)\\s*SHOW\\s+PARTITIONS" + END);
    private static final Pattern SHOW_LOOKUP_TABLES = Pattern.compile("(?is)\\s*SHOW\\s+LOOKUP\\s+TABLES" + END);
    private static final Pattern SHOW_LOOKUP_SNAPSHOT = Pattern.compile("(?is)\\s*SHOW\\s+LOOKUP\\s+SNAPSHOT" + END);
    private static final Pattern SHOW_LOOKUP_POSITION = Pattern.compile("(?is)\\s*SHOW\\s+LOOKUP\\s+LOG\\s+POSITION" + END);
    /** The key is everything after FOR, read by {@link #key}: a regular expression over a long quoted key would recurse per character. */
    private static final Pattern SHOW_LOOKUP = Pattern.compile("(?is)\\s*SHOW\\s+LOOKUP\\s+(?:" + NAME + "\\.)?" + NAME + "\\s+FOR\\s+(.*)");
    private static final Pattern OURS = Pattern.compile("(?is)\\s*SHOW\\s+(?:PARTITIONS|LOOKUP)\\b.*");
    private static final Pattern SET_PARTITION = Pattern.compile("(?is)\\s*ALTER\\s+TABLE\\s+(?:" + NAME + "\\.)?" + NAME + "\\s+SET\\s+PARTITION\\b(.*)");
    private static final Pattern MOVE = Pattern.compile("(?is)\\s*=\\s*(?:`?(\\w+)`?|\\(\\s*([`\\w]+(?:\\s*,\\s*[`\\w]+)*)\\s*\\))\\s+WHERE\\s+(.+?)" + END);
    private static final Pattern LOAD = Pattern.compile("(?is)\\s*LOAD\\s+LOOKUP\\s+TABLE\\s+(?:" + NAME + "\\.)?" + NAME
            + "\\s+FROM\\s+'((?:[^'\\\\]|\\\\.|'')*+)'\\s+FORMAT\\s+(\\w+)(\\s+APPLY)?" + END);
    private static final Pattern LOAD_OURS = Pattern.compile("(?is)\\s*LOAD\\s+LOOKUP\\b.*");
    private static final Pattern SHOW_MOVES = Pattern.compile("(?is)\\s*SHOW\\s+MOVES" + END);
    private static final Pattern MOVE_CONTROL = Pattern.compile("(?is)\\s*(PAUSE|RESUME)\\s+MOVE\\s+(\\d{1,18})" + END);
    private static final Pattern MOVE_CONTROL_OURS = Pattern.compile("(?is)\\s*(?:PAUSE|RESUME)\\s+MOVE\\b.*|\\s*SHOW\\s+MOVES\\b.*");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++)(?:[eE][+-]?\\d++)?");

    private PlacementStatements() {}

    /** The plan for a placement statement, or null if {@code sql} is none; {@code planner} plans a move's key query. */
    static SessionCommand plan(String sql, Catalog catalog, String database, Planner planner) throws PlanException {
        Matcher move = SET_PARTITION.matcher(sql);
        if (move.matches()) return move(move, catalog, database, planner);
        SessionCommand moves = moveStatement(sql, catalog, database);
        if (moves != null) return moves;
        if (!OURS.matcher(sql).matches()) return null;
        if (SHOW_PARTITIONS.matcher(sql).matches()) return new SessionCommand.ShowPartitions();
        if (SHOW_LOOKUP_TABLES.matcher(sql).matches()) return new SessionCommand.ShowLookupTables();
        if (SHOW_LOOKUP_SNAPSHOT.matcher(sql).matches()) return new SessionCommand.ShowLookupSnapshot(false);
        if (SHOW_LOOKUP_POSITION.matcher(sql).matches()) return new SessionCommand.ShowLookupSnapshot(true);
        Matcher m = SHOW_LOOKUP.matcher(sql);
        if (!m.matches()) throw syntax(sql);
        if (m.group(1) != null && !m.group(1).equalsIgnoreCase(database)) {
            throw new PlanException("42000", 1049, "Unknown database '" + m.group(1) + "'");
        }
        TableDef table = catalog.table(m.group(2));
        if (table == null) throw new PlanException("42S02", 1146, "Table '" + database + "." + m.group(2) + "' doesn't exist");
        if (table.partitioning() instanceof Partitioning.Replicated) {
            throw new PlanException("HY000", 1347, "'" + database + "." + table.name() + "' is not placed by a key: it is REPLICATED,"
                    + " every one of its partitions holds every row (SHOW LOOKUP takes lookup, SAME AS, hash and range tables)");
        }
        ValueRef key = key(m.group(3));
        if (key == null) throw syntax(sql);
        return new SessionCommand.ShowLookup(table, key);
    }

    private static SessionCommand move(Matcher m, Catalog catalog, String database, Planner planner) throws PlanException {
        if (m.group(1) != null && !m.group(1).equalsIgnoreCase(database)) {
            throw new PlanException("42000", 1049, "Unknown database '" + m.group(1) + "'");
        }
        TableDef table = catalog.table(m.group(2));
        if (table == null) throw new PlanException("42S02", 1146, "Table '" + database + "." + m.group(2) + "' doesn't exist");
        if (!(table.partitioning() instanceof Partitioning.LookedUp lookup)) {
            throw new PlanException("HY000", 1505, "ALTER TABLE ... SET PARTITION moves rows of lookup-placed tables; '" + table.name()
                    + "' is placed by a rule (hash, range or REPLICATED) that decides where every row is");
        }
        if (!lookup.owner().equalsIgnoreCase(table.name())) {
            throw new PlanException("HY000", 1505, "'" + table.name() + "' is placed SAME AS '" + lookup.owner() + "': move the "
                    + lookup.owner() + " rows (ALTER TABLE " + lookup.owner() + " SET PARTITION ...), its rows follow");
        }
        String rest = m.group(3);
        Matcher where = MOVE.matcher(rest);
        if (!where.matches()) {
            throw new PlanException("42000", 1064, "You have an error in your SQL syntax: expected ALTER TABLE t SET PARTITION = p WHERE condition"
                    + " or SET PARTITION = (p1, p2, ...) WHERE condition");
        }
        String list = where.group(1) != null ? where.group(1) : where.group(2);
        var names = list.split("\\s*,\\s*");
        var targets = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            String name = names[i].trim().replace("`", "");
            int target = -1;
            for (var p : catalog.partitions()) if (p.name().equalsIgnoreCase(name)) target = p.id();
            final int t = target;
            if (target < 0 || java.util.Arrays.stream(lookup.partitions()).noneMatch(p -> p == t)) {
                throw new PlanException("HY000", 1735, "Unknown partition '" + name + "' for table '" + table.name() + "' (its partitions: "
                        + String.join(", ", java.util.Arrays.stream(lookup.partitions()).mapToObj(p -> catalog.partition(p).name()).toList()) + ")");
            }
            for (int j = 0; j < i; j++) {
                if (targets[j] == target) throw new PlanException("HY000", 1735, "partition '" + name + "' is named twice in SET PARTITION");
            }
            targets[i] = target;
        }
        if (targets.length > 1) {
            for (TableDef g : catalog.tablesInSchemaOrder()) {
                if (g.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(lookup.owner()) && !catalog.secondariesOf(g.name()).isEmpty()) {
                    throw new PlanException(org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE, "Lutra does not support replicated keys (SET PARTITION = (p1, p2)) in a lookup group with"
                            + " secondary lookups ('" + g.name() + "' has " + catalog.secondariesOf(g.name()).getFirst().name() + ")");
                }
            }
        }
        String keysSql = "SELECT DISTINCT `" + lookup.column() + "` FROM `" + table.name() + "` WHERE " + where.group(3);
        return new SessionCommand.Move(table, targets, keysSql, planner.executable(keysSql));
    }

    /** LOAD LOOKUP TABLE, SHOW MOVES, PAUSE MOVE n, RESUME MOVE n; null for anything else. */
    private static SessionCommand moveStatement(String sql, Catalog catalog, String database) throws PlanException {
        if (LOAD_OURS.matcher(sql).matches()) {
            Matcher m = LOAD.matcher(sql);
            if (!m.matches()) {
                throw new PlanException("42000", 1064, "You have an error in your SQL syntax: expected LOAD LOOKUP TABLE t FROM 'file'"
                        + " FORMAT csv|metis|schism [APPLY]");
            }
            if (m.group(1) != null && !m.group(1).equalsIgnoreCase(database)) {
                throw new PlanException("42000", 1049, "Unknown database '" + m.group(1) + "'");
            }
            TableDef table = catalog.table(m.group(2));
            if (table == null) throw new PlanException("42S02", 1146, "Table '" + database + "." + m.group(2) + "' doesn't exist");
            if (!(table.partitioning() instanceof Partitioning.LookedUp)) {
                throw new PlanException("HY000", 1505, "LOAD LOOKUP TABLE loads the lookup table of a lookup-placed table; '" + table.name()
                        + "' is placed by a rule (hash, range or REPLICATED)");
            }
            String format = m.group(4).toLowerCase(java.util.Locale.ROOT);
            if (!format.equals("csv") && !format.equals("metis") && !format.equals("schism")) {
                throw new PlanException("42000", 1064, "You have an error in your SQL syntax: unknown map FORMAT '" + m.group(4)
                        + "' (csv, metis or schism)");
            }
            return new SessionCommand.LoadLookup(table, Literals.unescape(m.group(3), '\''), format, m.group(5) != null, sql.strip());
        }
        if (!MOVE_CONTROL_OURS.matcher(sql).matches()) return null;
        if (SHOW_MOVES.matcher(sql).matches()) return new SessionCommand.ShowMoves();
        Matcher m = MOVE_CONTROL.matcher(sql);
        if (!m.matches()) {
            throw new PlanException("42000", 1064, "You have an error in your SQL syntax: expected SHOW MOVES, PAUSE MOVE id or RESUME MOVE id");
        }
        long id = Long.parseLong(m.group(2));
        return m.group(1).equalsIgnoreCase("PAUSE") ? new SessionCommand.PauseMove(id) : new SessionCommand.ResumeMove(id);
    }

    /**
     * The key as written, with the statement's end (spaces, one ';') taken off: {@code ?}, NULL,
     * a number (an integer as a Long, else exact as a BigDecimal, or a Double with an exponent,
     * as MySQL reads the literal), or one quoted string (MySQL's escapes); null for anything else.
     */
    static ValueRef key(String text) {
        int end = text.length();
        while (end > 0 && Character.isWhitespace(text.charAt(end - 1))) end--;
        if (end > 0 && text.charAt(end - 1) == ';') end--;
        while (end > 0 && Character.isWhitespace(text.charAt(end - 1))) end--;
        String v = text.substring(0, end);
        if (v.equals("?")) return new ValueRef.Param(0);
        if (v.equalsIgnoreCase("NULL")) return new ValueRef.Literal(null);
        if (NUMBER.matcher(v).matches()) {
            if (v.indexOf('e') >= 0 || v.indexOf('E') >= 0) return new ValueRef.Literal(Double.parseDouble(v));
            var exact = new BigDecimal(v.startsWith("+") ? v.substring(1) : v);
            try {
                return new ValueRef.Literal(exact.scale() <= 0 ? exact.longValueExact() : exact);
            } catch (ArithmeticException beyondLong) {
                return new ValueRef.Literal(exact);
            }
        }
        if (v.length() >= 2 && v.charAt(0) == '\'' && closingQuote(v) == v.length() - 1) {
            return new ValueRef.Literal(Literals.unescape(v.substring(1, v.length() - 1), '\''));
        }
        return null;
    }

    /** The index of the quote that closes the string opened at 0 (backslash escapes, '' doubled), or -1. */
    private static int closingQuote(String v) {
        for (int i = 1; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '\'') {
                if (i + 1 < v.length() && v.charAt(i + 1) == '\'') i++;
                else return i;
            }
        }
        return -1;
    }

    private static PlanException syntax(String sql) {
        String near = sql.strip();
        return new PlanException("42000", 1064, "You have an error in your SQL syntax near '" + (near.length() > 80 ? near.substring(0, 80) + "..." : near)
                + "': the router's placement statements are SHOW PARTITIONS, SHOW LOOKUP TABLES and SHOW LOOKUP table FOR key"
                + " (a number, a quoted string, NULL or ?)");
    }
}
