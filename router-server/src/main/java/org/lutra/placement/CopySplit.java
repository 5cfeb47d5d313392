package org.lutra.placement;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.update.Update;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;

/**
 * An UPDATE or DELETE that names no keys, in a lookup group with replicated keys: each partition runs it
 * twice, once on the rows that are not a copy of a key whose primary is elsewhere (counted: every row
 * once, a replicated key's at its primary) and once on those copies (changed alike, not counted). Both
 * go to every partition in one transaction with the mark ({@code exec.ReplicaWrites}), so every copy of a
 * replicated key gets the same change, and the count is one database's.
 */
public final class CopySplit {
    private CopySplit() {}

    /** {@code sql} (a single-table UPDATE or DELETE) restricted to the rows that are not copies kept for another primary: the counted run. */
    public static String ownRows(String sql, String owner, String column, String partitionName) throws SQLException {
        return restricted(sql, owner, column, partitionName, false);
    }

    /** {@code sql} (a single-table UPDATE or DELETE) restricted to the copies kept for another primary: the run not counted. */
    public static String copiedRows(String sql, String owner, String column, String partitionName) throws SQLException {
        return restricted(sql, owner, column, partitionName, true);
    }

    private static String restricted(String sql, String owner, String column, String partitionName, boolean copies) throws SQLException {
        Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(sql, p -> p.withBackslashEscapeCharacter(true));
        } catch (JSQLParserException e) {
            throw refusal(sql);
        }
        Table table;
        Expression where;
        if (statement instanceof Update u && empty(u.getJoins()) && empty(u.getStartJoins()) && u.getFromItem() == null) {
            table = u.getTable();
            where = u.getWhere();
        } else if (statement instanceof Delete d && empty(d.getJoins()) && empty(d.getTables()) && empty(d.getUsingList())) {
            table = d.getTable();
            where = d.getWhere();
        } else {
            throw refusal(sql);
        }
        String qualifier = table.getAlias() != null && table.getAlias().getName() != null ? table.getAlias().getName() : "`" + unquote(table.getName()) + "`";
        String notACopy = PlacementRows.notACopy(owner, qualifier + ".`" + column + "`", partitionName);
        String condition = copies ? "NOT " + notACopy : notACopy; // (notACopy is parenthesized)
        Expression restriction;
        try {
            restriction = CCJSqlParserUtil.parseCondExpression(condition);
        } catch (JSQLParserException e) {
            throw new IllegalStateException("the copies' condition does not parse: " + condition, e);
        }
        Expression next = where == null ? restriction
                : new AndExpression(new net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<>(where), restriction);
        if (statement instanceof Update u) u.setWhere(next);
        else ((Delete) statement).setWhere(next);
        return statement.toString();
    }

    private static boolean empty(java.util.List<?> list) {
        return list == null || list.isEmpty();
    }

    private static String unquote(String name) {
        return name.startsWith("`") && name.endsWith("`") ? name.substring(1, name.length() - 1) : name;
    }

    private static SQLException refusal(String sql) {
        return new SQLException("Lutra does not support this write while keys of its table are replicated (SET PARTITION = (p1, p2)): only a"
                + " single-table UPDATE or DELETE reaches every copy of their rows other than by key", Refusal.SQL_STATE, Refusal.VENDOR_CODE);
    }
}
