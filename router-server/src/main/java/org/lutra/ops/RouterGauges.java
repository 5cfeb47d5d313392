package org.lutra.ops;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.LookupCounters;
import org.lutra.server.RouterServer;
import org.lutra.txn.TxnStats;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * Meters over what the engine counts anyway (Stats, LookupCounters, TxnStats, recovery, sessions,
 * the plan cache, the change-log tailer) and over the sampler's readings: read when scraped,
 * never counted twice. Lookup tables created after the start get their meters at the next scrape
 * ({@link #refresh}); a meter is registered once per (name, tags), whatever calls it.
 */
final class RouterGauges {
    private final MeterRegistry registry;
    private final RouterServer server;
    private final Sampler sampler;
    private final HotKeys hotKeys;
    private final Set<String> boundTables = new HashSet<>();

    RouterGauges(MeterRegistry registry, RouterServer server, Sampler sampler, HotKeys hotKeys) {
        this.registry = registry;
        this.server = server;
        this.sampler = sampler;
        this.hotKeys = hotKeys;
    }

    void bind() {
        var stats = server.stats();
        counter("lutra.statements.single.partition", "statements whose sub-queries went to one partition", stats, s -> s.singlePartition());
        counter("lutra.statements.multi.partition", "statements whose sub-queries went to several partitions", stats, s -> s.multiPartition());
        counter("lutra.lookup.secondary.reads", "statements routed by a secondary lookup", stats, s -> s.secondaryReads());
        for (var p : server.placements()) {
            int id = p.partition();
            FunctionCounter.builder("lutra.partition.subqueries", stats, s -> s.subQueries(id))
                    .description("sub-queries sent to a partition (fallbacks included)").tag("partition", p.name()).tag("backend", p.backend())
                    .register(registry);
            Gauge.builder("lutra.partition.rows.estimated", sampler, s -> s.rows(id))
                    .description("rows of a partition's tables, as its server estimates them (information_schema.TABLES), sampled")
                    .tag("partition", p.name()).tag("backend", p.backend()).register(registry);
            // the statement pool, read from HikariCP's MX bean when scraped: nothing is recorded per borrow (HikariCP's own
            // Micrometer tracker records two percentile timers per borrow, about 1 % of a point select's router CPU)
            var pool = p.pool();
            poolGauge("active", "connections in use", p, pool, x -> x.getHikariPoolMXBean() == null ? 0 : x.getHikariPoolMXBean().getActiveConnections());
            poolGauge("idle", "connections idle in the pool", p, pool, x -> x.getHikariPoolMXBean() == null ? 0 : x.getHikariPoolMXBean().getIdleConnections());
            poolGauge("max", "the pool's size (pool_size)", p, pool, x -> x.getMaximumPoolSize());
            Gauge.builder("lutra.pool.waiting", pool, x -> x.getHikariPoolMXBean() == null ? 0 : x.getHikariPoolMXBean().getThreadsAwaitingConnection())
                    .description("threads waiting for a connection of the partition's statement pool").tag("partition", p.name()).tag("backend", p.backend())
                    .register(registry);
            // the transactions pool: the branches' connections, kept at autocommit=0 (backend.TransactionConnection)
            var txnPool = p.transactions();
            for (var state : java.util.List.of("active", "idle", "max")) {
                Gauge.builder("lutra.transaction.pool.connections", txnPool, x -> x.getHikariPoolMXBean() == null ? 0 : switch (state) {
                            case "active" -> x.getHikariPoolMXBean().getActiveConnections();
                            case "idle" -> x.getHikariPoolMXBean().getIdleConnections();
                            default -> x.getMaximumPoolSize();
                        })
                        .description("connections of the partition's transactions pool (the branches of transactions) by state: active (pinned"
                                + " by a transaction), idle, max (pool_size)")
                        .tag("state", state).tag("partition", p.name()).tag("backend", p.backend()).register(registry);
            }
            Gauge.builder("lutra.transaction.pool.waiting", txnPool, x -> x.getHikariPoolMXBean() == null ? 0 : x.getHikariPoolMXBean().getThreadsAwaitingConnection())
                    .description("transactions waiting for a connection of the partition's transactions pool").tag("partition", p.name()).tag("backend", p.backend())
                    .register(registry);
            Gauge.builder("lutra.backend.reachable", sampler, s -> s.reachable(id))
                    .description("1 when the partition's backend answered the last health check in time, else 0")
                    .tag("partition", p.name()).tag("backend", p.backend()).register(registry);
        }
        TxnStats txn = server.transactions().stats();
        transactions("one_phase_commit", txn.onePhaseCommits);
        transactions("two_phase_commit", txn.twoPhaseCommits);
        transactions("rollback", txn.rollbacks);
        transactions("abort", txn.aborts);
        phase("prepare", txn.prepare);
        phase("decision", txn.decision);
        phase("commit", txn.commit);
        FunctionCounter.builder("lutra.transaction.read.only.branches", txn.readOnlyBranches, LongAdder::sum)
                .description("read-only branches released in phase one").register(registry);
        FunctionCounter.builder("lutra.xa.recovered", txn.recoveredCommits, LongAdder::sum).tag("outcome", "commit")
                .description("in-doubt branches resolved by recovery").register(registry);
        FunctionCounter.builder("lutra.xa.recovered", txn.recoveredRollbacks, LongAdder::sum).tag("outcome", "rollback")
                .description("in-doubt branches resolved by recovery").register(registry);
        FunctionCounter.builder("lutra.deadlocks", txn.deadlocksDetected, LongAdder::sum).tag("found_by", "detector")
                .description("deadlocks across partitions: broken by this router's detector, or ended by a lock wait timeout in a transaction"
                        + " holding locks on several partitions (a suspected one)").register(registry);
        FunctionCounter.builder("lutra.deadlocks", txn.deadlocksByTimeout, LongAdder::sum).tag("found_by", "lock_wait_timeout")
                .description("deadlocks across partitions: broken by this router's detector, or ended by a lock wait timeout in a transaction"
                        + " holding locks on several partitions (a suspected one)").register(registry);
        FunctionCounter.builder("lutra.deadlock.checks", txn.deadlockChecks, LongAdder::sum)
                .description("reads of the shards' lock-wait views by the deadlock detector").register(registry);
        var recovery = server.transactions().recovery();
        Gauge.builder("lutra.xa.in.doubt.branches", recovery, r -> r.inDoubt()).description("prepared XA branches awaiting recovery")
                .register(registry);
        Gauge.builder("lutra.xa.unreachable.partitions", recovery, r -> r.unreachable())
                .description("partitions whose XA RECOVER failed in the last recovery pass").register(registry);
        gauge("lutra.sessions.open", "client sessions open (every listener, logged in or not)", s -> s.openSessions());
        gauge("lutra.plan.cache.bytes", "estimated heap of the cached plans", s -> s.planner().cachedPlanBytes());
        gauge("lutra.lookup.warm", "1 once the lookup tables are loaded, 0 while warming", s -> s.started() == null ? 0 : 1);
        gauge("lutra.placement.log.lag.seconds", "seconds since the last complete read of every partition's change log (other routers' placements)",
                s -> s.tailer().lastPollStart() == 0 ? Double.NaN : (System.currentTimeMillis() - s.tailer().lastPollStart()) / 1000.0);
        Gauge.builder("lutra.moves.running", sampler, s -> s.moves().running()).description("moves running now (any router), sampled").register(registry);
        Gauge.builder("lutra.move.rows.moved", sampler, s -> s.moves().rowsMoved())
                .description("rows moved so far by the moves in the move log, sampled").register(registry);
        Gauge.builder("lutra.move.keys.remaining", sampler, s -> s.moves().keysRemaining())
                .description("keys the running moves have still to move, sampled").register(registry);
        refresh();
    }

    /** Meters for lookup tables that appeared since the last call (CREATE TABLE at run time). */
    synchronized void refresh() {
        for (TableDef t : server.catalog().tablesInSchemaOrder()) {
            if (!(t.partitioning() instanceof Partitioning.LookedUp lookup) || !lookup.owner().equalsIgnoreCase(t.name())) continue;
            if (!boundTables.add(t.name())) continue;
            var counters = server.stats().lookup(lookup);
            lookupCounter("hits", "routing keys the lookup table had an entry for", counters, t, LookupCounters::hits);
            lookupCounter("misses", "routing keys it had no entry for (sent where DEFAULT NEW places them)", counters, t, LookupCounters::misses);
            lookupCounter("fallbacks", "statements whose guess was wrong or incomplete, so other partitions were asked", counters, t,
                    LookupCounters::fallbacks);
            lookupCounter("broadcasts", "statements on its tables sent to every partition (no key pinned them)", counters, t, LookupCounters::broadcasts);
            lookupCounter("learned", "entries corrected from what a fallback found", counters, t, LookupCounters::learned);
            lookupCounter("log.applied", "other routers' placement changes applied from the change log", counters, t, LookupCounters::logApplied);
            var table = lookup.table();
            Gauge.builder("lutra.lookup.keys", table, x -> x.size()).description("keys with an entry in the lookup table")
                    .tag("table", t.name()).register(registry);
            Gauge.builder("lutra.lookup.bytes", table, x -> x.estimatedBytes() < 0 ? Double.NaN : x.estimatedBytes())
                    .description("estimated heap of the lookup table").tag("table", t.name()).register(registry);
            for (int rank = 1; rank <= hotKeys.size(); rank++) {
                int r = rank;
                Gauge.builder("lutra.lookup.hot.key.routings", sampler, s -> s.hotKeyCount(t.name(), r))
                        .description("estimated routings of the table's rank-th hottest key in the last one to two windows (SHOW LUTRA HOT KEYS names it)")
                        .tag("table", t.name()).tag("rank", String.valueOf(r)).register(registry);
            }
        }
    }

    private void poolGauge(String state, String description, org.lutra.backend.Backends.Placement p, com.zaxxer.hikari.HikariDataSource pool,
                           ToDoubleFunction<com.zaxxer.hikari.HikariDataSource> f) {
        Gauge.builder("lutra.pool.connections", pool, f).description("connections of the partition's statement pool by state: active (in use), idle, max (pool_size)").tag("state", state)
                .tag("partition", p.name()).tag("backend", p.backend()).register(registry);
    }

    private void lookupCounter(String name, String description, LookupCounters counters, TableDef t, ToDoubleFunction<LookupCounters> f) {
        FunctionCounter.builder("lutra.lookup." + name, counters, f).description(description).tag("table", t.name()).register(registry);
    }

    private void phase(String phase, TxnStats.Phase p) {
        io.micrometer.core.instrument.FunctionTimer.builder("lutra.transaction.phase", p, TxnStats.Phase::count, TxnStats.Phase::totalNanos,
                        java.util.concurrent.TimeUnit.NANOSECONDS)
                .description("commit phases: XA prepare everywhere, writing the decision, committing (one COMMIT or XA COMMIT everywhere)")
                .tag("phase", phase).register(registry);
    }

    private void transactions(String outcome, LongAdder counter) {
        FunctionCounter.builder("lutra.transactions", counter, LongAdder::sum).description("transactions by how they ended")
                .tag("outcome", outcome).register(registry);
    }

    private <T> void counter(String name, String description, T on, ToDoubleFunction<T> f) {
        FunctionCounter.builder(name, on, f).description(description).register(registry);
    }

    private void gauge(String name, String description, ToDoubleFunction<RouterServer> f) {
        Gauge.builder(name, server, f).description(description).register(registry);
    }
}
