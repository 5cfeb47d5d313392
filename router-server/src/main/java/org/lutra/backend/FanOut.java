package org.lutra.backend;

import org.lutra.backend.BackendThreads;
import org.lutra.backend.Backends;
import org.lutra.backend.Misplaced;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Runs sub-queries on several partitions at once, one thread each (JDBC blocks; platform threads
 * from {@link BackendThreads}, since a virtual one would leave the pooled connection's socket
 * non-blocking). One sub-query runs on the caller's thread.
 * If any fails, the others' results are released and the first error is thrown.
 */
public final class FanOut {
    private interface Task<T> {
        T run(ConnectionWorker worker, ShardQuery q) throws SQLException;
    }

    private final Backends backends;
    private final ExecutorService threads = BackendThreads.pool("lutra-fan-out");

    public FanOut(Backends backends) {
        this.backends = backends;
    }

    public List<RowSource> query(List<ShardQuery> queries, Connections connections) throws SQLException {
        return all(queries, connections, ConnectionWorker::query, RowSource::close);
    }

    public long[] update(List<ShardQuery> queries, Connections connections) throws SQLException {
        return counts(all(queries, connections, ConnectionWorker::update, c -> {}));
    }

    /**
     * As {@link #update}, each query's backend warnings collected apart: {@code warnings} gets one {@link Warnings} per
     * query, in order; the statement's own warnings get none of them ({@code exec.SameEffect} passes one copy's on).
     */
    public long[] updateEach(List<ShardQuery> queries, Connections connections, List<Warnings> warnings) throws SQLException {
        var own = new ArrayList<Warnings>();
        var byQuery = new java.util.IdentityHashMap<ShardQuery, Warnings>();
        for (var q : queries) {
            var w = new Warnings();
            own.add(w);
            byQuery.put(q, w);
        }
        var counts = counts(all(queries, connections, (w, q) -> w.update(q), c -> {}, q -> new Connections.Forwarding(connections) {
            @Override
            public Warnings warnings() {
                return byQuery.get(q);
            }
        }));
        warnings.addAll(own);
        return counts;
    }

    /** The name of partition {@code partition}, for messages. */
    public String name(int partition) {
        return backends.placement(partition).name();
    }

    /** A loop, not a stream: on a single-row write's path a stream pipeline was 1.5 % of the router's CPU (async-profiler). */
    private static long[] counts(List<Long> counts) {
        long[] out = new long[counts.size()];
        for (int i = 0; i < out.length; i++) out[i] = counts.get(i);
        return out;
    }

    /** As {@link #update}, but a sub-insert the placement trigger refused ({@link Misplaced}) counts {@link Misplaced#COUNT}. */
    public long[] insert(List<ShardQuery> queries, Connections connections) throws SQLException {
        return counts(all(queries, connections, (w, q) -> {
            try {
                return w.update(q);
            } catch (Misplaced m) {
                return Misplaced.COUNT;
            }
        }, c -> {}));
    }

    /** Runs {@code task} for each query's partition at once; if any fails, the others' results go to {@code release} and the first error is thrown. */
    public <T> List<T> each(List<ShardQuery> queries, Connections connections, PartitionTask<T> task, java.util.function.Consumer<T> release)
            throws SQLException {
        return all(queries, connections, (w, q) -> task.run(q.partition()), release);
    }

    public interface PartitionTask<T> {
        T run(int partition) throws SQLException;
    }

    /** For each query, whether it returned at least one row. */
    public boolean[] exists(List<ShardQuery> queries, Connections connections) throws SQLException {
        var found = all(queries, connections, (w, q) -> {
            try (RowSource rows = w.query(q)) {
                return rows.next() != null;
            }
        }, b -> {});
        var out = new boolean[found.size()];
        for (int i = 0; i < out.length; i++) out[i] = found.get(i);
        return out;
    }

    private <T> List<T> all(List<ShardQuery> queries, Connections connections, Task<T> task,
                            java.util.function.Consumer<T> release) throws SQLException {
        return all(queries, connections, task, release, q -> connections);
    }

    /** As above, each query on the connections {@code per} gives it. */
    private <T> List<T> all(List<ShardQuery> queries, Connections connections, Task<T> task,
                            java.util.function.Consumer<T> release, java.util.function.Function<ShardQuery, Connections> per) throws SQLException {
        if (queries.size() == 1) {
            var q = queries.getFirst();
            return new ArrayList<>(List.of(task.run(worker(q, per.apply(q)), q)));
        }
        var futures = new ArrayList<Future<T>>(queries.size());
        for (var q : queries) {
            Connections own = per.apply(q);
            futures.add(threads.submit(() -> task.run(worker(q, own), q)));
        }
        var results = new ArrayList<T>(queries.size());
        SQLException failure = null;
        Throwable unexpected = null;
        for (var f : futures) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException || e.getCause() instanceof Error) {
                    unexpected = e.getCause(); // thrown as it is below: the session logs it with an incident id
                    continue;
                }
                SQLException cause = e.getCause() instanceof SQLException s ? s : new SQLException("partition query failed", "HY000", 0, e.getCause());
                if (failure == null) failure = cause; else failure.addSuppressed(cause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) failure = new SQLException("interrupted while waiting for partitions", "HY008", 0, e);
            }
        }
        if (failure != null || unexpected != null) {
            results.forEach(release);
            if (unexpected instanceof RuntimeException r) throw r;
            if (unexpected instanceof Error err) throw err;
            throw failure;
        }
        return results;
    }

    private ConnectionWorker worker(ShardQuery q, Connections connections) {
        return new ConnectionWorker(backends.placement(q.partition()), connections);
    }
}
