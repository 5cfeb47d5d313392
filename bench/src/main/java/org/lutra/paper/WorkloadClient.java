package org.lutra.paper;

import org.lutra.cli.bench.ClosedLoop;
import org.lutra.trace.TraceLine;
import org.lutra.trace.TraceWriter;
import org.lutra.workload.Mix;
import org.lutra.workload.RunState;
import org.lutra.workload.Session;
import org.lutra.workload.Txn;
import org.lutra.workload.Workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Queue;
import java.util.SplittableRandom;

/**
 * One closed-loop client of a workload: draws a transaction from its mix (or takes the next one
 * of a replayed trace), runs it, commits, and runs it again with the same parameters when the
 * backends aborted it (deadlock, lock wait timeout, serialization failure), as an application
 * would. A committed transaction is written to the recording, if any.
 */
final class WorkloadClient implements ClosedLoop.Client {
    private final Session session;
    private final Mix mix;
    private final Workload workload;
    private final Queue<TraceLine> replay;
    private final TraceWriter record;
    private final Aborts aborts;
    private final RunState state;

    WorkloadClient(Connection connection, Workload workload, Mix mix, RunState state, Queue<TraceLine> replay, TraceWriter record, Aborts aborts) {
        this.session = new Session(connection, state);
        this.workload = workload;
        this.mix = mix;
        this.state = state;
        this.replay = replay;
        this.record = record;
        this.aborts = aborts;
    }

    @Override
    public void transaction(SplittableRandom random) throws Exception {
        Txn txn;
        if (replay != null) {
            TraceLine line = replay.poll();
            if (line == null) throw new ClosedLoop.Exhausted();
            txn = workload.replay(line);
        } else {
            txn = mix.next(random);
        }
        Connection c = session.connection();
        if (c.getAutoCommit() == txn.transactional()) c.setAutoCommit(!txn.transactional());
        for (int attempt = 1; ; attempt++) {
            try {
                txn.run(session);
                if (txn.transactional()) c.commit();
                break;
            } catch (SQLException e) {
                if (txn.transactional()) rollbackQuietly(c);
                Aborts.Cause cause = Aborts.classify(e);
                if (cause == null) throw e;
                aborts.count(cause);
                if (attempt >= Aborts.MAX_ATTEMPTS) {
                    aborts.gaveUp();
                    throw new SQLException("gave up after " + attempt + " attempts, each aborted (" + cause + "), the last: " + e.getMessage(),
                            e.getSQLState(), e.getErrorCode(), e);
                }
                Thread.sleep(random.nextInt(1, 2 + 2 * attempt)); // back off a few ms, growing, so two victims do not meet again at once
            }
        }
        txn.committed(state);
        if (record != null) {
            try {
                record.write(txn.trace());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken: the next statement says so
        }
    }

    @Override
    public void close() throws SQLException {
        session.close();
    }
}
