package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.LiveCatalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.backend.Backends;
import org.lutra.placement.PlacementLog;
import org.lutra.exec.Stats;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartialLookupTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reads every partition's {@link PlacementLog} every {@code log_poll_ms} and applies the entries
 * to this router's lookup tables, so that a move another router made is known here before a
 * statement misses on it.
 *
 * <p>Position. Per partition, {@code low}: every entry up to it was applied (or given up on);
 * entries above it already applied are remembered in {@code seen}. An AUTO_INCREMENT sequence
 * is handed out at insert, not at commit, so a transaction still running leaves a gap that a
 * later poll fills; a gap older than {@link #GAP_MILLIS} (a rolled-back change) is given up. A
 * given-up or trimmed entry costs only a validation miss: the home rows are the truth.
 *
 * <p>A partial (cache) table takes an entry only for a key it holds: the log must not evict the
 * keys statements use.
 */
public final class PlacementTailer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PlacementTailer.class);
    static final long GAP_MILLIS = 10_000;
    private static final int BATCH = 1000;

    private final LiveCatalog catalog;
    private final Backends backends;
    private final Stats stats;
    private final int keepSeconds;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("lutra-placement-log").unstarted(r));
    private final Partition[] partitions;
    private volatile long lastTrim;

    /** One partition's position in its log. */
    private static final class Partition {
        long low;
        final TreeSet<Long> seen = new TreeSet<>();
        long gapSince;
    }

    private volatile long lastPollStart;

    public PlacementTailer(LiveCatalog catalog, Backends backends, Stats stats, int keepSeconds) {
        this.catalog = catalog;
        this.backends = backends;
        this.stats = stats;
        this.keepSeconds = keepSeconds;
        this.partitions = new Partition[catalog.current().partitions().size()];
        for (int i = 0; i < partitions.length; i++) partitions[i] = new Partition();
    }

    /** The newest entry of every partition's log now: a router that loads its tables after reading this tails from here. */
    public static long[] heads(Backends backends, int partitionCount) throws SQLException {
        long[] heads = new long[partitionCount];
        for (int p = 0; p < partitionCount; p++) {
            try (Connection c = backends.placement(p).borrow(); var st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(seq), 0) FROM `" + PlacementLog.TABLE + "`")) {
                rs.next();
                heads[p] = rs.getLong(1);
            }
        }
        return heads;
    }

    /**
     * Whether every partition's log still holds every entry after {@code positions} (none trimmed),
     * so that tailing from there brings a table saved at {@code positions} up to date.
     */
    public static boolean continuous(Backends backends, long[] positions) throws SQLException {
        for (int p = 0; p < positions.length; p++) {
            try (Connection c = backends.placement(p).borrow(); var st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT MIN(seq), MAX(seq) FROM `" + PlacementLog.TABLE + "`")) {
                rs.next();
                long min = rs.getLong(1);
                boolean empty = rs.wasNull();
                long max = rs.getLong(2);
                // empty: trimmed whole, or never written; only a position at its start is known to be complete
                if (empty) {
                    if (positions[p] != 0) return false;
                    continue;
                }
                if (max < positions[p]) return false; // a log behind the position: not the log the position was read from
                if (min > positions[p] + 1) return false; // entries after the position were trimmed (or rolled back: unknown)
            }
        }
        return true;
    }

    /** Sets where tailing starts (before {@link #start}): entries after {@code positions} are applied. */
    public synchronized void seek(long[] positions) {
        for (int p = 0; p < partitions.length && p < positions.length; p++) {
            partitions[p].low = positions[p];
            partitions[p].seen.clear();
        }
    }

    /** Every partition's {@code low}: a lookup table copied after this reflects at least these entries. */
    public synchronized long[] positions() {
        return Arrays.stream(partitions).mapToLong(p -> p.low).toArray();
    }

    /** Polls every {@code pollMillis} (negative: never; {@link #pollOnce} still works). */
    public void start(int pollMillis) {
        if (pollMillis < 0) return;
        timer.scheduleWithFixedDelay(() -> {
            try {
                pollOnce();
                trimIfDue();
            } catch (SQLException | RuntimeException e) {
                log.warn("placement log: {} (retried at the next poll; routing does not depend on it)", e.getMessage());
            }
        }, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
    }

    /** Reads and applies what every partition's log has after its position; returns the entries applied. */
    public synchronized long pollOnce() throws SQLException {
        long began = System.currentTimeMillis();
        long applied = 0;
        for (int p = 0; p < partitions.length; p++) applied += poll(p, partitions[p]);
        lastPollStart = began;
        return applied;
    }

    /**
     * When the last complete poll began (System.currentTimeMillis; 0 before the first): every entry other routers
     * committed before it is applied here, so now minus this bounds how far behind them this router's tables are.
     */
    public long lastPollStart() {
        return lastPollStart;
    }

    private long poll(int partition, Partition at) throws SQLException {
        long applied = 0;
        Catalog cat = catalog.current();
        try (Connection c = backends.placement(partition).borrow();
             PreparedStatement ps = c.prepareStatement("SELECT seq, owner, k, partitions FROM `" + PlacementLog.TABLE
                     + "` WHERE seq > ? ORDER BY seq LIMIT " + BATCH)) {
            long from = at.low;
            while (true) {
                ps.setLong(1, from);
                int rows = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows++;
                        long seq = rs.getLong(1);
                        from = seq;
                        if (at.seen.add(seq)) {
                            if (apply(cat, rs.getString(2), rs.getString(3), rs.getString(4))) applied++;
                        }
                    }
                }
                if (rows < BATCH) break;
            }
        }
        advance(at);
        return applied;
    }

    /** Moves {@code low} over the entries seen without a gap; gives up a gap older than {@link #GAP_MILLIS}. */
    private static void advance(Partition at) {
        while (!at.seen.isEmpty()) {
            long next = at.seen.first();
            if (next == at.low + 1) {
                at.seen.pollFirst();
                at.low = next;
                at.gapSince = 0;
                continue;
            }
            long now = System.currentTimeMillis();
            if (at.gapSince == 0) {
                at.gapSince = now;
            } else if (now - at.gapSince > GAP_MILLIS) {
                at.low = next - 1; // the missing entries never committed, or came too late: the home rows will say
                at.gapSince = 0;
                continue;
            }
            return;
        }
    }

    private boolean apply(Catalog cat, String owner, String keyText, String partitionNames) {
        TableDef t = cat.table(owner);
        if (t == null || !(t.partitioning() instanceof Partitioning.LookedUp lookup) || !lookup.owner().equalsIgnoreCase(t.name())) return false;
        Object key = t.key(keyText);
        if (key == null) return false;
        int partition;
        try {
            partition = cat.partitionNamed(partitionNames.split(",")[0]).id();
        } catch (IllegalArgumentException e) {
            return false; // a partition this router's catalog does not know (yet)
        }
        LookupTable table = lookup.table();
        LookupTable serving = table instanceof AdaptiveLookupTable a ? a.current() : table;
        if (serving instanceof PartialLookupTable && table.get(key) == LookupTable.MISSING) return false;
        table.put(key, partition);
        stats.lookup(lookup).applied();
        return true;
    }

    private void trimIfDue() throws SQLException {
        long now = System.currentTimeMillis();
        if (now - lastTrim < 10_000) return;
        lastTrim = now;
        for (int p = 0; p < partitions.length; p++) {
            try (Connection c = backends.placement(p).borrow();
                 PreparedStatement ps = c.prepareStatement("DELETE FROM `" + PlacementLog.TABLE
                         + "` WHERE written < NOW(3) - INTERVAL ? SECOND LIMIT 10000")) {
                ps.setInt(1, keepSeconds);
                ps.executeUpdate();
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
