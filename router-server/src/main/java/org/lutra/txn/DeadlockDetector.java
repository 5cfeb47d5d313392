package org.lutra.txn;

import org.lutra.backend.Backends;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Finds deadlocks across partitions — cycles of lock waits that run through several shards, none of which sees the cycle —
 * and breaks each by rolling back one victim with 40001 / 1213, in a fraction of a second instead of a lock wait timeout.
 *
 * <p>When it looks: a thread checks every few milliseconds, without any backend traffic, whether a sub-query of this router's
 * transactions that may wait for a row lock (a write, a locking read) has run longer than {@code deadlock_check_ms}. Only
 * then does it read every backend's lock-wait views ({@link LockWaitViews}), and again every {@value #ROUND_MILLIS} ms while
 * such a wait lasts, at the instants of a wall-clock grid shared by all routers (see {@link #sleepToNextMarkTime}). No wait, no
 * check; the detector's connections are closed after a few idle seconds.
 *
 * <p>What it builds: a {@link WaitForGraph} whose nodes are transactions — this router's own, known by the connection ids of
 * their branches; other routers', known by the trx ids they published on the {@link WaitBoard}; and single backend
 * transactions (an auto-commit statement, an administrator's session). An edge counts only when the same wait (waiter trx,
 * lock, holder trx) was in two fresh snapshots of its server, of consecutive rounds: each server's snapshot is of its own
 * moment, and a wait seen once may have just ended (an early-released lock at READ COMMITTED, a waiting request given up); a
 * wait seen twice, from a transaction still waiting, is one that has lasted. A cycle of such edges is a deadlock.
 *
 * <p>Whom it rolls back: each cycle's victim by the same rule on every router (the youngest transaction spanning two backends,
 * see {@link WaitForGraph}); a router rolls back only its own. The victim fails with {@link DeadlockVictim} and its waiting
 * statements are stopped (KILL QUERY); its session rolls it back, which releases its locks on every shard. Waits on a lock
 * that a session outside the router holds form no cycle unless that session waits too, and are left to the lock wait timeout,
 * which stays the backstop for everything the detector cannot see (a backend refusing its views, a move batch's transaction).
 */
final class DeadlockDetector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DeadlockDetector.class);
    /** InnoDB renews its copy of the lock tables once it has not been read for 100 ms: rounds are this far apart. */
    private static final long ROUND_MILLIS = 120;
    /** How long before its round's read instant a router inserts its marks ({@link LockWaitViews#mark}). */
    private static final long MARK_LEAD_MILLIS = 20;
    private static final int MAX_CYCLE_TEXT = 400;
    /** The detector's connections are closed once no transaction has waited for this long. */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final boolean on;
    private final long thresholdNanos;
    private final TxnStats stats;
    private final GlobalId.Factory ids;
    private final Map<String, Backends.Placement> partitions = new HashMap<>();
    private final Set<TransactionState> open = ConcurrentHashMap.newKeySet();
    private final Map<String, LockWaitViews> servers = new LinkedHashMap<>();
    private final WaitBoard board;
    private final ExecutorService readers;
    private final Thread thread;
    private volatile boolean closed;

    /** Rounds in a row in which some backend's copy was stale. */
    private int staleRounds;

    /** Per backend, the waits of its last fresh snapshot: an edge is acted on only if the next one shows it again. */
    private final Map<String, Set<WaitKey>> previous = new HashMap<>();

    private record WaitKey(long waiterTrx, String lockId, long holderTrx) {}

    /** A connection on a backend server, by the id the server gave it. */
    private record BackendConnection(String backend, long threadId) {}

    /** A transaction on a backend server, by its InnoDB trx id. */
    private record BackendTrx(String backend, long trxId) {}

    DeadlockDetector(Backends backends, int thresholdMillis, TxnStats stats, GlobalId.Factory ids) {
        this.on = thresholdMillis > 0;
        this.thresholdNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, thresholdMillis));
        this.stats = stats;
        this.ids = ids;
        for (var p : backends.placements()) {
            partitions.put(p.name(), p);
            servers.computeIfAbsent(p.backend(), b -> new LockWaitViews(p));
        }
        this.board = new WaitBoard(backends.placement(0));
        if (on) {
            this.readers = org.lutra.backend.BackendThreads.pool("lutra-deadlock-reads");
            long tick = Math.clamp(thresholdMillis / 2, 5, 50);
            this.thread = Thread.ofPlatform().daemon().name("lutra-deadlocks").start(() -> watch(tick));
        } else {
            this.readers = null;
            this.thread = null;
        }
    }

    /** {@code t} began on its first partition: watched until {@link #closed}. */
    void opened(TransactionState t) {
        if (on) open.add(t);
    }

    void closed(TransactionState t) {
        if (on) open.remove(t);
    }

    private void watch(long tickMillis) {
        long lastWait = System.nanoTime();
        boolean connected = false;
        while (!closed) {
            try {
                Thread.sleep(tickMillis);
                if (!someoneWaits()) {
                    previous.clear(); // a later check starts afresh
                    staleRounds = 0;
                    if (connected && System.nanoTime() - lastWait > IDLE_NANOS) {
                        servers.values().forEach(LockWaitViews::close); // ends their marking transactions
                        board.close();
                        connected = false;
                    }
                    continue;
                }
                lastWait = System.nanoTime();
                connected = true;
                round();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("deadlock detection: {}", e.toString(), e);
            }
        }
    }

    /**
     * Sleeps until {@value #MARK_LEAD_MILLIS} ms before the next instant of the round grid (wall-clock multiples of
     * {@value #ROUND_MILLIS} ms), and returns that instant. Every router reads the views at the same instants: the first read
     * renews InnoDB's copy (nobody read it for 120 ms), and the others' reads a few milliseconds later get the same copy, which
     * shows the marks they all inserted just before. Reads spread over the period would each find a copy read less than
     * 100 ms before, and keep it old for everyone. That needs the routers' clocks within ~20 ms of each other; after three
     * stale rounds in a row (clocks further apart, a monitoring tool reading the views often) the instant is moved by a random
     * part of a round, until a read is fresh again.
     */
    private long sleepToNextMarkTime() throws InterruptedException {
        long now = System.currentTimeMillis();
        long instant = (now / ROUND_MILLIS + 1) * ROUND_MILLIS;
        if (staleRounds >= 3) instant += ThreadLocalRandom.current().nextLong(ROUND_MILLIS);
        if (instant - now < MARK_LEAD_MILLIS) instant += ROUND_MILLIS;
        Thread.sleep(instant - MARK_LEAD_MILLIS - now);
        return instant;
    }

    /** Whether a sub-query of a transaction of this router that may wait for a lock has run past the threshold. */
    private boolean someoneWaits() {
        long now = System.nanoTime();
        for (TransactionState t : open) {
            long since = t.lockingSince();
            if (since != 0 && now - since >= thresholdNanos) return true;
        }
        return false;
    }

    private void round() throws InterruptedException {
        long instant = sleepToNextMarkTime();
        stats.deadlockChecks.increment();
        // this router's branches, by connection, before the views are read: a transaction still active after the reads was
        // active during them, so its connections were its own branches in every snapshot
        var mine = new HashMap<BackendConnection, TransactionState>();
        var partitionOf = new HashMap<BackendConnection, String>();
        for (TransactionState t : open) {
            var branches = t.activeBranches();
            if (branches == null) continue;
            for (Branch b : branches) {
                if (b.threadId() == 0) continue; // not started yet
                var c = new BackendConnection(b.placement.backend(), b.threadId());
                mine.put(c, t);
                partitionOf.put(c, b.placement.name());
            }
        }
        var snapshots = readAll(instant);
        mine.values().removeIf(t -> !t.active());

        var remote = needsBoard(snapshots, mine) ? readBoard() : Map.<BackendTrx, WaitForGraph.Node>of();
        publish(snapshots, mine, partitionOf);

        var graph = new WaitForGraph();
        boolean stale = false;
        for (var entry : snapshots.entrySet()) {
            String backend = entry.getKey();
            var snapshot = entry.getValue();
            if (!snapshot.fresh()) {
                stale = true;
                continue;
            }
            var now = new HashSet<WaitKey>();
            var before = previous.getOrDefault(backend, Set.of());
            for (var w : snapshot.waits()) {
                var key = new WaitKey(w.waiterTrx(), w.lockId(), w.holderTrx());
                now.add(key);
                if (!before.contains(key)) continue;
                graph.add(new WaitForGraph.Edge(node(backend, w.waiterThread(), w.waiterTrx(), mine, remote),
                        node(backend, w.holderThread(), w.holderTrx(), mine, remote), backend));
            }
            previous.put(backend, now);
        }
        staleRounds = stale ? staleRounds + 1 : 0;
        if (graph.isEmpty()) return;
        for (var victim : graph.victims()) {
            TransactionState t = victim.node().local();
            if (t == null) continue; // another router's: that router rolls it back
            String cycle = victim.component().length() > MAX_CYCLE_TEXT ? victim.component().substring(0, MAX_CYCLE_TEXT) + "..." : victim.component();
            if (t.chosenAsVictim(new DeadlockVictim(cycle), this::kill)) {
                stats.deadlocksDetected.increment();
                log.info("deadlock across partitions: {}; rolling back {}", cycle, victim.node().key());
            }
        }
    }

    /**
     * Every backend's snapshot: each marked now, read at {@code instant} (wall clock), in parallel; a backend that fails or
     * refuses is left out this round.
     */
    private Map<String, LockWaitViews.Snapshot> readAll(long instant) throws InterruptedException {
        var futures = new LinkedHashMap<String, Future<LockWaitViews.Snapshot>>();
        for (var views : servers.values()) {
            if (views.refused()) continue;
            futures.put(views.backend, readers.submit(() -> {
                views.mark();
                long wait = instant - System.currentTimeMillis();
                if (wait > 0) Thread.sleep(wait);
                return views.read();
            }));
        }
        var snapshots = new LinkedHashMap<String, LockWaitViews.Snapshot>();
        for (var f : futures.entrySet()) {
            try {
                snapshots.put(f.getKey(), f.getValue().get());
            } catch (java.util.concurrent.ExecutionException e) {
                log.debug("deadlock detection: lock waits of backend {} not read: {}", f.getKey(), e.getCause().toString());
            }
        }
        return snapshots;
    }

    private WaitForGraph.Node node(String backend, long threadId, long trxId, Map<BackendConnection, TransactionState> mine,
                                   Map<BackendTrx, WaitForGraph.Node> remote) {
        TransactionState t = mine.get(new BackendConnection(backend, threadId));
        if (t != null) {
            GlobalId id = t.globalId();
            // on one partition only it is a transaction of one backend, as every other router names it
            return id == null ? WaitForGraph.Node.ofBackend(backend, trxId) : new WaitForGraph.Node(id.toString(), t.startedMillis, true, t);
        }
        return remote.getOrDefault(new BackendTrx(backend, trxId), WaitForGraph.Node.ofBackend(backend, trxId));
    }

    /** Whether some wait involves a transaction that is not this router's: it may be a branch of another router's. */
    private static boolean needsBoard(Map<String, LockWaitViews.Snapshot> snapshots, Map<BackendConnection, TransactionState> mine) {
        for (var e : snapshots.entrySet()) {
            for (var w : e.getValue().waits()) {
                if (!mine.containsKey(new BackendConnection(e.getKey(), w.waiterThread())) || !mine.containsKey(new BackendConnection(e.getKey(), w.holderThread()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Other routers' published transactions, by backend and trx id. */
    private Map<BackendTrx, WaitForGraph.Node> readBoard() {
        var nodes = new HashMap<BackendTrx, WaitForGraph.Node>();
        List<WaitBoard.Row> rows;
        try {
            rows = board.read();
        } catch (SQLException e) {
            log.debug("deadlock detection: other routers' transactions not read: {}", e.toString());
            return nodes;
        }
        for (var r : rows) {
            var p = partitions.get(r.partition());
            GlobalId id = GlobalId.parse(r.gtrid());
            if (p == null || id == null || (id.router().equals(ids.router()) && id.life().equals(ids.life()))) continue; // this router's: known better
            nodes.put(new BackendTrx(p.backend(), r.trxId()), new WaitForGraph.Node(r.gtrid(), r.startedMillis(), true, null));
        }
        return nodes;
    }

    /**
     * Publishes this router's transactions that wait or are waited for on two backends or more, with the trx ids of their
     * branches there: only such a transaction can be part of a cycle across shards that another router must see whole.
     */
    private void publish(Map<String, LockWaitViews.Snapshot> snapshots, Map<BackendConnection, TransactionState> mine, Map<BackendConnection, String> partitionOf) {
        var backendsOf = new HashMap<TransactionState, Set<String>>();
        var rowsOf = new HashMap<TransactionState, Map<BackendConnection, Long>>();
        for (var e : snapshots.entrySet()) {
            if (!e.getValue().fresh()) continue;
            for (var w : e.getValue().waits()) {
                for (var end : List.of(new long[] {w.waiterThread(), w.waiterTrx()}, new long[] {w.holderThread(), w.holderTrx()})) {
                    var c = new BackendConnection(e.getKey(), end[0]);
                    TransactionState t = mine.get(c);
                    if (t == null || t.globalId() == null) continue;
                    backendsOf.computeIfAbsent(t, x -> new HashSet<>()).add(e.getKey());
                    rowsOf.computeIfAbsent(t, x -> new HashMap<>()).put(c, end[1]);
                }
            }
        }
        var rows = new ArrayList<WaitBoard.Row>();
        backendsOf.forEach((t, backends) -> {
            if (backends.size() < 2) return;
            String gtrid = t.globalId().toString();
            rowsOf.get(t).forEach((c, trx) -> rows.add(new WaitBoard.Row(partitionOf.get(c), trx, gtrid, t.startedMillis)));
        });
        try {
            board.publish(rows);
        } catch (SQLException e) {
            log.debug("deadlock detection: this router's waiting transactions not published: {}", e.toString());
        }
    }

    private void kill(Backends.Placement placement, long threadId) throws SQLException {
        servers.get(placement.backend()).killQuery(threadId);
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (readers != null) readers.shutdownNow();
        servers.values().forEach(LockWaitViews::close);
        board.close();
    }
}
