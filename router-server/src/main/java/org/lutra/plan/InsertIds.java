package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.insert.Insert;
import org.lutra.catalog.AutoIncrementColumn;
import org.lutra.catalog.TableDef;
import org.lutra.sql.AutoFill;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.SqlTemplate;
import org.lutra.sql.ValueRef;

import java.util.ArrayList;
import java.util.List;

/**
 * Prepares an INSERT into a table with an AUTO_INCREMENT column for the router's id allocator
 * ({@link AutoFill}): an omitted column is added to the column list, and where a row's value is
 * missing, NULL, DEFAULT or the literal 0 the row gets a parameter of its own that the router
 * fills with a new id. After the rows are cut into a {@link SqlTemplate}, {@link #fill} tells
 * where each row's value is among the parameters as sent to partitions.
 */
final class InsertIds {
    private final String column;
    /** Per row: the index of the AUTO_INCREMENT column's expression. */
    private final int index;
    /** Per row: whether the router put a parameter of its own there. */
    private final boolean[] added;
    private final boolean ignore;
    private final boolean upsert;

    private InsertIds(String column, int index, boolean[] added, boolean ignore, boolean upsert) {
        this.column = column;
        this.index = index;
        this.added = added;
        this.ignore = ignore;
        this.upsert = upsert;
    }

    /** Rewrites {@code insert} (its column list) and {@code rows} in place; null if the table has no AUTO_INCREMENT column. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static InsertIds prepare(TableDef table, Insert insert, List<ExpressionList<?>> rows) throws PlanException {
        String column = AutoIncrementColumn.of(table);
        if (column == null) return null;
        int index = indexIn(table, insert, column);
        boolean appended = index < 0;
        if (appended) {
            insert.getColumns().add(new Column("`" + column.replace("`", "``") + "`"));
            index = insert.getColumns().size() - 1;
        }
        boolean[] added = new boolean[rows.size()];
        for (int r = 0; r < rows.size(); r++) {
            List row = rows.get(r);
            if (row.size() < index + (appended ? 0 : 1) || appended && row.size() != index) {
                throw new PlanException("21S01", 1136, "Column count doesn't match value count at row " + (r + 1));
            }
            if (appended) {
                row.add(new JdbcParameter());
                added[r] = true;
            } else if (generates((Expression) row.get(index))) {
                row.set(index, new JdbcParameter());
                added[r] = true;
            } else if (KeyFinder.valueRef((Expression) row.get(index)) == null
                    && !(row.get(index) instanceof JdbcParameter)) {
                throw PlanException.unsupported("computed values for the AUTO_INCREMENT column " + table.name() + "." + column
                        + " in INSERT (found " + row.get(index) + "); give a literal, a parameter, NULL or DEFAULT, or leave the column out");
            }
        }
        var ids = new InsertIds(column, index, added, insert.isModifierIgnore(), insert.getDuplicateUpdateSets() != null);
        ids.refuseUnmatchable(table, rows.size());
        return ids;
    }

    /**
     * What one MySQL would answer but the router cannot: which rows of a multi-row INSERT IGNORE
     * were skipped (their ids would be reported for rows that are not there), and whether an ON
     * DUPLICATE KEY UPDATE row inserted or updated (MySQL's last insert id is then another row's).
     */
    private void refuseUnmatchable(TableDef table, int rowCount) throws PlanException {
        boolean generates = false;
        for (boolean a : added) generates |= a;
        if (generates && upsert) {
            throw PlanException.unsupported("INSERT ... ON DUPLICATE KEY UPDATE into " + table.name() + " with an id the router generates ("
                    + column + " is AUTO_INCREMENT); give the id, or INSERT and UPDATE separately");
        }
        if (generates && ignore && rowCount > 1) {
            throw PlanException.unsupported("INSERT IGNORE of several rows into " + table.name() + " with ids the router generates ("
                    + column + " is AUTO_INCREMENT): it could not tell which rows got their id; insert them one by one");
        }
    }

    /** Where the column's values are among the parameters of the statement {@code template} renders. */
    AutoFill fill(List<ExpressionList<?>> rows, SqlTemplate template) {
        var perRow = new ArrayList<ValueRef>(rows.size());
        var positions = new ArrayList<Integer>();
        for (int r = 0; r < rows.size(); r++) {
            ValueRef ref = position(rows.get(r), index, template.firstParamOf(r));
            perRow.add(ref);
            if (added[r]) positions.add(((ValueRef.Param) ref).index());
        }
        return new AutoFill(column, perRow, positions.stream().mapToInt(Integer::intValue).toArray(), ignore, upsert);
    }

    int addedCount() {
        int n = 0;
        for (boolean a : added) if (a) n++;
        return n;
    }

    /**
     * The value of {@code row}'s {@code column}-th expression: a literal, or the parameter at its
     * position in the rendered statement ({@code firstParam} is the row's first). Positions, not the
     * parser's indexes: the parameters the router adds shift those after them.
     */
    static ValueRef position(ExpressionList<?> row, int column, int firstParam) {
        if (!(row.get(column) instanceof JdbcParameter)) {
            ValueRef ref = KeyFinder.valueRef((Expression) row.get(column));
            if (!(ref instanceof ValueRef.Param)) return ref;
        }
        int before = 0;
        for (int i = 0; i < column; i++) before += ParamCounter.count(row.get(i).toString());
        return new ValueRef.Param(firstParam + before);
    }

    private static boolean generates(Expression e) {
        return e instanceof NullValue
                || e instanceof LongValue l && l.getValue() == 0
                || e instanceof Column c && c.getTable() == null && c.getColumnName().equalsIgnoreCase("DEFAULT");
    }

    /** The column's index in the INSERT's rows, or -1 if its column list leaves it out. */
    private static int indexIn(TableDef table, Insert insert, String column) {
        var columns = insert.getColumns();
        if (columns == null || columns.isEmpty()) {
            for (int i = 0; i < table.columns().size(); i++) {
                if (table.columns().get(i).name().equalsIgnoreCase(column)) return i;
            }
            return -1; // not reached: the AUTO_INCREMENT column is one of the table's
        }
        for (int i = 0; i < columns.size(); i++) {
            if (KeyFinder.unquote(columns.get(i).getColumnName()).equalsIgnoreCase(column)) return i;
        }
        return -1;
    }
}
