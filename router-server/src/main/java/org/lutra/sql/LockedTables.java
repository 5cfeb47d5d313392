package org.lutra.sql;

import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.PlainSelect;

import java.util.List;
import java.util.function.Consumer;

/**
 * Which tables a locking read locks, as MariaDB decides it: a SELECT's {@code FOR UPDATE} or {@code LOCK IN SHARE MODE}
 * locks the rows of the tables in its own FROM and JOINs (nested joins in parentheses too), not those of a derived table or
 * a subquery there, which are read without locks unless they carry a clause of their own; a UNION's clause belongs to its
 * last SELECT. (Checked on MariaDB 11.4: with another transaction holding a row FOR UPDATE, {@code SELECT SUM(b) FROM (SELECT
 * * FROM t) d FOR UPDATE}, {@code ... WHERE x IN (SELECT id FROM t) FOR UPDATE} and the UNION's first SELECT answer at once.)
 * In a SERIALIZABLE transaction InnoDB locks every read, wherever it stands.
 */
public final class LockedTables {
    private LockedTables() {}

    /** Each table whose rows {@code select}'s own locking clause locks; none for a plain read. */
    public static void of(PlainSelect select, Consumer<Table> each) throws PlanException {
        if (LockInShareMode.clause(select) != null) readDirectly(select.getFromItem(), select.getJoins(), each);
    }

    /** The tables read directly in {@code from} and {@code joins}: nested joins in parentheses too, not derived tables or subqueries. */
    public static void readDirectly(FromItem from, List<Join> joins, Consumer<Table> each) {
        if (from instanceof Table t) each.accept(t);
        if (from instanceof ParenthesedFromItem nested) readDirectly(nested.getFromItem(), nested.getJoins(), each);
        if (joins != null) for (Join j : joins) readDirectly(j.getFromItem(), null, each);
    }
}
