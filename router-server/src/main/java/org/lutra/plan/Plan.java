package org.lutra.plan;

import org.lutra.catalog.TableDef;

import java.util.List;

/**
 * What the planner makes of one SQL text, once; executed many times with different parameters.
 * Plans are immutable and shared between sessions through the plan cache.
 */
public sealed interface Plan {
    /** How many '?' the statement has; Execute must bind exactly that many. */
    int paramCount();

    /**
     * SELECT, UPDATE or DELETE on one table.
     *
     * @param sql        the whole statement as sent to a partition (schema qualifiers removed)
     * @param keys       what the WHERE clause pins the routing column to, or null (broadcast)
     * @param query      true for SELECT (rows), false for UPDATE/DELETE (counts)
     * @param mergeNeed  null when rows (or counts) from several partitions simply concatenate (add up);
     *                   else what would need router-side merging ("ORDER BY", "COUNT(*)", ...)
     * @param limit      a LIMIT row count to re-apply over several partitions, or -1
     */
    record Routed(TableDef table, String sql, KeyMatch keys, boolean query, String mergeNeed, long limit, int paramCount)
            implements Plan {}

    /**
     * INSERT ... VALUES with one row per item of {@code rows}.
     *
     * @param keyPerRow the routing column's value in each row (empty for replicated tables)
     */
    record Insert(TableDef table, SqlTemplate rows, List<ValueRef> keyPerRow, int paramCount) implements Plan {}

    /** A statement that touches no table (SELECT 1, SELECT NOW()): any one partition answers it. */
    record AnyPartition(String sql, int paramCount) implements Plan {}

    /** SHOW LUTRA STATUS: the router's own counters, answered without any partition. */
    record RouterStatus() implements Plan {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /** Transaction control: the session handles these, they never reach a partition. */
    sealed interface Control extends Plan {
        @Override
        default int paramCount() {
            return 0;
        }
    }

    /** BEGIN / START TRANSACTION [READ ONLY | READ WRITE | WITH CONSISTENT SNAPSHOT]. */
    record Begin(boolean readOnly) implements Control {}

    record Commit() implements Control {}

    record Rollback() implements Control {}

    /** SET autocommit = 0 | 1. */
    record SetAutocommit(boolean on) implements Control {}

    /**
     * SET [SESSION] TRANSACTION ISOLATION LEVEL ...
     *
     * @param level      a java.sql.Connection.TRANSACTION_* level
     * @param forSession SESSION: every later transaction; without it, the next transaction only
     */
    record SetIsolation(int level, boolean forSession) implements Control {}
}
