package org.lutra.partition;

import java.util.Arrays;

/**
 * How good a partition is: the edge weight it cuts, and its balance (the heaviest part against the
 * average; 1.0 is perfect).
 */
public record Quality(long edgeCut, long totalEdgeWeight, long[] partWeights, double balance) {
    public static Quality of(Graph graph, int[] part, int k) {
        long[] weights = graph.partWeights(part, k);
        double average = (double) graph.totalVertexWeight() / k;
        long max = Arrays.stream(weights).max().orElse(0);
        return new Quality(graph.edgeCut(part), graph.totalEdgeWeight(), weights, average == 0 ? 1 : max / average);
    }

    /** The cut as a share of all edge weight. */
    public double cutShare() {
        return totalEdgeWeight == 0 ? 0 : (double) edgeCut / totalEdgeWeight;
    }

    @Override
    public String toString() {
        return String.format("edge cut %,d of %,d (%.2f%%), balance %.3f (heaviest part / average), part weights %s",
                edgeCut, totalEdgeWeight, 100 * cutShare(), balance, Arrays.toString(partWeights));
    }
}
