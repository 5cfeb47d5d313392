package org.lutra.server.mysql;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import org.lutra.catalog.Catalog;

import java.util.ArrayList;
import java.util.List;

/**
 * The result columns a COM_STMT_PREPARE answer announces: the router plans a statement at its first
 * execution, whose answer carries the real definitions, but clients such as libmysqlclient's
 * (sysbench) decide at prepare time whether a statement returns rows. So a SELECT's columns are
 * named here from its select list (a {@code *} from the catalog's tables), as strings; anything the
 * parser or the catalog cannot tell announces no columns, as MySQL does for statements whose
 * columns it cannot know before execution.
 */
final class PrepareColumns {
    private PrepareColumns() {}

    /** The column names, or an empty list when the statement returns no rows or they cannot be told. */
    static List<String> of(String sql, Catalog catalog) {
        try {
            if (!(CCJSqlParserUtil.parse(sql) instanceof Select select)) return List.of();
            return names(select, catalog);
        } catch (Exception | StackOverflowError e) {
            return List.of(); // the execution reports what is wrong with the statement
        }
    }

    private static List<String> names(Select select, Catalog catalog) {
        if (select instanceof SetOperationList union) return names(union.getSelects().get(0), catalog);
        if (!(select instanceof PlainSelect plain)) return List.of();
        var names = new ArrayList<String>();
        for (var item : plain.getSelectItems()) {
            var e = item.getExpression();
            if (e instanceof AllTableColumns t) {
                if (!columnsOf(t.getTable(), catalog, names)) return List.of();
            } else if (e instanceof AllColumns) {
                if (!columnsOf(plain.getFromItem(), catalog, names)) return List.of();
                if (plain.getJoins() != null) {
                    for (var join : plain.getJoins()) if (!columnsOf(join.getRightItem(), catalog, names)) return List.of();
                }
            } else {
                Alias alias = item.getAlias();
                String name = alias != null ? alias.getName() : e instanceof net.sf.jsqlparser.schema.Column c ? c.getColumnName() : e.toString();
                names.add(unquote(name));
            }
        }
        return names;
    }

    private static boolean columnsOf(FromItem from, Catalog catalog, List<String> names) {
        if (!(from instanceof Table table)) return false;
        var def = catalog.table(unquote(table.getName()));
        if (def == null) return false;
        for (var c : def.columns()) names.add(c.name());
        return true;
    }

    private static String unquote(String name) {
        return name.length() > 1 && (name.startsWith("`") && name.endsWith("`") || name.startsWith("\"") && name.endsWith("\""))
                ? name.substring(1, name.length() - 1) : name;
    }
}
