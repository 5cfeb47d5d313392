package org.lutra.cli.bench;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;

/**
 * A closed-loop load: {@code clients} threads, each on its own connection(s), run transactions
 * back to back until the time is up. Connections are opened before the clock starts and closed
 * after it stops; a transaction still running at the deadline finishes and counts, and the
 * elapsed time runs until the last client is done, so transactions / seconds is not inflated.
 */
final class ClosedLoop {
    /** One client's connection(s). Called by one thread only. */
    interface Client extends AutoCloseable {
        /** Runs one whole transaction; throws if it did not commit. */
        void transaction(SplittableRandom random) throws Exception;

        @Override
        void close() throws SQLException;
    }

    interface Opener {
        Client open() throws SQLException;
    }

    /** What one run measured: committed transactions, their latencies, and the failures. */
    record Result(long transactions, long errors, double seconds, Latencies latencies, List<String> errorSamples) {
        double perSecond() {
            return seconds > 0 ? transactions / seconds : 0;
        }
    }

    private static final int ERROR_SAMPLES = 3;

    private ClosedLoop() {}

    static Result run(int clients, double seconds, long seed, Opener opener) throws Exception {
        var opened = new ArrayList<Client>();
        try {
            for (int i = 0; i < clients; i++) {
                try {
                    opened.add(opener.open());
                } catch (SQLException e) {
                    // e.g. the router refuses to open transactions: report it as this run's failure, go on with the others
                    return new Result(0, clients, 0, new Latencies(), List.of("connecting: " + describe(e)));
                }
            }
            return measure(opened, seconds, seed);
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

    private static Result measure(List<Client> clients, double seconds, long seed) throws InterruptedException {
        var go = new CountDownLatch(1);
        var latencies = new Latencies[clients.size()];
        var errors = new long[clients.size()];
        var samples = new ArrayList<String>();
        long[] clock = new long[2]; // start, deadline: written before go.countDown(), read after
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
                while (System.nanoTime() < clock[1]) {
                    long t0 = System.nanoTime();
                    try {
                        client.transaction(random);
                        latencies[id].add((System.nanoTime() - t0) / 1000);
                    } catch (Exception e) {
                        errors[id]++;
                        synchronized (samples) {
                            if (samples.size() < ERROR_SAMPLES) samples.add(describe(e));
                        }
                    }
                }
            }));
        }
        clock[0] = System.nanoTime();
        clock[1] = clock[0] + (long) (seconds * 1e9);
        go.countDown();
        for (Thread t : threads) t.join();
        double elapsed = (System.nanoTime() - clock[0]) / 1e9;
        var all = new Latencies();
        long failed = 0;
        for (int i = 0; i < clients.size(); i++) {
            all.addAll(latencies[i]);
            failed += errors[i];
        }
        return new Result(all.size(), failed, elapsed, all, List.copyOf(samples));
    }

    private static String describe(Exception e) {
        return e instanceof SQLException s
                ? "SQLState " + s.getSQLState() + " (" + s.getErrorCode() + "): " + s.getMessage()
                : e.toString();
    }
}
