package org.lutra.workload;

import org.lutra.partition.CoAccessGraph;
import org.lutra.partition.Partitioner;
import org.lutra.partition.Quality;
import org.lutra.trace.TraceLine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A lookup scheme's placement the way an administrator makes it with Schism: a trace of the
 * workload's transactions → its co-access graph → k balanced parts by a partitioner → each key's
 * partition, per owner table.
 */
public final class TracePlacement {
    /** The imbalance the partitioner may leave: a part up to 5 % heavier than the average. */
    static final double IMBALANCE = 0.05;
    /** Transactions touching more keys add no edges (their cliques would swamp the graph). */
    static final int MAX_KEYS = 200;

    private final CoAccessGraph graph;
    private final int[] parts;
    private final Quality quality;
    private final String madeBy;
    private final int k;

    private TracePlacement(CoAccessGraph graph, int[] parts, int k, String madeBy) {
        this.graph = graph;
        this.parts = parts;
        this.k = k;
        this.quality = Quality.of(graph.graph(), parts, k);
        this.madeBy = madeBy;
    }

    /**
     * @param sameAs SAME AS table → owner: their keys are the owner's vertices
     * @param owners the owner tables whose keys are placed
     */
    public static TracePlacement of(List<TraceLine> trace, Map<String, String> sameAs, Set<String> owners, Partitioner partitioner, int k,
                                    long seed) throws IOException {
        var builder = new CoAccessGraph.Builder(owners, sameAs, CoAccessGraph.Weights.ACCESSES, MAX_KEYS);
        for (TraceLine line : trace) builder.add(line, Map.of());
        var graph = builder.build();
        int[] parts = k == 1 ? new int[graph.graph().vertices()] : partitioner.partition(graph.graph(), k, IMBALANCE, seed);
        return new TracePlacement(graph, parts, k, partitioner.description());
    }

    public CoAccessGraph graph() {
        return graph;
    }

    /** Vertex i's part. */
    public int[] parts() {
        return parts;
    }

    /** Owner table → key → part. */
    public Map<String, Map<String, Integer>> byTable() {
        var out = new HashMap<String, Map<String, Integer>>();
        var vertices = graph.vertices();
        for (int v = 0; v < vertices.size(); v++) {
            out.computeIfAbsent(vertices.get(v).table(), t -> new HashMap<>()).put(vertices.get(v).key(), parts[v]);
        }
        return out;
    }

    /** {@code key,pN} lines of one owner table, for a csv map. */
    public List<String> csv(String table) {
        var lines = new ArrayList<String>();
        byTable().getOrDefault(table, Map.of()).forEach((key, part) -> lines.add(key + ",p" + part));
        lines.sort(null);
        return lines;
    }

    public String madeBy() {
        return madeBy;
    }

    /** What the report says about the partition: graph size, cut, balance, and the trace's single-partition share. */
    public String describe() {
        return String.format(Locale.ROOT, "%,d vertices, %,d edges; edge cut %.1f %%, heaviest part %.2f × the average; %.1f %% of the trace's "
                        + "transactions on one part", graph.graph().vertices(), graph.graph().edges(), 100 * quality.cutShare(), quality.balance(),
                100 * graph.singlePartShare(parts));
    }

    public int k() {
        return k;
    }
}
