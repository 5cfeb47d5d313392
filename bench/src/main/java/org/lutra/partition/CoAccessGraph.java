package org.lutra.partition;

import org.lutra.trace.Access;
import org.lutra.trace.TraceLine;
import org.lutra.trace.TraceReader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The co-access graph of a trace, as Schism builds it (Curino et al., VLDB 2010): a vertex per
 * row group — a table's key, a SAME AS table's rows counted with their owner's key — weighted by
 * the transactions that touched it (or 1 each, for balancing by keys); an edge between every two
 * vertices one transaction touched, weighted by the transactions that touched both.
 *
 * <p>Built in two steps: the trace's transactions are kept as lists of vertex numbers, then each
 * vertex's edges are summed in a dense accumulator over the transactions it is in (no hash map of
 * pairs). A transaction of more than {@code maxKeys} vertices counts for its vertices' weights and
 * adds no edges (its clique would dominate the graph and the time); the report counts them.
 */
public final class CoAccessGraph {
    /** A vertex: an owner table (lower case) and a key as the trace wrote it. */
    public record Vertex(String table, String key) {}

    /** How the vertices are weighed for balance. */
    public enum Weights {
        /** the transactions that touched the vertex: parts of equal load */
        ACCESSES,
        /** 1 a vertex: parts of equal key counts */
        KEYS
    }

    private final Graph graph;
    private final List<Vertex> vertices;
    private final int[][] transactions;
    private final long skippedLarge;
    private final long traceLines;

    private CoAccessGraph(Graph graph, List<Vertex> vertices, int[][] transactions, long skippedLarge, long traceLines) {
        this.graph = graph;
        this.vertices = vertices;
        this.transactions = transactions;
        this.skippedLarge = skippedLarge;
        this.traceLines = traceLines;
    }

    public Graph graph() {
        return graph;
    }

    /** Vertex i's table and key. */
    public List<Vertex> vertices() {
        return vertices;
    }

    /** The owner tables of the vertices, in order of first appearance. */
    public List<String> tables() {
        return vertices.stream().map(Vertex::table).distinct().toList();
    }

    /** Transaction lines read. */
    public long traceLines() {
        return traceLines;
    }

    /** Transactions with more than maxKeys vertices: weighed, but no edges. */
    public long skippedLarge() {
        return skippedLarge;
    }

    /** The vertex sets of the transactions that touched at least one selected vertex. */
    int[][] transactions() {
        return transactions;
    }

    /**
     * The share of the trace's transactions (those touching a selected table) that {@code part}
     * keeps on one part.
     */
    public double singlePartShare(int[] part) {
        if (transactions.length == 0) return 1;
        long single = 0;
        for (int[] t : transactions) {
            boolean one = true;
            for (int v : t) one &= part[v] == part[t[0]];
            if (one) single++;
        }
        return (double) single / transactions.length;
    }

    /**
     * Reads {@code file} whole (a malformed line fails it, naming the line) and builds the graph.
     *
     * @param tables  which owner tables become vertices (lower case; others are left out), or null for every table
     * @param sameAs  SAME AS tables → owner (lower case), in addition to the trace's {@code @same-as} lines
     * @param maxKeys transactions with more vertices add no edges
     */
    public static CoAccessGraph read(Path file, Set<String> tables, Map<String, String> sameAs, Weights weights, int maxKeys) throws IOException {
        var builder = new Builder(tables, sameAs, weights, maxKeys);
        try (var in = TraceReader.open(file)) {
            for (TraceLine line; (line = in.next()) != null; ) builder.add(line, in.sameAs());
        }
        return builder.build();
    }

    /** Collects transactions; {@link #build} makes the graph. */
    public static final class Builder {
        private final Predicate<String> selected;
        private final Map<String, String> sameAs;
        private final Weights weights;
        private final int maxKeys;
        private final Map<Vertex, Integer> ids = new HashMap<>();
        private final List<Vertex> vertices = new ArrayList<>();
        private final List<int[]> transactions = new ArrayList<>();
        private int[] accessCounts = new int[1024];
        private long traceLines;

        public Builder(Set<String> tables, Map<String, String> sameAs, Weights weights, int maxKeys) {
            this.selected = tables == null ? t -> true : tables::contains;
            this.sameAs = lower(sameAs);
            this.weights = weights;
            this.maxKeys = maxKeys;
        }

        /** One transaction; {@code traceSameAs}: the trace's own {@code @same-as} lines. */
        public void add(TraceLine line, Map<String, String> traceSameAs) {
            traceLines++;
            int[] members = new int[line.accesses().size()];
            int count = 0;
            for (Access a : line.accesses()) {
                String table = a.table().toLowerCase(Locale.ROOT);
                String owner = sameAs.getOrDefault(table, traceSameAs.getOrDefault(table, table));
                if (!selected.test(owner)) continue;
                var vertex = new Vertex(owner, a.key());
                Integer id = ids.get(vertex);
                if (id == null) {
                    id = vertices.size();
                    ids.put(vertex, id);
                    vertices.add(vertex);
                }
                members[count++] = id;
            }
            if (count == 0) return;
            int[] distinct = Arrays.stream(members, 0, count).sorted().distinct().toArray();
            for (int v : distinct) {
                if (v >= accessCounts.length) accessCounts = Arrays.copyOf(accessCounts, Math.max(v + 1, 2 * accessCounts.length));
                accessCounts[v]++;
            }
            transactions.add(distinct);
        }

        public CoAccessGraph build() {
            int n = vertices.size();
            // which transactions each vertex is in (compressed rows)
            int[] start = new int[n + 1];
            for (int[] t : transactions) if (t.length <= maxKeys) for (int v : t) start[v + 1]++;
            for (int v = 0; v < n; v++) start[v + 1] += start[v];
            int[] in = new int[start[n]];
            int[] fill = Arrays.copyOf(start, n);
            for (int i = 0; i < transactions.size(); i++) {
                int[] t = transactions.get(i);
                if (t.length <= maxKeys) for (int v : t) in[fill[v]++] = i;
            }
            var sums = new Graph.Accumulator(n);
            int[] offsets = new int[n + 1];
            var adjacency = new IntBuffer();
            var edgeWeights = new IntBuffer();
            int[] adj = new int[Math.max(n, 1)];
            int[] w = new int[Math.max(n, 1)];
            for (int v = 0; v < n; v++) {
                for (int i = start[v]; i < start[v + 1]; i++) {
                    for (int u : transactions.get(in[i])) if (u != v) sums.add(u, 1);
                }
                int degree = sums.drainInto(adj, w, 0);
                adjacency.add(adj, degree);
                edgeWeights.add(w, degree);
                offsets[v + 1] = adjacency.size;
            }
            int[] vertexWeights = new int[n];
            for (int v = 0; v < n; v++) vertexWeights[v] = weights == Weights.KEYS ? 1 : Math.max(1, accessCounts[v]);
            long large = transactions.stream().filter(t -> t.length > maxKeys).count();
            var graph = new Graph(offsets, adjacency.toArray(), edgeWeights.toArray(), vertexWeights);
            return new CoAccessGraph(graph, List.copyOf(vertices), transactions.toArray(new int[0][]), large, traceLines);
        }

        private static Map<String, String> lower(Map<String, String> map) {
            var out = new HashMap<String, String>();
            map.forEach((k, v) -> out.put(k.toLowerCase(Locale.ROOT), v.toLowerCase(Locale.ROOT)));
            return out;
        }
    }

    /** A growing int array. */
    private static final class IntBuffer {
        private int[] data = new int[1024];
        private int size;

        void add(int[] values, int count) {
            if (size + count > data.length) data = Arrays.copyOf(data, Math.max(size + count, 2 * data.length));
            System.arraycopy(values, 0, data, size, count);
            size += count;
        }

        int[] toArray() {
            return Arrays.copyOf(data, size);
        }
    }
}
