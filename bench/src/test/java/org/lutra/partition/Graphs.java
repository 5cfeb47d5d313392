package org.lutra.partition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** Graphs whose good partitions are known, for the partitioner's tests. */
final class Graphs {
    private Graphs() {}

    /** {@code count} cliques of {@code size} vertices, no edge between them: the best cut is 0. */
    static Graph cliques(int count, int size) {
        var from = new ArrayList<Integer>();
        var to = new ArrayList<Integer>();
        for (int c = 0; c < count; c++) {
            for (int i = 0; i < size; i++) {
                for (int j = i + 1; j < size; j++) {
                    from.add(c * size + i);
                    to.add(c * size + j);
                }
            }
        }
        return unitGraph(count * size, from, to);
    }

    /** A rows × cols grid (4-neighbours). */
    static Graph grid(int rows, int cols) {
        var from = new ArrayList<Integer>();
        var to = new ArrayList<Integer>();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int v = r * cols + c;
                if (c + 1 < cols) {
                    from.add(v);
                    to.add(v + 1);
                }
                if (r + 1 < rows) {
                    from.add(v);
                    to.add(v + cols);
                }
            }
        }
        return unitGraph(rows * cols, from, to);
    }

    /**
     * A stochastic block model: {@code blocks} communities of {@code size} vertices, an edge inside a
     * community with probability {@code pIn}, across with {@code pOut}. Vertex v is in community v / size.
     */
    static Graph blocks(int blocks, int size, double pIn, double pOut, long seed) {
        var random = new Random(seed);
        var from = new ArrayList<Integer>();
        var to = new ArrayList<Integer>();
        int n = blocks * size;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (random.nextDouble() < (i / size == j / size ? pIn : pOut)) {
                    from.add(i);
                    to.add(j);
                }
            }
        }
        return unitGraph(n, from, to);
    }

    /**
     * A follower graph with power-law out-degrees and communities: each of {@code n} users is in one
     * of {@code communities} (v % communities), follows d others with d drawn from a Pareto law
     * (minimum 3, exponent 2, at most 300), each followee inside the user's community with
     * probability {@code inside} and picked by popularity (a Zipf-like weight per user), so that
     * in-degrees are skewed too. Edges are undirected for partitioning, weight 1.
     */
    static Graph followers(int n, int communities, double inside, long seed) {
        var random = new Random(seed);
        double[] popularity = new double[n];
        for (int v = 0; v < n; v++) popularity[v] = 1.0 / Math.pow(1 + random.nextInt(n), 0.8);
        // per community, cumulative popularity over its members, for weighted picks
        List<int[]> members = new ArrayList<>();
        List<double[]> cumulative = new ArrayList<>();
        for (int c = 0; c < communities; c++) {
            int size = (n - c + communities - 1) / communities;
            int[] m = new int[size];
            double[] cum = new double[size];
            double sum = 0;
            for (int i = 0; i < size; i++) {
                m[i] = c + i * communities;
                sum += popularity[m[i]];
                cum[i] = sum;
            }
            members.add(m);
            cumulative.add(cum);
        }
        Set<Long> edges = new HashSet<>();
        for (int v = 0; v < n; v++) {
            int degree = (int) Math.min(300, Math.floor(3 / Math.sqrt(1 - random.nextDouble())));
            for (int d = 0; d < degree; d++) {
                int c = random.nextDouble() < inside ? v % communities : random.nextInt(communities);
                double[] cum = cumulative.get(c);
                int i = Arrays.binarySearch(cum, random.nextDouble() * cum[cum.length - 1]);
                int u = members.get(c)[i < 0 ? -i - 1 : i];
                if (u != v) edges.add(Math.min(u, v) * (long) n + Math.max(u, v));
            }
        }
        var from = new ArrayList<Integer>();
        var to = new ArrayList<Integer>();
        for (long e : edges) {
            from.add((int) (e / n));
            to.add((int) (e % n));
        }
        return unitGraph(n, from, to);
    }

    /** The cut of the partition that puts vertex v in part v % parts (the followers graph's communities). */
    static int[] modulo(int n, int parts) {
        int[] part = new int[n];
        for (int v = 0; v < n; v++) part[v] = v % parts;
        return part;
    }

    static int[] byBlock(int n, int size) {
        int[] part = new int[n];
        for (int v = 0; v < n; v++) part[v] = v / size;
        return part;
    }

    private static Graph unitGraph(int n, List<Integer> from, List<Integer> to) {
        int[] vw = new int[n];
        Arrays.fill(vw, 1);
        int[] w = new int[from.size()];
        Arrays.fill(w, 1);
        return Graph.fromEdges(vw, from.stream().mapToInt(Integer::intValue).toArray(), to.stream().mapToInt(Integer::intValue).toArray(), w);
    }
}
