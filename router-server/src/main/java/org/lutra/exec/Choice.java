package org.lutra.exec;

import java.sql.SQLException;

/**
 * An operator that runs one of its inputs, picked per execution from the parameters' values (where the keys
 * live): EXPLAIN ROUTE draws the one that would run.
 */
public interface Choice extends Operator {
    /** The input that runs for {@code ctx}'s values; resolving it may read home rows (not while explaining). */
    Operator chosen(Context ctx) throws SQLException;
}
