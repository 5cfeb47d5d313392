package org.lutra.partition;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Replicas for the vertices that most transactions reach across parts: the {@code count}
 * vertices of highest weighted degree get a copy on every part where one of their neighbours
 * lives, so that reading them there stays local (Twitter's celebrities, read by followers
 * everywhere). Writes then reach every copy; keep {@code count} small.
 */
public final class Replication {
    private Replication() {}

    /** Per vertex, its further parts (null: none). */
    public static int[][] hottest(Graph g, int[] parts, int k, int count) {
        int[][] replicas = new int[g.vertices()][];
        if (count <= 0) return replicas;
        long[] degree = new long[g.vertices()];
        for (int v = 0; v < g.vertices(); v++) for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) degree[v] += g.edgeWeights[i];
        int[] top = IntStream.range(0, g.vertices()).boxed()
                .sorted((a, b) -> degree[a] != degree[b] ? Long.compare(degree[b], degree[a]) : Integer.compare(a, b))
                .limit(count).mapToInt(Integer::intValue).toArray();
        for (int v : top) {
            boolean[] on = new boolean[k];
            for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) on[parts[g.adjacency[i]]] = true;
            on[parts[v]] = false;
            replicas[v] = IntStream.range(0, k).filter(p -> on[p]).toArray();
            if (replicas[v].length == 0) replicas[v] = null;
        }
        return replicas;
    }

    /** The share of transactions that some part holds whole, counting replicas: each vertex may be read on any of its parts. */
    public static double singlePartShare(CoAccessGraph graph, int[] parts, int[][] replicas, int k) {
        int[][] transactions = graph.transactions();
        if (transactions.length == 0) return 1;
        long single = 0;
        boolean[] all = new boolean[k];
        for (int[] t : transactions) {
            Arrays.fill(all, true);
            for (int v : t) {
                boolean[] here = new boolean[k];
                here[parts[v]] = true;
                if (replicas != null && replicas[v] != null) for (int p : replicas[v]) here[p] = true;
                for (int p = 0; p < k; p++) all[p] &= here[p];
            }
            for (boolean b : all) {
                if (b) {
                    single++;
                    break;
                }
            }
        }
        return (double) single / transactions.length;
    }
}
