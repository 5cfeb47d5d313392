package org.lutra.partition;

import java.io.IOException;

/** Splits a weighted graph into k parts of balanced vertex weight, cutting as little edge weight as it can. */
public interface Partitioner {
    /**
     * @param k         the number of parts (at least 1)
     * @param imbalance how much heavier than the average a part may be: 0.03 allows parts of 1.03 × total / k
     * @param seed      the same seed on the same graph gives the same parts
     * @return the part of each vertex, 0 .. k-1
     */
    int[] partition(Graph graph, int k, double imbalance, long seed) throws IOException;

    /** What made a map, for its header comment: the algorithm and where it is published. */
    String description();

    /** The partitioner named on the command line: {@code metis} (gpmetis, which must be installed) or {@code builtin}. */
    static Partitioner named(String name) {
        return switch (name) {
            case "metis" -> {
                var metis = MetisPartitioner.find();
                if (metis == null) throw new IllegalArgumentException("--partitioner metis: gpmetis is not on the PATH (Debian: apt-get install metis)");
                yield metis;
            }
            case "builtin" -> new MultilevelPartitioner();
            default -> throw new IllegalArgumentException("unknown partitioner '" + name + "' (metis, builtin)");
        };
    }

    /** METIS where gpmetis is installed, else the built-in one. */
    static Partitioner best() {
        var metis = MetisPartitioner.find();
        return metis != null ? metis : new MultilevelPartitioner();
    }
}
