package org.lutra.partition;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The built-in partitioner against METIS on the same graphs (edge cut, balance). Runs where
 * {@code gpmetis} is installed (Debian: {@code apt-get install metis}), skipped with a message
 * otherwise; the numbers are printed for the record.
 */
class MetisComparisonTest {
    private static MetisPartitioner metis;

    @BeforeEach // each test is reported skipped, with the message, where gpmetis is missing
    void findMetis() {
        metis = MetisPartitioner.find();
        assumeTrue(metis != null, "gpmetis is not installed (Debian: apt-get install metis): the comparison with METIS is skipped");
    }

    @Test
    void followerGraphWithCommunities() throws IOException {
        compare("followers n=10000 8 communities 90% inside", Graphs.followers(10_000, 8, 0.9, 1), 8, 1.5);
        compare("followers n=10000 16 communities 80% inside", Graphs.followers(10_000, 16, 0.8, 2), 8, 1.5);
    }

    @Test
    void plantedPartitionAndGrid() throws IOException {
        compare("blocks 4x250", Graphs.blocks(4, 250, 0.08, 0.002, 1), 4, 1.2);
        compare("grid 64x64 k=2", Graphs.grid(64, 64), 2, 1.5);
        compare("grid 64x64 k=8", Graphs.grid(64, 64), 8, 1.5);
    }

    /** Both on one graph; the built-in cut within {@code slack} × METIS's (+ a few edges), both within the balance. */
    private static void compare(String name, Graph g, int k, double slack) throws IOException {
        int[] byMetis = metis.partition(g, k, 0.03, 1);
        int[] builtin = new MultilevelPartitioner().partition(g, k, 0.03, 1);
        var m = Quality.of(g, byMetis, k);
        var b = Quality.of(g, builtin, k);
        System.out.printf("%-45s k=%d  metis: cut %,d (%.2f%%) balance %.3f   builtin: cut %,d (%.2f%%) balance %.3f   ratio %.2f%n",
                name, k, m.edgeCut(), 100 * m.cutShare(), m.balance(), b.edgeCut(), 100 * b.cutShare(), b.balance(),
                m.edgeCut() == 0 ? 1.0 : (double) b.edgeCut() / m.edgeCut());
        assertTrue(b.edgeCut() <= slack * m.edgeCut() + 10, name + ": builtin " + b + " against metis " + m);
        MultilevelPartitionerTest.assertBalanced(g, builtin, k, b);
    }
}
