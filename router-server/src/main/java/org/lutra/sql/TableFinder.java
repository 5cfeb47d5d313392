package org.lutra.sql;

import net.sf.jsqlparser.expression.operators.relational.IsUnknownExpression;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * JSQLParser's {@link TablesNamesFinder}, which the router relies on to know every table a
 * statement reads (where it may run, what the fallback copies, what it locks), with the node
 * JSQLParser 5.4's finder does not look into: {@code x IS [NOT] UNKNOWN}, whose operand may hold a
 * subquery. Missing its table, the fallback ran the statement on a partition where that table
 * holds only part of its rows (or none, or is not there).
 */
public class TableFinder extends TablesNamesFinder<Void> {
    @Override
    public <S> Void visit(IsUnknownExpression unknown, S context) {
        unknown.getLeftExpression().accept(this, context);
        return null;
    }
}
