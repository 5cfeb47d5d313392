package org.lutra.partition;

import java.util.Arrays;

/**
 * An undirected graph with vertex and edge weights in compressed sparse rows, as METIS holds one:
 * the neighbours of vertex v are {@code adjacency[offsets[v] .. offsets[v+1])} with the weights
 * {@code edgeWeights} at the same positions; every edge is listed at both ends; no self-loops.
 */
public final class Graph {
    final int[] offsets;
    final int[] adjacency;
    final int[] edgeWeights;
    final int[] vertexWeights;

    public Graph(int[] offsets, int[] adjacency, int[] edgeWeights, int[] vertexWeights) {
        if (offsets.length != vertexWeights.length + 1 || adjacency.length != edgeWeights.length
                || offsets[offsets.length - 1] != adjacency.length) {
            throw new IllegalArgumentException("inconsistent graph arrays");
        }
        this.offsets = offsets;
        this.adjacency = adjacency;
        this.edgeWeights = edgeWeights;
        this.vertexWeights = vertexWeights;
    }

    public int vertices() {
        return vertexWeights.length;
    }

    /** Undirected edges (each listed twice in the arrays). */
    public long edges() {
        return adjacency.length / 2;
    }

    public int degree(int v) {
        return offsets[v + 1] - offsets[v];
    }

    public int vertexWeight(int v) {
        return vertexWeights[v];
    }

    public long totalVertexWeight() {
        long sum = 0;
        for (int w : vertexWeights) sum += w;
        return sum;
    }

    /** The sum of all edge weights, each edge once. */
    public long totalEdgeWeight() {
        long sum = 0;
        for (int w : edgeWeights) sum += w;
        return sum / 2;
    }

    /** The weight of the edges whose ends are in different parts, each edge once. */
    public long edgeCut(int[] part) {
        long cut = 0;
        for (int v = 0; v < vertices(); v++) {
            for (int i = offsets[v]; i < offsets[v + 1]; i++) {
                if (part[adjacency[i]] != part[v]) cut += edgeWeights[i];
            }
        }
        return cut / 2;
    }

    public long[] partWeights(int[] part, int k) {
        long[] weights = new long[k];
        for (int v = 0; v < vertices(); v++) weights[part[v]] += vertexWeights[v];
        return weights;
    }

    /**
     * Builds a graph from edges given once each ({@code from[i]}–{@code to[i]}, weight {@code weight[i]}); parallel
     * edges are summed, self-loops dropped. For tests and for graphs read from elsewhere.
     */
    public static Graph fromEdges(int[] vertexWeights, int[] from, int[] to, int[] weight) {
        int n = vertexWeights.length;
        int[] degree = new int[n + 1];
        for (int i = 0; i < from.length; i++) {
            if (from[i] == to[i]) continue;
            degree[from[i]]++;
            degree[to[i]]++;
        }
        int[] start = new int[n + 1];
        for (int v = 0; v < n; v++) start[v + 1] = start[v] + degree[v];
        int[] adj = new int[start[n]];
        int[] w = new int[start[n]];
        int[] fill = Arrays.copyOf(start, n);
        for (int i = 0; i < from.length; i++) {
            if (from[i] == to[i]) continue;
            adj[fill[from[i]]] = to[i];
            w[fill[from[i]]++] = weight[i];
            adj[fill[to[i]]] = from[i];
            w[fill[to[i]]++] = weight[i];
        }
        // merge parallel edges with a dense accumulator
        var merged = new Accumulator(n);
        int[] offsets = new int[n + 1];
        int[] outAdj = new int[adj.length];
        int[] outW = new int[adj.length];
        int at = 0;
        for (int v = 0; v < n; v++) {
            for (int i = start[v]; i < start[v + 1]; i++) merged.add(adj[i], w[i]);
            at = merged.drainInto(outAdj, outW, at);
            offsets[v + 1] = at;
        }
        return new Graph(offsets, Arrays.copyOf(outAdj, at), Arrays.copyOf(outW, at), vertexWeights.clone());
    }

    /** Sums weights by neighbour in a dense array, remembering which entries it touched (a sparse accumulator). */
    static final class Accumulator {
        private final long[] sums;
        private final int[] touched;
        private int count;

        Accumulator(int size) {
            sums = new long[size];
            touched = new int[size];
        }

        void add(int vertex, long weight) {
            if (sums[vertex] == 0) touched[count++] = vertex;
            sums[vertex] += weight;
        }

        /** Writes the sums in ascending vertex order from {@code at}; returns the next position; clears itself. */
        int drainInto(int[] adjacency, int[] weights, int at) {
            Arrays.sort(touched, 0, count);
            for (int i = 0; i < count; i++) {
                int u = touched[i];
                adjacency[at] = u;
                weights[at++] = (int) Math.min(Integer.MAX_VALUE, sums[u]);
                sums[u] = 0;
            }
            count = 0;
            return at;
        }

        int count() {
            return count;
        }
    }
}
