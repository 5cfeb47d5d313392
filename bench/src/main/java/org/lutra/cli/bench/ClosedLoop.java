package org.lutra.cli.bench;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop load: {@code clients} threads, each on its own connection(s), run transactions
 * back to back, one at a time each, until the time or the count is up. Connections are opened
 * before the clock starts and closed after it stops. A transaction still running at the deadline finishes and counts, and the
 * elapsed time runs until the last client is done, so transactions / seconds is not inflated.
 */
public final class ClosedLoop {
    /** One client's connection(s). Called by one thread only. */
    public interface Client extends AutoCloseable {
        /** Runs one whole transaction; throws if it did not commit. */
        void transaction(SplittableRandom random) throws Exception;

        @Override
        void close() throws SQLException;
    }

    public interface Opener {
        Client open() throws SQLException;
    }

    /** What one run measured: committed transactions, their latencies, and the failures. */
    public record Result(long transactions, long errors, double seconds, Latencies latencies, List<String> errorSamples) {
        public double perSecond() {
            return seconds > 0 ? transactions / seconds : 0;
        }
    }

    /**
     * How long a run lasts: {@code seconds}, or (when {@code transactions} > 0) until that many
     * transactions committed or a client's source of transactions ran out ({@link Exhausted}).
     */
    public record Plan(int clients, double seconds, long transactions, Progress progress) {
        public Plan {
            if (clients < 1) throw new IllegalArgumentException("at least one client");
            if (transactions <= 0 && seconds <= 0) throw new IllegalArgumentException("a duration or a count");
            if (progress == null) progress = Progress.NONE;
        }
    }

    /** Told once a second how the run is going (a terminal's progress line). */
    public interface Progress {
        Progress NONE = (elapsed, committed, errors) -> {};

        /** {@code committed} and {@code errors} so far. */
        void show(double elapsedSeconds, long committed, long errors);
    }

    /** Thrown by a client that has no more transactions to run (a replayed trace's end): it stops, the others go on. */
    public static final class Exhausted extends RuntimeException {
        public Exhausted() {
            super("no more transactions", null, false, false);
        }
    }

    private static final int ERROR_SAMPLES = 3;

    private ClosedLoop() {}

    static Result run(int clients, double seconds, long seed, Opener opener) throws Exception {
        return run(new Plan(clients, seconds, 0, null), seed, opener);
    }

    public static Result run(Plan plan, long seed, Opener opener) throws Exception {
        var opened = new ArrayList<Client>();
        try {
            for (int i = 0; i < plan.clients(); i++) {
                try {
                    opened.add(opener.open());
                } catch (SQLException e) {
                    // e.g. the router refuses to open transactions: report it as this run's failure, go on with the others
                    return new Result(0, plan.clients(), 0, new Latencies(), List.of("connecting: " + describe(e)));
                }
            }
            return measure(opened, plan, seed);
        } finally {
            for (Client c : opened) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // the run is over; a failed close changes nothing measured
                }
            }
        }
    }

    /** The clock of one run, shared by its clients: written before they start, read after. */
    private record Clock(long start, long deadline, long count, AtomicLong committed, AtomicLong failed) {
        boolean over(long now) {
            return count > 0 ? committed.get() >= count : now >= deadline;
        }
    }

    private static Result measure(List<Client> clients, Plan plan, long seed) throws InterruptedException {
        var go = new CountDownLatch(1);
        var latencies = new Latencies[clients.size()];
        var errors = new long[clients.size()];
        var samples = new ArrayList<String>();
        long start = System.nanoTime();
        var clock = new Clock(start, plan.transactions() > 0 ? Long.MAX_VALUE : start + (long) (plan.seconds() * 1e9),
                plan.transactions(), new AtomicLong(), new AtomicLong());
        var threads = new ArrayList<Thread>();
        for (int i = 0; i < clients.size(); i++) {
            int id = i;
            latencies[id] = new Latencies();
            threads.add(Thread.ofPlatform().name("bench-client-" + id).start(() -> {
                var random = new SplittableRandom(seed * 1_000_003L + id);
                Client client = clients.get(id);
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long t0 = System.nanoTime(); !clock.over(t0); t0 = System.nanoTime()) {
                    try {
                        client.transaction(random);
                        latencies[id].add((System.nanoTime() - t0) / 1000);
                        clock.committed().incrementAndGet();
                    } catch (Exhausted e) {
                        return;
                    } catch (Exception e) {
                        errors[id]++;
                        clock.failed().incrementAndGet();
                        synchronized (samples) {
                            if (samples.size() < ERROR_SAMPLES) samples.add(describe(e));
                        }
                    }
                }
            }));
        }
        var reporter = plan.progress() == Progress.NONE ? null : Thread.ofPlatform().daemon().name("bench-progress").start(() -> report(plan, clock));
        go.countDown();
        for (Thread t : threads) t.join();
        if (reporter != null) reporter.interrupt();
        double elapsed = (System.nanoTime() - clock.start()) / 1e9;
        var all = new Latencies();
        long failed = 0;
        for (int i = 0; i < clients.size(); i++) {
            all.addAll(latencies[i]);
            failed += errors[i];
        }
        return new Result(all.size(), failed, elapsed, all, List.copyOf(samples));
    }

    private static void report(Plan plan, Clock clock) {
        try {
            while (true) {
                Thread.sleep(1000);
                plan.progress().show((System.nanoTime() - clock.start()) / 1e9, clock.committed().get(), clock.failed().get());
            }
        } catch (InterruptedException e) {
            // the run is over
        }
    }

    public static String describe(Exception e) {
        return e instanceof SQLException s
                ? "SQLState " + s.getSQLState() + " (" + s.getErrorCode() + "): " + s.getMessage()
                : e.toString();
    }
}
