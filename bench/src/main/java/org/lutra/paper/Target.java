package org.lutra.paper;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** Where one run's clients connect: a router over n backends, or one MariaDB (the baseline). */
interface Target extends AutoCloseable {
    /** The scheme's name, or {@value BaselineTarget#ONE_MACHINE}. */
    String scheme();

    int backends();

    /** A new client connection (the caller closes it). */
    Connection connect() throws SQLException;

    /** Connections straight to every database that holds the workload's rows, past router and gates (the caller closes them). */
    List<Connection> databases() throws SQLException;

    /**
     * Waits (up to {@code seconds}) until the router runs no move (SHOW MOVES), so that the checks read no rows a move is
     * halfway through (its two-phase commit done on one partition, not yet on the other); the moves still running then.
     */
    default List<String> awaitNoMoves(double seconds) throws SQLException, InterruptedException {
        return List.of();
    }

    /** The router's counters, or null for the baseline. */
    RouterStatus routerStatus() throws SQLException;

    /** CPU ticks the router process has used, or -1 for the baseline. */
    long routerCpuTicks();

    /** CPU ticks the router process's JIT compilers have used (0 for the baseline). */
    default long routerJitTicks() {
        return 0;
    }

    @Override
    void close();
}
