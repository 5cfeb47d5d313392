package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

import org.lutra.sql.PlanException;

import java.util.HashSet;
import java.util.Locale;

/**
 * The order of an UPDATE's assignments where its WHERE holds an {@code IN} or {@code EXISTS} subquery that the router runs
 * first. One MariaDB (11.4) turns such a single-table UPDATE into its multi-table form to join the subquery (a semi-join),
 * and the multi-table form evaluates every assignment with the row's values from before the statement; the single-table
 * UPDATE evaluates them left to right, each seeing the ones before. With the subquery's values bound in, the statement the
 * partitions get is single-table: {@code SET dt = '2024-06-01', a = DAYOFMONTH(dt)} would give {@code a} the new date's day
 * where one MariaDB gives it the old one's. Which form MariaDB picks depends on the subquery's shape (semi-join rules), so
 * an UPDATE whose answer depends on it — an assignment that reads a column an earlier one sets — is refused.
 */
final class AssignmentOrder {
    private AssignmentOrder() {}

    static void requireIndependent(Update update) throws PlanException {
        var assigned = new HashSet<String>();
        for (UpdateSet set : update.getUpdateSets()) {
            for (Object v : set.getValues()) {
                if (!(v instanceof Expression e)) continue;
                String read = firstRead(e, assigned);
                if (read != null) {
                    throw PlanException.unsupported("UPDATE whose SET reads " + read + " after an earlier assignment sets it, with an IN or EXISTS"
                            + " subquery in WHERE that the router runs first: one MariaDB evaluates such an UPDATE's assignments either left to"
                            + " right or all with the old values, as its plan for the subquery decides; set " + read + " last, or assign from the"
                            + " old value in a statement of its own");
                }
            }
            for (Column c : set.getColumns()) assigned.add(name(c));
        }
    }

    /** The first column {@code e} reads that is in {@code assigned}, or null. */
    private static String firstRead(Expression e, java.util.Set<String> assigned) {
        String[] found = {null};
        e.accept(new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Column c, S context) {
                if (found[0] == null && assigned.contains(name(c))) found[0] = c.getColumnName();
                return null;
            }
        }, null);
        return found[0];
    }

    private static String name(Column c) {
        return KeyFinder.unquote(c.getColumnName()).toLowerCase(Locale.ROOT);
    }
}
