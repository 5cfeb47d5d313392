package org.lutra.paper;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.trace.TraceReader;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each paper workload at a tiny scale, every scheme on two backends behind gates and the
 * one-machine baseline: a fixed number of transactions must all commit (every statement answered,
 * each answer checked by the transaction against the generated data), and the invariants must
 * hold on the shards afterwards. Nothing here measures time.
 */
@ExtendWith(EmbeddedShardsExtension.class)
class PaperWorkloadsIT {
    private static final int TRANSACTIONS = 150;
    private static Cluster cluster;
    private static Path out;

    @BeforeAll
    static void shards() throws Exception {
        // a generous capacity and no latency: the gates' protocol is exercised, the runs stay short
        cluster = Cluster.over(EmbeddedShardsExtension.shards(), Emulation.gate(1_000_000, 0));
        out = Files.createTempDirectory("paper-it");
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    private static Options options(Path dir, Path record, Path replay) {
        return new Options(List.of(2), List.of(), 4, 0, 0, TRANSACTIONS, 0.02, 7, dir, true, cluster.emulation(), null, true, record, replay, null, "auto");
    }

    private static List<RunResult> run(String workload) throws Exception {
        Path dir = out.resolve(workload);
        var results = new Results(dir);
        var terminal = new Terminal(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try (var experiment = new Experiment(cluster, options(dir, null, null), results, terminal)) {
            if (workload.equals("micro")) experiment.micro(List.of(0.0, 1.0));
            else experiment.workload(Workloads.create(workload, 0.02, 7, 1));
            Summary.write(results, options(dir, null, null), cluster.describe(), 0, experiment.notes());
        }
        assertTrue(Files.exists(dir.resolve("summary.json")) && Files.exists(dir.resolve("runs.csv")));
        return results.all();
    }

    private static Stream<DynamicTest> checks(List<RunResult> runs) {
        var tests = new ArrayList<DynamicTest>();
        for (RunResult r : runs) {
            tests.add(DynamicTest.dynamicTest(r.id(), () -> {
                String error = String.join("\n", r.errorSamples());
                assertEquals(0, r.errors(), r.id() + ": " + error);
                assertTrue(r.transactions() >= TRANSACTIONS, r.id() + ": " + r.transactions() + " transactions");
                assertEquals(List.of(), r.invariantProblems(), r.id());
            }));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> micro() throws Exception {
        return checks(run("micro"));
    }

    @TestFactory
    Stream<DynamicTest> wikipedia() throws Exception {
        return checks(run("wikipedia"));
    }

    @TestFactory
    Stream<DynamicTest> twitter() throws Exception {
        return checks(run("twitter"));
    }

    @TestFactory
    Stream<DynamicTest> tpce() throws Exception {
        return checks(run("tpce"));
    }

    /** A recorded run replays: the same transactions, in the trace's order, all committed again on fresh rows. */
    @TestFactory
    Stream<DynamicTest> recordThenReplay() throws Exception {
        Path dir = out.resolve("record");
        Path trace = dir.resolve("twitter.trace");
        Files.createDirectories(dir);
        var terminal = new Terminal(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        var twitter = Workloads.create("twitter", 0.02, 7, 1);
        var recorded = new Options(List.of(2), List.of("hash"), 4, 0, 0, TRANSACTIONS, 0.02, 7, dir, true, cluster.emulation(), null, false, trace, null, null, "auto");
        try (var experiment = new Experiment(cluster, recorded, new Results(dir.resolve("first")), terminal)) {
            experiment.workload(twitter);
        }
        var lines = TraceReader.readAll(trace).transactions();
        var replayed = new Options(List.of(2), List.of("lookup"), 4, 0, 0, 0, 0.02, 7, dir, true, cluster.emulation(), null, false, null, trace, null, "auto");
        var results = new Results(dir.resolve("second"));
        try (var experiment = new Experiment(cluster, replayed, results, terminal)) {
            experiment.workload(Workloads.create("twitter", 0.02, 7, 1));
        }
        var run = results.all().getFirst();
        return Stream.of(DynamicTest.dynamicTest("the trace holds the committed transactions", () -> assertTrue(lines.size() >= TRANSACTIONS, lines.size() + " lines")),
                DynamicTest.dynamicTest("the replay runs each line once", () -> {
                    assertEquals(0, run.errors(), String.join("\n", run.errorSamples()));
                    assertEquals(lines.size(), run.transactions());
                    assertEquals(List.of(), run.invariantProblems());
                }));
    }
}
