package org.lutra.ops;

import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.lutra.catalog.Partitioning;
import org.lutra.exec.RouterMetrics;
import org.lutra.plan.Plan;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The engine's events as Micrometer meters (names in docs/operations.md), the hot keys, and the
 * slow-statement log. Meters are looked up once: per (kind, outcome) an array slot, so a statement
 * costs a few array reads and LongAdder increments, no map lookup or allocation.
 */
final class MeteredEngine implements RouterMetrics {
    private static final String[] OUTCOMES = {"answered", "refused", "error"};
    private static final double[] PARTITION_BUCKETS = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128};
    private static final Duration[] TIME_BUCKETS = {Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10)};

    private final MeterRegistry registry;
    private final HotKeys hotKeys;
    private final RouterMetrics slowLog;
    /** [kind][outcome] */
    private final Counter[][] statements;
    private final Timer routerTime;
    private final Timer backendTime;
    private final DistributionSummary statementPartitions;
    private final DistributionSummary transactionPartitions;
    private final Counter deadlocks;
    private final Counter lockWaitTimeouts;
    private final ConcurrentHashMap<String, Counter> refused = new ConcurrentHashMap<>();

    MeteredEngine(MeterRegistry registry, HotKeys hotKeys, RouterMetrics slowLog) {
        this.registry = registry;
        this.hotKeys = hotKeys;
        this.slowLog = slowLog;
        var kinds = StatementKind.values();
        statements = new Counter[kinds.length][OUTCOMES.length];
        for (var kind : kinds) {
            for (int o = 0; o < OUTCOMES.length; o++) {
                statements[kind.ordinal()][o] = Counter.builder("lutra.statements").description("client statements by kind and outcome")
                        .tag("kind", kind.label).tag("outcome", OUTCOMES[o]).register(registry);
            }
        }
        routerTime = Timer.builder("lutra.statement.router").description("a statement's time in the router itself (its backends' time apart)")
                .serviceLevelObjectives(TIME_BUCKETS).register(registry);
        backendTime = Timer.builder("lutra.statement.backend")
                .description("a statement's time during which at least one of its backend statements ran")
                .serviceLevelObjectives(TIME_BUCKETS).register(registry);
        statementPartitions = DistributionSummary.builder("lutra.statement.partitions").description("partitions an answered statement ran on")
                .serviceLevelObjectives(PARTITION_BUCKETS).register(registry);
        transactionPartitions = DistributionSummary.builder("lutra.transaction.partitions")
                .description("partitions a committed transaction used (read or written)").serviceLevelObjectives(PARTITION_BUCKETS).register(registry);
        deadlocks = retryable("deadlock");
        lockWaitTimeouts = retryable("lock_wait_timeout");
    }

    private Counter retryable(String reason) {
        return Counter.builder("lutra.transaction.retryable").description("statements answered 40001 (the whole transaction rolled back: retry it)")
                .tag("reason", reason).register(registry);
    }

    @Override
    public void statement(Plan plan, String sql, List<Value> params, int partitions, SQLException error, long nanos, long backendNanos) {
        int outcome = error == null ? 0 : Refusal.is(error) ? 1 : 2;
        statements[StatementKind.of(sql).ordinal()][outcome].increment();
        routerTime.record(Math.max(0, nanos - backendNanos), TimeUnit.NANOSECONDS);
        if (backendNanos > 0) backendTime.record(backendNanos, TimeUnit.NANOSECONDS);
        if (error == null && partitions > 0) statementPartitions.record(partitions);
        if (error != null && "40001".equals(error.getSQLState())) (error.getErrorCode() == 1205 ? lockWaitTimeouts : deadlocks).increment();
        slowLog.statement(plan, sql, params, partitions, error, nanos, backendNanos);
    }

    @Override
    public void committed(int partitions, boolean twoPhase) {
        if (partitions > 0) transactionPartitions.record(partitions);
    }

    @Override
    public void keyRouted(Partitioning.LookedUp lookup, Object key) {
        hotKeys.record(lookup, key);
    }

    @Override
    public void sessionRefused(String listener, String limit) {
        refused.computeIfAbsent(listener + "\n" + limit, k -> Counter.builder("lutra.sessions.refused")
                .description("client connections refused by a limit").tag("listener", listener).tag("limit", limit).register(registry)).increment();
    }

    @Override
    public List<HotKey> hotKeys() {
        return hotKeys.top();
    }

    @Override
    public MetricsTrackerFactory pools() {
        return new MicrometerMetricsTrackerFactory(registry);
    }
}
