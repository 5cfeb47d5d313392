package org.lutra.backend;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Notices a backend server that stopped answering while statements wait on it — a frozen
 * process, or a host cut off without its TCP connections being reset — and closes the waiting
 * connections, so their sessions get an error within a bound instead of waiting for ever.
 *
 * <p>A socket timeout cannot tell such a server from one busy with a long statement (neither
 * sends a byte), so the watch asks the server itself: once a connection has waited a ping
 * timeout, it opens a fresh connection and sends {@code SELECT 1}, bounded by the same timeout.
 * Answered: the server is alive and the statement merely long; nothing is touched. Unanswered:
 * every connection waiting on that partition is aborted (its socket closed); the server rolls
 * back what they had not committed when it runs again, and the router reports 2013 with the
 * reason. Detection takes between one and two ping timeouts plus the ping itself.
 */
public final class BackendWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BackendWatch.class);

    /**
     * The connections of one partition borrowed now, each with the time it was borrowed: while
     * borrowed, every use of it may wait on the server. Most are removed as they go back to the
     * pool; the rest (a transaction's, closed where it ends) when the watch finds them closed.
     */
    public static final class Waiting {
        private final ConcurrentHashMap<Connection, Long> since = new ConcurrentHashMap<>();
        /** Connections this watch closed, until their statement reports the failure ({@link #cutOff}). */
        private final Set<Connection> closedByWatch = ConcurrentHashMap.newKeySet();

        public void add(Connection c) {
            since.put(c, System.nanoTime());
        }

        public void remove(Connection c) {
            since.remove(c);
            if (!closedByWatch.isEmpty()) closedByWatch.remove(c);
        }

        /** Connections it counts as borrowed now. */
        public int size() {
            return since.size();
        }

        /** Whether the watch closed {@code c} because its server did not answer (the failure the statement saw). */
        public boolean cutOff(Connection c) {
            return !closedByWatch.isEmpty() && closedByWatch.contains(c); // asked after every statement: almost always empty
        }

        /** Forgets connections given back without {@link #remove} (closed: HikariCP's proxies say so without a round trip). */
        void prune() {
            for (Connection c : since.keySet()) {
                try {
                    if (c.isClosed()) remove(c);
                } catch (SQLException e) {
                    remove(c);
                }
            }
        }
    }

    private final List<Backends.Placement> placements;
    private final Thread thread;
    private volatile boolean closed;

    BackendWatch(List<Backends.Placement> placements) {
        this.placements = placements;
        long tick = placements.stream().mapToLong(p -> p.pingTimeoutMillis()).min().orElse(5_000) / 2;
        this.thread = Thread.ofPlatform().daemon().name("lutra-backend-watch").start(() -> watch(Math.max(50, tick)));
    }

    private void watch(long tickMillis) {
        while (!closed) {
            try {
                Thread.sleep(tickMillis);
                for (var p : placements) check(p);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("backend watch: {}", e.toString(), e);
            }
        }
    }

    private void check(Backends.Placement p) throws InterruptedException {
        long timeout = TimeUnit.MILLISECONDS.toNanos(p.pingTimeoutMillis());
        p.waiting().prune();
        long now = System.nanoTime();
        var longWaiting = p.waiting().since.entrySet().stream().filter(e -> now - e.getValue() >= timeout).map(java.util.Map.Entry::getKey).toList();
        if (longWaiting.isEmpty() || answersPing(p)) return;
        log.warn("partition {} on backend {}: no answer to a ping within {} ms while {} borrowed connection(s) waited on it; closing their connections",
                p.name(), p.backend(), p.pingTimeoutMillis(), longWaiting.size());
        for (Connection c : longWaiting) {
            if (!p.waiting().since.containsKey(c)) continue; // answered meanwhile
            p.waiting().closedByWatch.add(c);
            try {
                BackendDriver.abort(c);
            } catch (SQLException | RuntimeException e) {
                log.warn("backend watch: could not close a connection to partition {}: {}", p.name(), e.toString());
            }
        }
    }

    /** Whether the partition's server answers {@code SELECT 1} on a new connection within the ping timeout. */
    static boolean answersPing(Backends.Placement p) throws InterruptedException {
        var answered = new CompletableFuture<Boolean>();
        String url = p.pool().getJdbcUrl() + "&socketTimeout=" + p.pingTimeoutMillis();
        Thread.ofVirtual().name("lutra-ping-" + p.name()).start(() -> {
            try (Connection c = DriverManager.getConnection(url, p.freshProperties());
                 var s = c.createStatement()) {
                s.execute("SELECT 1");
                answered.complete(true);
            } catch (SQLException e) {
                answered.complete(serverAnswered(e));
            } catch (RuntimeException e) {
                answered.complete(false);
            }
        });
        try {
            return answered.get(p.pingTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
    }

    /**
     * Whether a failed ping was still the server's answer: an error packet it sent (1040 "Too many
     * connections", 1045, ...) shows a live server, only busy or strict, so waiting connections are
     * left alone. Client-side errors (Connector/J's 2000-2999 and 0: no answer, refused, timed out)
     * are not answers.
     */
    static boolean serverAnswered(SQLException e) {
        int code = e.getErrorCode();
        return code > 0 && (code < 2000 || code >= 3000);
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
