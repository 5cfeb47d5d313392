package org.lutra.partition;

import java.util.PriorityQueue;

/**
 * Fiduccia–Mattheyses style k-way refinement ("A linear-time heuristic for improving network
 * partitions", DAC 1982; k-way with a priority queue of best moves as in METIS's and KaFFPa's
 * boundary FM): boundary vertices are moved one at a time, best gain first — negative gains
 * too, which is how a cut climbs out of the local minima greedy refinement stops in (a grid's
 * ragged boundary) — each vertex once a pass; after {@code patience} moves without a better cut
 * the moves past the best cut seen are undone. Only moves that keep the target part within the
 * weight limit are made.
 */
final class HillClimbing {
    /** Vertices with more neighbours are not re-queued when a neighbour moves (a hub's gain is recomputed when popped). */
    private static final int REQUEUE_DEGREE = 2000;

    private final Graph g;
    private final int[] part;
    private final long[] weights;
    private final long[] limits;
    private final long[] conn;
    private final int[] touched;
    private final boolean[] marked;
    /** The best move found by {@link #bestMove}: its target part and gain. */
    private int moveTo;
    private long moveGain;

    HillClimbing(Graph g, int[] part, int k, long maxPart) {
        this(g, part, filled(k, maxPart));
    }

    /** @param limits the weight each part may reach */
    HillClimbing(Graph g, int[] part, long[] limits) {
        int k = limits.length;
        this.g = g;
        this.part = part;
        this.weights = g.partWeights(part, k);
        this.limits = limits;
        this.conn = new long[k];
        this.touched = new int[k];
        this.marked = new boolean[k];
    }

    /** Passes until one gains nothing (at most {@code passes}); returns the cut weight gained. */
    long run(int passes) {
        long gained = 0;
        for (int pass = 0; pass < passes; pass++) {
            long g = pass();
            if (g <= 0) break;
            gained += g;
        }
        return gained;
    }

    private long pass() {
        int n = g.vertices();
        int patience = Math.max(50, Math.min(n / 50, 2000));
        var queue = new PriorityQueue<Long>((a, b) -> Long.compare(b, a));
        for (int v = 0; v < n; v++) {
            if (bestMove(v)) queue.add(pack(moveGain, v));
        }
        boolean[] locked = new boolean[n];
        int[] movedVertex = new int[n];
        int[] movedFrom = new int[n];
        int moves = 0;
        long total = 0;
        long best = 0;
        int bestMoves = 0;
        int sinceBest = 0;
        while (!queue.isEmpty() && sinceBest < patience) {
            long entry = queue.poll();
            int v = (int) (entry & 0xffffffffL);
            if (locked[v] || !bestMove(v)) continue;
            if (pack(moveGain, v) != entry) {
                queue.add(pack(moveGain, v)); // stale: a neighbour moved since it was queued
                continue;
            }
            int from = part[v];
            part[v] = moveTo;
            weights[from] -= g.vertexWeights[v];
            weights[moveTo] += g.vertexWeights[v];
            locked[v] = true;
            movedVertex[moves] = v;
            movedFrom[moves++] = from;
            total += moveGain;
            if (total > best) {
                best = total;
                bestMoves = moves;
                sinceBest = 0;
            } else {
                sinceBest++;
            }
            for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) {
                int u = g.adjacency[i];
                if (!locked[u] && g.degree(u) <= REQUEUE_DEGREE && bestMove(u)) queue.add(pack(moveGain, u));
            }
        }
        for (int m = moves - 1; m >= bestMoves; m--) {
            int v = movedVertex[m];
            weights[part[v]] -= g.vertexWeights[v];
            weights[movedFrom[m]] += g.vertexWeights[v];
            part[v] = movedFrom[m];
        }
        return best;
    }

    /** The best move of v to a neighbouring part with room, in {@link #moveTo} and {@link #moveGain}; false if it has none. */
    private boolean bestMove(int v) {
        int from = part[v];
        int count = 0;
        for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) {
            int p = part[g.adjacency[i]];
            if (!marked[p]) {
                marked[p] = true;
                touched[count++] = p;
            }
            conn[p] += g.edgeWeights[i];
        }
        int x = g.vertexWeights[v];
        moveTo = -1;
        moveGain = Long.MIN_VALUE;
        for (int j = 0; j < count; j++) {
            int p = touched[j];
            if (p == from || weights[p] + x > limits[p]) continue;
            long gain = conn[p] - conn[from];
            if (gain > moveGain || gain == moveGain && weights[p] < weights[moveTo]) {
                moveTo = p;
                moveGain = gain;
            }
        }
        for (int j = 0; j < count; j++) {
            conn[touched[j]] = 0;
            marked[touched[j]] = false;
        }
        conn[from] = 0;
        return moveTo >= 0;
    }

    private static long[] filled(int k, long limit) {
        long[] limits = new long[k];
        java.util.Arrays.fill(limits, limit);
        return limits;
    }

    /** Gain in the high half (signed, clamped to an int), vertex in the low half: larger gains sort first. */
    private static long pack(long gain, int v) {
        long clamped = Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, gain));
        return clamped << 32 | (v & 0xffffffffL);
    }
}
