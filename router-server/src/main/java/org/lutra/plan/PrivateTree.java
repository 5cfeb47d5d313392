package org.lutra.plan;

import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.update.Update;
import org.lutra.sql.PlanException;

/**
 * The tree a rewriting planner works on: {@link ScatterPlanner} turns the select list into the partitions' columns and
 * widens the LIMIT, {@link SubqueryPlanner} puts markers where the subqueries were (a SELECT's, and an UPDATE's or
 * DELETE's whose subqueries run first). Each rewrites a copy of its own,
 * parsed again from the text the caller's tree prints, so the caller's tree stays the statement as planned so far:
 * whatever prints it later (another way of planning the statement, the SQL a partition gets whole) prints that, in
 * whatever order the ways ran. The copy costs one more parse when a plan is made, nothing when a cached plan runs.
 */
final class PrivateTree {
    private PrivateTree() {}

    /**
     * A copy of {@code select}. A tree whose text does not parse back into a SELECT (JSQLParser prints a few trees it
     * cannot read) is a shape the rewriting planners do not take: refused, so that another way may answer.
     */
    static PlainSelect of(PlainSelect select) throws PlanException {
        return copy(select).orThrow();
    }

    /** As {@link #of}, a tree that does not parse back answered as not applicable. */
    static Attempt<PlainSelect> copy(PlainSelect select) {
        String text = select.toString();
        net.sf.jsqlparser.statement.Statement copy;
        try {
            copy = Parsing.parse(text, Planner.Limits.defaults().parseTimeoutMillis());
        } catch (PlanException unreadable) { // the parser's answer to text it cannot read: its exception
            return Attempt.notApplicable(PlanException.unsupported("this statement's shape over several partitions yet"));
        }
        if (copy instanceof PlainSelect plain) return Attempt.planned(plain);
        return Attempt.notApplicable(PlanException.unsupported("this statement's shape over several partitions yet"));
    }

    /**
     * A copy of {@code write}, an UPDATE or a DELETE. A tree whose text does not parse back into the same kind of statement
     * is a shape the subquery planner does not take: refused.
     */
    static Statement ofWrite(Statement write) throws PlanException {
        if (!(write instanceof Update || write instanceof Delete)) throw new IllegalArgumentException("not an UPDATE or DELETE: " + write);
        Statement copy;
        try {
            copy = Parsing.parse(write.toString(), Planner.Limits.defaults().parseTimeoutMillis());
        } catch (PlanException unreadable) {
            throw PlanException.unsupported("this statement's shape with subqueries yet");
        }
        if (copy.getClass() == write.getClass()) return copy;
        throw PlanException.unsupported("this statement's shape with subqueries yet");
    }
}
