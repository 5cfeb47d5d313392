package org.lutra.placement;

import org.lutra.backend.ShardQuery;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.merge.RowSource;
import org.lutra.sql.TableFinder;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Scans of a lookup group's tables — sub-queries that do not name their keys — when some key of the
 * group is replicated (its rows on several partitions, see {@code exec.ReplicaWrites}): each replicated
 * key is counted at its primary (the first partition its placement row names) and left out on the
 * others, so that a COUNT, a SUM, a plain list, a co-located join or subquery sees every row once.
 *
 * <p>Per scan, each partition is asked first whether it holds a replicated key's placement row (an
 * indexed-free read of the group's small placement table). None anywhere: the scan runs as written. Not asked at
 * all where the group provably has none: a table of it has a secondary lookup ({@link Copies#none}; a secondary
 * lookup and replicated keys exclude each other, {@code maintain.Mover}).
 * Otherwise every reference to a table of the group, wherever it stands in the SELECT (FROM, JOIN,
 * derived tables, subqueries), reads it through a derived table without the copies here. Why that is
 * exact for joins too: a sub-query runs on one partition only when every table of the group in it meets
 * the others on the group's key (co-located), and a replicated key has all its rows, of every table of
 * the group, at its primary; left out everywhere else, each key's rows meet once, at the primary.
 *
 * <p>The question must be asked in the snapshot the scan reads in: asked before it, a replication that
 * commits in between puts copies into the read that the scan does not leave out (counted twice). A fenced
 * scan ({@link FencedScan}) asks it on each partition's snapshot; inside a transaction (REPEATABLE READ)
 * the transaction's connection is that snapshot.
 *
 * <p>Locking reads: MariaDB's {@code FOR UPDATE} and {@code LOCK IN SHARE MODE} lock the rows of the tables in their
 * SELECT's own FROM and JOINs, never those read through a derived table or a subquery there. So a derived table that
 * stands for such a table carries the SELECT's clause itself; MariaDB merges it into the query, so the rows are read,
 * and locked, as the table's were (at REPEATABLE READ a partition also locks the copies it keeps for other primaries:
 * the same logical rows, which every writer of them locks too). A SERIALIZABLE transaction's plain reads need nothing:
 * InnoDB locks every read of such a transaction, derived tables' too.
 */
public final class ReplicaScans {
    private ReplicaScans() {}

    /**
     * One scan's question and rewrite: the table it is routed by, the routing column of each table of its
     * lookup group (by lower-case name), and the shards that name its partitions.
     */
    public record Copies(org.lutra.catalog.TableDef table, Map<String, String> groupColumns, Shards names) {
        String owner() {
            return ((org.lutra.catalog.Partitioning.LookedUp) table.partitioning()).owner();
        }

        /** Whether the group provably has no replicated keys ({@link Shards#noReplicatedKeys}): no partition need be asked. */
        public boolean none() {
            return names.noReplicatedKeys(owner());
        }

        /** Whether partition {@code p} holds rows of a replicated key of the group (SQL, no parameters; a row: yes). */
        public String checkSql(int p) throws SQLException {
            return PlacementRows.anyReplicatedSql(owner(), names.partitionName(p));
        }

        /** Each scan without the copies of keys whose primary is elsewhere. */
        public List<ShardQuery> scansWithoutCopies(List<ShardQuery> scans) throws SQLException {
            var out = new ArrayList<ShardQuery>(scans.size());
            for (var q : scans) out.add(new ShardQuery(q.partition(), withoutCopies(q.sql(), owner(), groupColumns, names.partitionName(q.partition())), q.params()));
            return out;
        }
    }

    /** The check and the rewrite on {@code shards}' own connections: exact where those connections are the read's snapshot. */
    public static List<ShardQuery> filter(Shards shards, Copies copies, List<ShardQuery> scans) throws SQLException {
        if (copies.none()) return scans;
        var checks = new ArrayList<ShardQuery>();
        for (var q : scans) checks.add(new ShardQuery(q.partition(), copies.checkSql(q.partition()), List.of()));
        boolean any = false;
        for (RowSource answer : shards.query(checks)) {
            try (RowSource rows = answer) {
                if (rows.next() != null) any = true;
            }
        }
        return any ? copies.scansWithoutCopies(scans) : scans;
    }

    private static final Pattern WEIGHT_STRING = Pattern.compile("(?i)\\bWEIGHT_STRING\\s*\\(");
    private static final Pattern TYPE_AT_END = Pattern.compile("(?i) AS (?:CHAR|BINARY)\\(\\d+\\)$");

    /**
     * MariaDB's sort keys the scatter planner adds ({@code WEIGHT_STRING(MAX(s) AS CHAR(20))}), which the SQL parser does
     * not read: the type blanked, each character where it was, in the copy it parses. The call's end is found by its
     * parentheses, so an argument with calls of its own is blanked too.
     */
    static void blankWeightStringTypes(StringBuilder sql) {
        var call = WEIGHT_STRING.matcher(sql);
        int from = 0;
        while (call.find(from)) {
            int depth = 0, end = -1;
            for (int i = call.end() - 1; i < sql.length() && end < 0; i++) {
                char c = sql.charAt(i);
                if (c == '\'' || c == '"' || c == '`') {
                    int close = sql.indexOf(String.valueOf(c), i + 1);
                    if (close < 0) return;
                    i = close;
                } else if (c == '(') {
                    depth++;
                } else if (c == ')' && --depth == 0) {
                    end = i;
                }
            }
            if (end < 0) return;
            var type = TYPE_AT_END.matcher(sql.subSequence(call.end(), end));
            if (type.find()) for (int i = call.end() + type.start(); i < call.end() + type.end(); i++) sql.setCharAt(i, ' ');
            from = end;
        }
    }

    /**
     * The scan with each reference to a table of the group replaced by a derived table of the same name (or
     * alias) that leaves the copies out ({@code FROM (SELECT * FROM t WHERE key NOT IN (...)) AS t}, which
     * MariaDB merges into the query; {@code (... FOR UPDATE) AS t} where a locking SELECT reads t). The parser
     * gives each reference's place in the text, so only the references change: the rest of the statement is
     * sent as it was. Refused where that is not certain:
     * a statement the parser does not read, a CTE named as a table of the group, or a name of the group
     * standing anywhere outside a string but where a table is read (an alias or a qualifier that the
     * derived table would change the meaning of is refused, not guessed).
     */
    static String withoutCopies(String sql, String owner, Map<String, String> groupColumns, String partitionName) throws SQLException {
        if (namesACte(sql, groupColumns)) throw refusal(owner, "a CTE named as a table of the group");
        var references = new ArrayList<int[]>(); // [begin, end) of each reference in sql, and the index of its replacement
        var replacements = new ArrayList<String>();
        try {
            String parseable = org.lutra.sql.LockInShareMode.forParser(sql); // (the parser reads it as FOR SHARE; same length)
            if (parseable == null) parseable = sql;
            var blanked = new StringBuilder(parseable);
            blankWeightStringTypes(blanked);
            if (!(CCJSqlParserUtil.parse(blanked.toString(), p -> p.withBackslashEscapeCharacter(true)) instanceof Select select)) throw refusal(owner, null);
            var labels = labelSpans(select);
            var locked = new IdentityHashMap<Table, String>(); // each table a locking SELECT reads in its own FROM, and its clause
            new TableFinder() {
                @Override
                public <S> Void visit(PlainSelect plain, S context) {
                    try {
                        String clause = org.lutra.sql.LockInShareMode.clause(plain);
                        org.lutra.sql.LockedTables.of(plain, t -> locked.put(t, clause));
                    } catch (org.lutra.sql.PlanException e) {
                        throw new IllegalStateException(e); // refused below
                    }
                    return super.visit(plain, context); // (its tables are visited after this)
                }

                @Override
                public <S> Void visit(Table table, S context) {
                    String column = groupColumns.get(unquote(table.getName()).toLowerCase(java.util.Locale.ROOT));
                    if (column != null && table.getSchemaName() == null) {
                        var node = table.getASTNode();
                        if (node == null) throw new IllegalStateException("no place in the text for " + table);
                        int begin = node.jjtGetFirstToken().absoluteBegin - 1, end = node.jjtGetLastToken().absoluteEnd - 1;
                        if (labels.stream().anyMatch(l -> l[0] <= begin && end <= l[1])) {
                            // inside a result column's text, which MariaDB makes its label: left as it is. Exact all the same:
                            // a subquery there runs in place only when it meets the outer row on the group's key (else it runs
                            // first, on its own), and the outer row is read at its primary only
                            references.add(new int[] {begin, end, -1});
                            return super.visit(table, context);
                        }
                        String name = unquote(table.getName());
                        String quoted = "`" + name + "`";
                        // a locking SELECT's clause does not reach the rows of a derived table in its FROM (MariaDB locks the rows of
                        // its own tables only): the derived table must lock them itself, or the read waits for nothing
                        String lock = locked.containsKey(table) ? " " + locked.get(table) : "";
                        replacements.add("(SELECT * FROM " + quoted + " WHERE " + PlacementRows.notACopy(owner, "`" + column + "`", partitionName) + lock + ") "
                                + (table.getAlias() != null && table.getAlias().getName() != null ? table.getAlias().getName() : quoted));
                        references.add(new int[] {begin, end, replacements.size() - 1});
                    } else if (column != null) {
                        throw new IllegalStateException("a schema-qualified table of the group");
                    }
                    return super.visit(table, context);
                }
            }.getTables((Statement) select);
        } catch (JSQLParserException | IllegalStateException | IndexOutOfBoundsException e) {
            throw refusal(owner, null);
        }
        if (references.stream().noneMatch(r -> r[2] >= 0) || references.size() != mentions(sql, groupColumns)) throw refusal(owner, null);
        references.sort(java.util.Comparator.comparingInt(r -> r[0]));
        var out = new StringBuilder();
        int at = 0;
        for (int[] r : references) {
            if (r[0] < at || !startsWithName(sql.substring(r[0], r[1]), groupColumns)) throw refusal(owner, null);
            if (r[2] < 0) continue; // left in its result column's label
            out.append(sql, at, r[0]).append(replacements.get(r[2]));
            at = r[1];
        }
        return out.append(sql, at, sql.length()).toString();
    }

    /** The places [begin, end) of the result columns without an alias, whose text MariaDB makes their labels (the first SELECT's, of a UNION). */
    private static List<int[]> labelSpans(Select select) {
        var out = new ArrayList<int[]>();
        Select first = select;
        while (first instanceof net.sf.jsqlparser.statement.select.SetOperationList list && !list.getSelects().isEmpty()) first = list.getSelects().getFirst();
        while (first instanceof net.sf.jsqlparser.statement.select.ParenthesedSelect p && p.getSelect() != null) first = p.getSelect();
        if (first instanceof net.sf.jsqlparser.statement.select.PlainSelect plain) {
            for (var item : plain.getSelectItems()) {
                var node = item.getASTNode();
                if (item.getAlias() == null && node != null) out.add(new int[] {node.jjtGetFirstToken().absoluteBegin - 1, node.jjtGetLastToken().absoluteEnd - 1});
            }
        }
        return out;
    }

    /** Whether a WITH item of the statement, at any depth, has the name of a table of the group (the text without strings). */
    private static boolean namesACte(String sql, Map<String, String> groupColumns) {
        String text = String.join(" ", words(sql));
        for (String name : groupColumns.keySet()) {
            if (Pattern.compile("(?i)(?:\\bWITH (?:RECURSIVE )?|, )" + Pattern.quote(name) + " (?:\\( [^()]*\\) )?AS \\(").matcher(text).find()) return true;
        }
        return false;
    }

    /** How often a name of the group stands in the text outside strings and comments, as a word of its own, not a qualifier ({@code t.c}). */
    private static int mentions(String sql, Map<String, String> groupColumns) {
        var words = words(sql);
        int n = 0;
        for (int i = 0; i < words.size(); i++) {
            if (groupColumns.containsKey(words.get(i).toLowerCase(java.util.Locale.ROOT)) && !(i + 1 < words.size() && words.get(i + 1).equals("."))) n++;
        }
        return n;
    }

    /**
     * The statement's words (names unquoted), punctuation as words of one character, strings and comments left out:
     * enough to find where a name stands.
     */
    public static List<String> words(String sql) {
        var out = new ArrayList<String>();
        int i = 0, n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int j = i + 1;
                while (j < n) {
                    char d = sql.charAt(j);
                    if (d == '\\') j += 2;
                    else if (d == c && j + 1 < n && sql.charAt(j + 1) == c) j += 2;
                    else if (d == c) break;
                    else j++;
                }
                out.add("''");
                i = j + 1;
            } else if (c == '`') {
                var name = new StringBuilder();
                int j = i + 1;
                while (j < n && !(sql.charAt(j) == '`' && !(j + 1 < n && sql.charAt(j + 1) == '`'))) {
                    name.append(sql.charAt(j));
                    j += sql.charAt(j) == '`' ? 2 : 1;
                }
                out.add(name.toString());
                i = j + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '#' || (c == '-' && sql.startsWith("-- ", i))) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '$') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_' || sql.charAt(j) == '$')) j++;
                out.add(sql.substring(i, j));
                i = j;
            } else {
                if (!Character.isWhitespace(c)) out.add(String.valueOf(c));
                i++;
            }
        }
        return out;
    }

    private static boolean startsWithName(String reference, Map<String, String> groupColumns) {
        var m = Pattern.compile("^(?:`([^`]*)`|([\\w$]+))").matcher(reference);
        return m.find() && groupColumns.containsKey((m.group(1) != null ? m.group(1) : m.group(2)).toLowerCase(java.util.Locale.ROOT));
    }

    private static SQLException refusal(String owner, String why) {
        return new SQLException("Lutra does not support this statement while keys of " + owner + " are replicated (SET PARTITION = (p1, p2))"
                + (why != null ? ": " + why : ": the router could not find for certain every place it reads a table of the group")
                + "; pin the routing column or un-replicate the keys", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
    }

    private static String unquote(String name) {
        return name.startsWith("`") && name.endsWith("`") ? name.substring(1, name.length() - 1) : name;
    }
}
