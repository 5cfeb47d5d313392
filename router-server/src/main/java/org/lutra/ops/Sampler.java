package org.lutra.ops;

import org.lutra.exec.RouterMetrics.HotKey;
import org.lutra.server.RouterServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the console and the sampled gauges show, read every few seconds off the hot path: the
 * counters' history (the console draws load over time from it), the hot keys, the moves (read from
 * the move log on partition 0), each partition's estimated rows (its server's information_schema),
 * and whether each backend answered the last health check. A failed reading keeps the last value
 * and is logged once per change of state; it never stops the sampling.
 */
final class Sampler {
    private static final Logger log = LoggerFactory.getLogger(Sampler.class);
    /** Points kept: at one every {@link Operations#SAMPLE_SECONDS} seconds, ten minutes. */
    static final int HISTORY = 300;

    /** One point of the history: cumulative counters at {@code millis}. */
    record Point(long millis, long[] subQueries, long single, long multi, long onePhase, long twoPhase, long hits, long misses) {}

    /** The moves in the move log now. */
    record Move(long id, String table, String state, long keysDone, long keysTotal, long rowsMoved, String router) {}

    record Moves(List<Move> all) {
        long running() {
            return all.stream().filter(m -> m.state().equalsIgnoreCase("running")).count();
        }

        long rowsMoved() {
            return all.stream().mapToLong(Move::rowsMoved).sum();
        }

        long keysRemaining() {
            return all.stream().filter(m -> m.state().equalsIgnoreCase("running")).mapToLong(m -> Math.max(0, m.keysTotal() - m.keysDone())).sum();
        }
    }

    private final RouterServer server;
    private final HotKeys hotKeys;
    private final Health health;
    private final ArrayDeque<Point> history = new ArrayDeque<>();
    private volatile List<HotKey> hot = List.of();
    private volatile Moves moves = new Moves(List.of());
    private final long[] rows;
    private volatile boolean failing;

    Sampler(RouterServer server, HotKeys hotKeys, Health health) {
        this.server = server;
        this.hotKeys = hotKeys;
        this.health = health;
        this.rows = new long[server.placements().size()];
        java.util.Arrays.fill(rows, -1);
    }

    /** Counters and hot keys: cheap, no backend asked. */
    void sampleCounters() {
        var stats = server.stats();
        long[] sub = new long[stats.partitions()];
        for (int p = 0; p < sub.length; p++) sub[p] = stats.subQueries(p);
        long hits = 0, misses = 0;
        for (var t : server.catalog().tablesInSchemaOrder()) {
            if (t.partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp l && l.owner().equalsIgnoreCase(t.name())) {
                var c = stats.lookup(l);
                hits += c.hits();
                misses += c.misses();
            }
        }
        var txn = server.transactions().stats();
        var point = new Point(System.currentTimeMillis(), sub, stats.singlePartition(), stats.multiPartition(), txn.onePhaseCommits.sum(),
                txn.twoPhaseCommits.sum(), hits, misses);
        synchronized (history) {
            history.addLast(point);
            while (history.size() > HISTORY) history.removeFirst();
        }
        hot = hotKeys.top();
    }

    /** The move log, the partitions' row estimates and the backends' health: each asks the backends. */
    void sampleBackends() {
        health.check();
        try {
            moves = readMoves();
            for (var p : server.placements()) rows[p.partition()] = PartitionRows.estimate(p);
            if (failing) log.info("console sampling works again");
            failing = false;
        } catch (SQLException | RuntimeException e) {
            if (!failing) log.warn("console sampling failed (the last values are kept; retried): {}", e.getMessage());
            failing = true;
        }
    }

    private Moves readMoves() throws SQLException {
        var out = new ArrayList<Move>();
        try (var rs = server.moves().show()) {
            org.lutra.protocol.Row r;
            while ((r = rs.next()) != null) {
                out.add(new Move(r.getValues(0).getIntValue(), r.getValues(1).getStringValue(), r.getValues(3).getStringValue(),
                        r.getValues(4).getIntValue(), r.getValues(5).getIntValue(), r.getValues(6).getIntValue(), r.getValues(7).getStringValue()));
            }
        }
        return new Moves(out);
    }

    List<Point> history() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    List<HotKey> hotKeys() {
        return hot;
    }

    double hotKeyCount(String table, int rank) {
        for (var h : hot) if (h.table().equals(table) && h.rank() == rank) return h.count();
        return 0;
    }

    Moves moves() {
        return moves;
    }

    /** The partition's estimated rows; NaN before the first reading. */
    double rows(int partition) {
        long r = rows[partition];
        return r < 0 ? Double.NaN : r;
    }

    double reachable(int partition) {
        Map<Integer, Health.Reach> last = health.last();
        var reach = last.get(partition);
        return reach == null ? Double.NaN : reach.reachable() ? 1 : 0;
    }
}
