package org.lutra.ops;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.lutra.catalog.Partitioning;
import org.lutra.exec.RouterMetrics;
import org.lutra.exec.Planned;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's events as metrics (names in docs/operations.md), the hot keys, and the slow-statement
 * log. What is counted per statement uses the Prometheus Java client's counters and classic
 * histograms directly (the library Micrometer's Prometheus registry is built on, in the same
 * registry, so one scrape has both): an increment is one striped add and an observation a bucket
 * search and two adds, where a Micrometer timer also keeps a decaying maximum and a rotating
 * histogram of its own on every record. Data points are looked up once: per (kind, outcome) an
 * array slot, so a statement costs no map lookup and no allocation.
 */
final class MeteredEngine implements RouterMetrics {
    private static final String[] OUTCOMES = {"answered", "refused", "error"};
    private static final double[] PARTITION_BUCKETS = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128};
    private static final double[] SECONDS_BUCKETS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final HotKeys hotKeys;
    private final RouterMetrics slowLog;
    /** [kind][outcome] */
    private final CounterDataPoint[][] statements;
    private final Histogram routerTime;
    private final Histogram backendTime;
    private final Histogram statementPartitions;
    private final Histogram transactionPartitions;
    private final CounterDataPoint deadlocks;
    private final CounterDataPoint lockWaitTimeouts;
    private final Counter refused;
    private final Counter backendErrorCounter;
    /** By "partition@backend", as a backend's error names where it happened ("[p0@shard0] ..."); empty until {@link #backends}. */
    private volatile Map<String, CounterDataPoint> backendErrors = Map.of();

    /** {@code listeners}: the client listeners the router has ("lutra", and "mysql" where configured). */
    MeteredEngine(PrometheusRegistry registry, HotKeys hotKeys, RouterMetrics slowLog, List<String> listeners) {
        this.hotKeys = hotKeys;
        this.slowLog = slowLog;
        var statementCounter = Counter.builder().name("lutra_statements").help("client statements by kind and outcome")
                .labelNames("kind", "outcome").withoutExemplars().register(registry);
        var kinds = StatementKind.values();
        statements = new CounterDataPoint[kinds.length][OUTCOMES.length];
        for (var kind : kinds) {
            for (int o = 0; o < OUTCOMES.length; o++) statements[kind.ordinal()][o] = statementCounter.labelValues(kind.label, OUTCOMES[o]);
        }
        routerTime = Histogram.builder().name("lutra_statement_router_seconds").help("a statement's time in the router itself (its backends' time apart)")
                .classicOnly().classicUpperBounds(SECONDS_BUCKETS).withoutExemplars().register(registry);
        backendTime = Histogram.builder().name("lutra_statement_backend_seconds")
                .help("a statement's time during which at least one of its backend statements ran").classicOnly().classicUpperBounds(SECONDS_BUCKETS)
                .withoutExemplars().register(registry);
        statementPartitions = Histogram.builder().name("lutra_statement_partitions").help("partitions an answered statement ran on")
                .classicOnly().classicUpperBounds(PARTITION_BUCKETS).withoutExemplars().register(registry);
        transactionPartitions = Histogram.builder().name("lutra_transaction_partitions").help("partitions a committed transaction used (read or written)")
                .classicOnly().classicUpperBounds(PARTITION_BUCKETS).withoutExemplars().register(registry);
        var retryable = Counter.builder().name("lutra_transaction_retryable").help("statements answered 40001 (the whole transaction rolled back: retry it)")
                .labelNames("reason").withoutExemplars().register(registry);
        deadlocks = retryable.labelValues("deadlock");
        lockWaitTimeouts = retryable.labelValues("lock_wait_timeout");
        refused = Counter.builder().name("lutra_sessions_refused").help("client connections refused by a limit").labelNames("listener", "limit")
                .withoutExemplars().register(registry);
        // the series the router can produce are there from the start at 0, so a rate() sees the first refusal
        for (String listener : listeners) {
            for (String limit : List.of("max_sessions", "max_sessions_per_user", "login_throttle")) refused.labelValues(listener, limit);
        }
        backendErrorCounter = Counter.builder().name("lutra_backend_errors")
                .help("client statements that failed with an error of this partition's backend (lost connections included)")
                .labelNames("partition", "backend").withoutExemplars().register(registry);
    }

    @Override
    public void statement(Planned plan, String sql, List<Value> params, int partitions, SQLException error, long nanos, long backendNanos) {
        int outcome = error == null ? 0 : Refusal.is(error) ? 1 : 2;
        statements[StatementKind.of(sql).ordinal()][outcome].inc();
        routerTime.observe(Math.max(0, nanos - backendNanos) / 1e9);
        if (backendNanos > 0) backendTime.observe(backendNanos / 1e9);
        if (error == null && partitions > 0) statementPartitions.observe(partitions);
        if (error != null) failed(error);
        slowLog.statement(plan, sql, params, partitions, error, nanos, backendNanos);
    }

    private void failed(SQLException error) {
        if ("40001".equals(error.getSQLState())) (error.getErrorCode() == 1205 ? lockWaitTimeouts : deadlocks).inc();
        String message = error.getMessage();
        int end = message == null || !message.startsWith("[") ? -1 : message.indexOf("] ");
        if (end > 0) {
            var counter = backendErrors.get(message.substring(1, end)); // only the config's partitions: labels stay bounded
            if (counter != null) counter.inc();
        }
    }

    /** The partitions and backends whose errors are counted apart ({@code lutra_backend_errors_total}). */
    void backends(List<org.lutra.backend.Backends.Placement> placements) {
        var counters = new HashMap<String, CounterDataPoint>();
        for (var p : placements) counters.put(p.name() + "@" + p.backend(), backendErrorCounter.labelValues(p.name(), p.backend()));
        backendErrors = Map.copyOf(counters);
    }

    @Override
    public void committed(int partitions, Commit how) {
        if (partitions > 0) transactionPartitions.observe(partitions);
    }

    @Override
    public void keyRouted(Partitioning.LookedUp lookup, Object key) {
        hotKeys.record(lookup, key);
    }

    @Override
    public void sessionRefused(String listener, String limit) {
        refused.labelValues(listener, limit).inc();
    }

    @Override
    public List<HotKey> hotKeys() {
        return hotKeys.top();
    }
}
