package org.lutra.partition;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Initial parts by recursive bisection, as METIS makes them for a coarsest graph: each split grows
 * a region breadth-first from a random vertex until it holds its share of the weight (graph
 * growing, Karypis and Kumar 1998), refines the two sides with {@link HillClimbing}, keeps the
 * best of several tries, and recurses into each side with its share of the parts.
 */
final class Bisection {
    static final int TRIES = 3;

    private Bisection() {}

    static int[] partition(Graph g, int k, double imbalance, SplittableRandom random) {
        int[] part = new int[g.vertices()];
        int[] all = new int[g.vertices()];
        for (int v = 0; v < all.length; v++) all[v] = v;
        split(g, all, k, 0, part, imbalance, random);
        return part;
    }

    private static void split(Graph g, int[] vertices, int k, int firstPart, int[] part, double imbalance, SplittableRandom random) {
        if (k == 1 || vertices.length <= 1) {
            for (int v : vertices) part[v] = firstPart;
            return;
        }
        int left = k / 2;
        Graph sub = induced(g, vertices);
        long total = sub.totalVertexWeight();
        long leftTarget = total * left / k;
        long[] limits = {(long) Math.ceil(leftTarget * (1 + imbalance)), (long) Math.ceil((total - leftTarget) * (1 + imbalance))};
        int[] best = null;
        long bestCut = Long.MAX_VALUE;
        for (int t = 0; t < TRIES; t++) {
            int[] side = grow(sub, leftTarget, random);
            new HillClimbing(sub, side, limits).run(2);
            long cut = sub.edgeCut(side);
            if (cut < bestCut) {
                best = side;
                bestCut = cut;
            }
        }
        int leftCount = 0;
        for (int s : best) if (s == 0) leftCount++;
        int[] lefts = new int[leftCount];
        int[] rights = new int[vertices.length - leftCount];
        for (int i = 0, l = 0, r = 0; i < vertices.length; i++) {
            if (best[i] == 0) lefts[l++] = vertices[i];
            else rights[r++] = vertices[i];
        }
        split(g, lefts, left, firstPart, part, imbalance, random);
        split(g, rights, k - left, firstPart + left, part, imbalance, random);
    }

    /** Side 0: a region grown breadth-first from random starts until it weighs {@code target}; side 1 the rest. */
    private static int[] grow(Graph g, long target, SplittableRandom random) {
        int n = g.vertices();
        int[] side = new int[n];
        Arrays.fill(side, 1);
        int[] queue = new int[n];
        boolean[] queued = new boolean[n];
        int[] starts = MultilevelPartitioner.permutation(n, random);
        long weight = 0;
        int head = 0;
        int tail = 0;
        int next = 0;
        while (weight < target) {
            if (head == tail) {
                while (next < n && queued[starts[next]]) next++;
                if (next == n) break;
                queued[starts[next]] = true;
                queue[tail++] = starts[next];
            }
            int v = queue[head++];
            side[v] = 0;
            weight += g.vertexWeights[v];
            for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) {
                int u = g.adjacency[i];
                if (!queued[u]) {
                    queued[u] = true;
                    queue[tail++] = u;
                }
            }
        }
        return side;
    }

    /** The subgraph on {@code vertices} (local ids in their order), edges leaving it dropped. */
    static Graph induced(Graph g, int[] vertices) {
        int[] local = new int[g.vertices()];
        Arrays.fill(local, -1);
        for (int i = 0; i < vertices.length; i++) local[vertices[i]] = i;
        int[] offsets = new int[vertices.length + 1];
        int edges = 0;
        for (int v : vertices) for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) if (local[g.adjacency[i]] >= 0) edges++;
        int[] adjacency = new int[edges];
        int[] weights = new int[edges];
        int[] vertexWeights = new int[vertices.length];
        int at = 0;
        for (int j = 0; j < vertices.length; j++) {
            int v = vertices[j];
            vertexWeights[j] = g.vertexWeights[v];
            for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) {
                int u = local[g.adjacency[i]];
                if (u >= 0) {
                    adjacency[at] = u;
                    weights[at++] = g.edgeWeights[i];
                }
            }
            offsets[j + 1] = at;
        }
        return new Graph(offsets, adjacency, weights, vertexWeights);
    }
}
