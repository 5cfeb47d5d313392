package org.lutra.exec;

import org.lutra.catalog.Partitioning;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

/**
 * The one interface through which the engine reports what it did to an operator's monitoring
 * (org.lutra.ops: metrics, hot keys, the slow-statement log). Only events nothing else counts come
 * through here: what {@link Stats}, {@link LookupCounters} and the transaction counters already
 * count is read from them, not counted twice.
 *
 * <p>The engine calls it unconditionally; with monitoring off it is {@link #NONE}, whose methods do
 * nothing (HikariCP's no-op tracker: no "if enabled" on the hot path). Implementations are called
 * from every session thread at once and must not block or throw.
 */
public interface RouterMetrics {
    RouterMetrics NONE = new RouterMetrics() {};

    /**
     * A client statement ended: answered ({@code error} null), refused or failed ({@code error}).
     *
     * @param plan         its plan, or null where it failed before one was made (or a batch ran)
     * @param sql          its text as the client sent it (never a label: logs only)
     * @param params       its parameter values (logged only where the config allows)
     * @param partitions   the partitions it ran on (0 where none or unknown)
     * @param nanos        its time in the router, from the request to the reply
     * @param backendNanos the part of {@code nanos} during which at least one backend statement of it was running
     */
    default void statement(Planned plan, String sql, List<Value> params, int partitions, SQLException error, long nanos, long backendNanos) {}

    /** How a transaction committed: one COMMIT (at most one partition wrote), or XA two-phase commit. */
    enum Commit { ONE_PHASE, TWO_PHASE }

    /** A transaction committed; {@code partitions}: the partitions it used (read or written). */
    default void committed(int partitions, Commit how) {}

    /** A statement routed by {@code key} through {@code lookup}'s table (hit or miss alike). */
    default void keyRouted(Partitioning.LookedUp lookup, Object key) {}

    /** A client connection refused by a limit ({@code limit}: the config name, e.g. max_sessions) on a listener ("lutra", "mysql"). */
    default void sessionRefused(String listener, String limit) {}

    /** One of the hottest keys of a lookup table: its rank (1 = hottest), and its routings' estimated count with the bounds of the estimate. */
    record HotKey(String table, int rank, String key, long count, long countLow, long countHigh) {}

    /**
     * SHOW LUTRA HOT KEYS: the most routed keys of every lookup table lately (kept only while monitoring is on:
     * without it the statement is refused).
     */
    default List<HotKey> hotKeys() throws SQLException {
        throw new SQLException("SHOW LUTRA HOT KEYS: hot keys are counted only while the router's config has an http: section"
                + " (docs/operations.md)", "HY000", 0);
    }
}
