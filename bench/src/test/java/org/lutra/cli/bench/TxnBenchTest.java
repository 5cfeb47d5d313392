package org.lutra.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

@ExtendWith(EmbeddedShardsExtension.class)
class TxnBenchTest {

    @Test
    void shortRunReportsEveryWorkloadWithThroughputAndPassesItsChecks(Shards shards) throws Exception {
        var err = new ByteArrayOutputStream();
        var bench = new TxnBench(new PrintStream(java.io.OutputStream.nullOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        var options = TxnBench.parse(List.of("--seconds", "1", "--rounds", "1", "--warmup", "0", "--clients", "2", "--accounts", "200"));

        var outcome = bench.measure(options, shards);
        String report = TxnReport.markdown(outcome);

        assertEquals(List.of(), TxnReport.problems(outcome), report + err);
        for (TxnWorkload w : TxnWorkload.values()) {
            var run = outcome.runs().get(w).getFirst().result();
            assertTrue(run.transactions() > 0 && run.perSecond() > 0, w.key + " committed nothing:\n" + report);
            assertTrue(report.contains("| " + w.label + " | " + w.participants + " | "), "no row for " + w.label + ":\n" + report);
        }
        var twoPhase = outcome.runs().get(TxnWorkload.ROUTER_4P).getFirst().router();
        assertTrue(twoPhase.twoPhase() > 0 && twoPhase.decision().count() == twoPhase.twoPhase(), twoPhase.toString());
        assertTrue(report.contains("| 4p vs 2p |") && report.contains("Cost of the decision log"), report);
        assertEquals(800, outcome.accountsFound());
        assertEquals(0, outcome.balanceSum());
    }

    @Test
    void picksDistinctAscendingIdsOnExactlyTheAskedPartitions() {
        var accounts = new Accounts(4, 10);
        var random = new SplittableRandom(7);
        for (int participants : new int[] {1, 2, 4}) {
            for (int i = 0; i < 1000; i++) {
                int[] ids = accounts.pick(random, participants, 4);
                assertEquals(4, java.util.Arrays.stream(ids).distinct().count());
                for (int k = 1; k < ids.length; k++) assertTrue(ids[k - 1] < ids[k]);
                assertEquals(participants, java.util.Arrays.stream(ids).map(Accounts::partitionOf).distinct().count());
                for (int id : ids) assertTrue(id % Accounts.STRIDE < 10 && Accounts.partitionOf(id) < 4);
            }
        }
    }

    @Test
    void optionsAndMedians() throws Exception {
        var o = TxnBench.parse(List.of("--workloads", "1p,direct", "--seconds=0.5"));
        assertEquals(List.of(TxnWorkload.ROUTER_1P, TxnWorkload.DIRECT), o.workloads());
        assertEquals(0.5, o.seconds());
        assertEquals(4, o.clients());
        assertEquals(2.5, TxnReport.median(new double[] {4, 1, 2, 3}));
        assertEquals(2, new TxnBench(System.out, new PrintStream(java.io.OutputStream.nullOutputStream())).run(List.of("--workloads", "9p")));
    }
}
