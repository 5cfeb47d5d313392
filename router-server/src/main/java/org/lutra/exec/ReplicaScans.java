package org.lutra.exec;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.util.TablesNamesFinder;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Scans of a lookup group's table — sub-queries that do not name their keys — when some key of the
 * group is replicated (its rows on several partitions, see {@link ReplicaWrites}): each replicated
 * key is counted at its primary (the first partition its placement row names) and left out on the
 * others, so that a COUNT, a SUM or a plain list sees every row once.
 *
 * <p>Per scan, each partition is asked first whether it holds a replicated key's placement row (an
 * indexed-free read of the group's small placement table). None anywhere: the scan runs as written.
 * Otherwise a single-table SELECT reads its table through a derived table without the copies here; any
 * other scan (a join, a subquery) is refused, since leaving out copies there is not yet done.
 *
 * <p>The question must be asked in the snapshot the scan reads in: asked before it, a replication that
 * commits in between puts copies into the read that the scan does not leave out (counted twice). A fenced
 * scan ({@link FencedScan}) asks it on each partition's snapshot; inside a transaction (REPEATABLE READ)
 * the transaction's connection is that snapshot.
 */
final class ReplicaScans {
    private ReplicaScans() {}

    /** One scan's question and rewrite: the table it reads, and the shards that name its partitions. */
    record Copies(TableDef table, Partitioning.LookedUp lookup, Shards names) {
        /** Whether a partition holds a replicated key of the group (SQL, no parameters; a row: yes). */
        String checkSql() {
            return PlacementRows.anyReplicatedSql(lookup.owner());
        }

        /** The scans as written when no partition answered yes, else each without the copies of keys whose primary is elsewhere. */
        List<ShardQuery> apply(List<ShardQuery> scans, boolean anyReplicated) throws SQLException {
            if (!anyReplicated) return scans;
            var out = new ArrayList<ShardQuery>(scans.size());
            for (var q : scans) out.add(new ShardQuery(q.partition(), withoutCopies(q.sql(), table, lookup, names.partitionName(q.partition())), q.params()));
            return out;
        }
    }

    /** The check and the rewrite on {@code shards}' own connections: exact where those connections are the read's snapshot. */
    static List<ShardQuery> filter(Shards shards, Copies copies, List<ShardQuery> scans) throws SQLException {
        var checks = new ArrayList<ShardQuery>();
        for (var q : scans) checks.add(new ShardQuery(q.partition(), copies.checkSql(), List.of()));
        boolean any = false;
        for (RowSource answer : shards.query(checks)) {
            try (RowSource rows = answer) {
                if (rows.next() != null) any = true;
            }
        }
        return copies.apply(scans, any);
    }

    /** MariaDB's sort keys the scatter planner adds, which the SQL parser does not read: taken out of the copy it reads. */
    private static final Pattern WEIGHT_STRING = Pattern.compile("(?i)WEIGHT_STRING\\(([^()]*?) AS (?:CHAR|BINARY)\\(\\d+\\)\\)");

    /**
     * The scan with its table replaced by a derived table of the same name that leaves the copies out
     * ({@code FROM (SELECT * FROM t WHERE key NOT IN (...)) AS t}, which MariaDB merges into the query); refused
     * unless it is a single-table SELECT that names its table once.
     */
    static String withoutCopies(String sql, TableDef table, Partitioning.LookedUp lookup, String partitionName) throws SQLException {
        PlainSelect select = null;
        int tables = 0;
        try {
            String shareMode = org.lutra.plan.LockInShareMode.forParser(sql); // (the parser reads it as FOR SHARE)
            if (CCJSqlParserUtil.parse(WEIGHT_STRING.matcher(shareMode != null ? shareMode : sql).replaceAll("WEIGHT_STRING($1)"), p -> p.withBackslashEscapeCharacter(true))
                    instanceof PlainSelect s) {
                select = s;
                tables = new TablesNamesFinder<Void>().getTables((Statement) s).size();
            }
        } catch (JSQLParserException e) {
            select = null;
        }
        var from = Pattern.compile("(?i)\\bFROM\\s+(`?)" + Pattern.quote(table.name()) + "\\1(?![\\w$`.])").matcher(sql);
        int at = from.find() ? from.start() : -1;
        int end = at >= 0 ? from.end() : -1;
        boolean once = at >= 0 && !from.find();
        if (select == null || tables != 1 || !once || !(select.getFromItem() instanceof Table named) || (select.getJoins() != null && !select.getJoins().isEmpty())
                || !unquote(named.getName()).equalsIgnoreCase(table.name())) {
            throw new SQLException("Lutra does not support this statement over " + table.name() + " while keys of " + lookup.owner()
                    + " are replicated (SET PARTITION = (p1, p2)): over several partitions only a single-table SELECT leaves out the copies;"
                    + " pin the routing column '" + table.partitioning().column() + "' or un-replicate the keys", org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
        }
        String quoted = "`" + table.name() + "`";
        String derived = "FROM (SELECT * FROM " + quoted + " WHERE " + PlacementRows.notACopy(lookup.owner(), "`" + table.partitioning().column() + "`", partitionName)
                + ")" + (named.getAlias() != null ? "" : " AS " + quoted);
        return sql.substring(0, at) + derived + sql.substring(end);
    }

    private static String unquote(String name) {
        return name.startsWith("`") && name.endsWith("`") ? name.substring(1, name.length() - 1) : name;
    }
}
