package org.lutra.sql;

import java.util.List;

/**
 * An INSERT into a table with an AUTO_INCREMENT column, as the planner prepared it for the
 * router's id allocator: where the column omitted its value, or gave NULL or DEFAULT (or the
 * literal 0, which MySQL also takes for "generate", unless NO_AUTO_VALUE_ON_ZERO), the statement
 * sent to the partitions has a parameter of its own that the router fills with a new id before
 * routing — so the row is routed by its id like any other row.
 *
 * <p>Parameter positions here count the statement as sent to partitions: the client's
 * parameters with the added ones in between ({@link #added}, ascending).
 *
 * @param column  the AUTO_INCREMENT column
 * @param perRow  each row's value for it: a parameter (an added one, or the client's, which may
 *                be NULL or 0 at execution and then gets an id too), or an explicit literal
 * @param added   positions of the parameters the router added
 * @param ignore  INSERT IGNORE: a row may be skipped (then it got no id)
 * @param upsert  ON DUPLICATE KEY UPDATE: a row may update another instead of being inserted
 */
public record AutoFill(String column, List<ValueRef> perRow, int[] added, boolean ignore, boolean upsert) {
    /** How many parameters the statement sent to partitions has for {@code clientParams} of the client's. */
    public int sentParams(int clientParams) {
        return clientParams + added.length;
    }
}
