package org.lutra.backend;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One statement's deadline (the client's query timeout or the router's statement_timeout_ms).
 * Backend statements register while they run; when the deadline passes, each is stopped on its
 * backend, and none starts after it:
 * <ul>
 *   <li>a statement still executing is cancelled with Connector/J's {@link Statement#cancel()},
 *       a KILL QUERY sent on a connection of its own, so the server rolls the statement back;</li>
 *   <li>a connection streaming rows to the router is aborted (its socket closed): the server stops
 *       at its next write, having changed nothing (only SELECTs stream).</li>
 * </ul>
 * Registering and cancelling hold one lock, so a connection is never handed back to its pool
 * while a KILL QUERY for it is under way (it would stop another session's statement).
 */
public final class Deadline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Deadline.class);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lutra-statement-deadlines");
        t.setDaemon(true);
        return t;
    });

    /** No deadline and no way to cancel: registering is free (statements nobody can cancel). */
    public static final Deadline NONE = new Deadline(0);

    private final long millis;
    // made on first use: every statement has a Deadline (it can be cancelled), few register anything that blocks long
    private Set<Statement> executing;
    private Set<Connection> streaming;
    private ScheduledFuture<?> timer;
    private boolean expired;
    private boolean cancelled;
    /** Backend calls of the statement running now (parallel ones on a fan-out), and since when at least one has run. */
    private int backendCalls;
    private long backendSince;
    /** Time during which at least one backend call ran: the statement's backend time, apart from the router's (RouterMetrics). */
    private long backendNanos;

    private Deadline(long millis) {
        this.millis = millis;
    }

    /** A deadline {@code millis} from now (0 = none); either way {@link #cancel()} stops the statement. */
    public static Deadline in(long millis) {
        var d = new Deadline(millis);
        // each KILL QUERY opens a connection: expiries run on threads of their own, not one after another on the timer
        if (millis > 0) d.timer = TIMER.schedule(() -> Thread.ofVirtual().name("lutra-deadline").start(d::expire), millis, TimeUnit.MILLISECONDS);
        return d;
    }

    /** The client cancelled the statement (Statement.cancel): stop it now, as at its deadline. */
    public void cancel() {
        if (this == NONE) return;
        synchronized (this) {
            if (expired) return;
            cancelled = true;
        }
        expire();
    }

    public long millis() {
        return millis;
    }

    /** A backend call that may block. */
    public interface Call<T> {
        T run() throws SQLException;
    }

    /** Runs {@code call}, {@code s}'s execution, registered as executing; refused once the deadline has passed. */
    public <T> T run(Statement s, Call<T> call) throws SQLException {
        executing(s);
        try {
            return call.run();
        } finally {
            done(s);
        }
    }

    private void executing(Statement s) throws SQLException {
        if (this == NONE) return;
        synchronized (this) {
            if (expired) throw exceeded();
            if (executing == null) executing = new HashSet<>();
            executing.add(s);
            if (backendCalls++ == 0) backendSince = System.nanoTime();
        }
    }

    /** {@code c} streams a result until {@link #done(Connection)}. */
    public void streaming(Connection c) throws SQLException {
        if (this == NONE) return;
        synchronized (this) {
            if (expired) throw exceeded();
            if (streaming == null) streaming = new HashSet<>();
            streaming.add(c);
        }
    }

    private void done(Statement s) {
        if (this == NONE) return;
        synchronized (this) {
            if (executing != null) executing.remove(s);
            if (--backendCalls == 0) backendNanos += System.nanoTime() - backendSince;
        }
    }

    public void done(Connection c) {
        if (this == NONE) return;
        synchronized (this) {
            if (streaming != null) streaming.remove(c);
        }
    }

    /** How long at least one backend statement of this statement was running (executing, not streaming its rows) so far. */
    public synchronized long backendNanos() {
        return backendNanos;
    }

    /** Whether the deadline passed (what failed after it is reported as the timeout). */
    public synchronized boolean expired() {
        return expired;
    }

    private synchronized void expire() {
        expired = true;
        for (Statement s : executing == null ? List.<Statement>of() : List.copyOf(executing)) {
            try {
                s.cancel();
            } catch (SQLException | RuntimeException e) {
                log.warn("statement deadline: could not cancel a backend statement: {}", e.toString());
            }
        }
        for (Connection c : streaming == null ? List.<Connection>of() : List.copyOf(streaming)) {
            try {
                BackendDriver.abort(c);
            } catch (SQLException | RuntimeException e) {
                log.warn("statement deadline: could not abort a streaming backend connection: {}", e.toString());
            }
        }
    }

    /** Rethrows {@code failure} as the deadline's error if the deadline has passed (what failed then failed because of it). */
    public void blame(Exception failure) throws SQLException {
        if (!expired()) return;
        var timeout = exceeded();
        timeout.initCause(failure);
        throw timeout;
    }

    /** MariaDB's answer to a statement past max_statement_time (or, cancelled, to KILL QUERY), as the client sees it. */
    public synchronized SQLException exceeded() {
        if (cancelled) return new SQLException("Query execution was interrupted", "70100", 1317);
        return new SQLException("Query execution was interrupted (max_statement_time exceeded: " + millis + " ms)", "70100", 1969);
    }

    @Override
    public void close() {
        if (timer != null) timer.cancel(false);
    }
}
