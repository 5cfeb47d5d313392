package org.lutra.paper;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.workload.RunState;
import org.lutra.workload.Scheme;
import org.lutra.workload.Session;
import org.lutra.workload.Txn;
import org.lutra.workload.Workload;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each paper workload's transactions, the same ones in the same order from one client, through
 * the router under every placement scheme (on two backends, lookup schemes placed by {@code
 * ./lutra partition}) and on one MariaDB holding the same rows: every statement must be answered
 * (no refusal) and every answer — each query's rows, each write's count — must be one MariaDB's
 * ({@link Answers#differences}); afterwards the workload's invariants hold on the shards.
 */
@ExtendWith(EmbeddedShardsExtension.class)
class WorkloadDifferentialIT {
    private static final int TRANSACTIONS = 150;
    private static final long SEED = 11;
    private static final int BACKENDS = 2;
    private static GatedRouterHost bench;

    @BeforeAll
    static void start() throws Exception {
        bench = GatedRouterHost.start("paper-differential");
    }

    @AfterAll
    static void stop() throws Exception {
        if (bench != null) bench.close();
    }

    @TestFactory
    Stream<DynamicTest> micro() throws Exception {
        return compare(new org.lutra.workload.micro.Micro(0.05, SEED, BACKENDS, 0.5, 2));
    }

    @TestFactory
    Stream<DynamicTest> wikipedia() throws Exception {
        return compare(Workloads.create("wikipedia", 0.02, SEED, BACKENDS));
    }

    @TestFactory
    Stream<DynamicTest> twitter() throws Exception {
        return compare(Workloads.create("twitter", 0.02, SEED, BACKENDS));
    }

    @TestFactory
    Stream<DynamicTest> tpce() throws Exception {
        return compare(new org.lutra.workload.tpce.Tpce(1, SEED)); // one chunk: 1,000 customers, about 5,000 accounts and trades
    }

    /** One MariaDB's answers, then each scheme's through a fresh router, compared. */
    private static Stream<DynamicTest> compare(Workload workload) throws Exception {
        Answers reference;
        try (var baseline = BaselineTarget.deploy(bench.cluster(), workload, bench.terminal())) {
            reference = run(baseline, workload).answers();
        }
        long rows = reference.list.stream().mapToLong(a -> a.rows().size()).sum();
        assertTrue(reference.list.size() >= TRANSACTIONS && rows > 0, reference.list.size() + " answers, " + rows + " rows on one MariaDB");
        var tests = new ArrayList<DynamicTest>();
        for (Scheme scheme : workload.schemes()) {
            Path dir = bench.out().resolve(workload.name() + "-" + scheme.name());
            var placement = PartitionStep.place(workload, scheme, BACKENDS, dir, "auto", SEED);
            Answers lutra = null;
            Throwable failure = null;
            List<String> invariants = List.of();
            try (var router = RouterTarget.deploy(bench.cluster(), bench.host(), workload, scheme, BACKENDS, placement, 1, dir, bench.terminal())) {
                Ran ran = run(router, workload);
                lutra = ran.answers();
                invariants = check(router, workload, ran.state());
            } catch (Exception | AssertionError e) {
                failure = e;
            }
            Answers answers = lutra;
            Throwable failed = failure;
            List<String> broken = invariants;
            tests.add(DynamicTest.dynamicTest(workload.name() + " " + scheme.name(), () -> {
                if (failed != null) throw new AssertionError(workload.name() + " " + scheme.name() + ": " + failed, failed);
                assertEquals(List.of(), Answers.differences(answers, reference), "answers through the router against one MariaDB's");
                assertEquals(List.of(), broken, "the invariants on the shards");
            }));
        }
        return tests.stream();
    }

    /** A run's answers, and its state for the invariants. */
    private record Ran(Answers answers, RunState state) {}

    /** {@value #TRANSACTIONS} transactions of the workload's mix from one client, each committed. */
    private static Ran run(Target target, Workload workload) throws Exception {
        var answers = new Answers();
        var state = workload.newRun();
        var mix = workload.mix(0, 1, state);
        var random = new SplittableRandom(SEED);
        try (var session = new Session(answers.wrap(target.connect()), state)) {
            Connection c = session.connection();
            for (int i = 0; i < TRANSACTIONS; i++) {
                Txn txn = mix.next(random);
                c.setAutoCommit(!txn.transactional());
                try {
                    txn.run(session);
                    if (txn.transactional()) c.commit();
                } catch (SQLException e) {
                    throw new AssertionError(target.scheme() + ", transaction " + i + " " + txn.trace() + ": SQLState " + e.getSQLState() + " ("
                            + e.getErrorCode() + "): " + e.getMessage(), e);
                }
                txn.committed(state);
            }
        }
        return new Ran(answers, state);
    }

    private static List<String> check(Target target, Workload workload, RunState state) throws SQLException {
        var databases = target.databases();
        try {
            return workload.check(state, databases);
        } finally {
            for (Connection c : databases) c.close();
        }
    }
}
