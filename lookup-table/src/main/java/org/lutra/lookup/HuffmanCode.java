package org.lutra.lookup;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * A canonical, length-limited Huffman code over small int symbols (stored partition values),
 * decoded by one table lookup on the next {@link #maxLength} bits.
 *
 * <p>Length limit: codes longer than {@link #LIMIT} bits would make the decode table large and
 * slow; when the optimal code exceeds it, frequencies are flattened and the code rebuilt, which
 * costs a fraction of a bit on pathological distributions only.
 */
final class HuffmanCode {
    static final int LIMIT = 16;

    /** Code length per symbol (0 = symbol unused). */
    final int[] lengths;
    /** Canonical code per symbol, right-aligned. */
    final int[] codes;
    final int maxLength;
    /** Indexed by the next {@code maxLength} bits: {@code symbol << 5 | length}. */
    final int[] decode;

    private HuffmanCode(int[] lengths) {
        this.lengths = lengths;
        this.maxLength = Math.max(1, Arrays.stream(lengths).max().orElse(1));
        this.codes = new int[lengths.length];
        this.decode = new int[1 << maxLength];
        assignCanonical();
    }

    static HuffmanCode build(long[] frequencies) {
        long[] freq = frequencies.clone();
        while (true) {
            int[] lengths = optimalLengths(freq);
            if (Arrays.stream(lengths).max().orElse(0) <= LIMIT) {
                return new HuffmanCode(lengths);
            }
            for (int s = 0; s < freq.length; s++) {
                if (freq[s] > 0) {
                    freq[s] = (freq[s] >>> 1) + 1; // flatten: halves the ratio between rare and common symbols
                }
            }
        }
    }

    /** Rebuilds a code from its lengths (as stored in a snapshot). */
    static HuffmanCode fromLengths(int[] lengths) {
        return new HuffmanCode(lengths.clone());
    }

    private static int[] optimalLengths(long[] freq) {
        int[] lengths = new int[freq.length];
        int used = 0;
        for (long f : freq) {
            used += f > 0 ? 1 : 0;
        }
        if (used <= 1) {
            for (int s = 0; s < freq.length; s++) {
                if (freq[s] > 0) {
                    lengths[s] = 1; // a lone symbol still needs one bit to be decodable
                }
            }
            return lengths;
        }
        // Nodes: leaves 0..n-1, internal nodes after; parent links give each leaf's depth.
        int n = freq.length;
        int[] parent = new int[2 * n];
        long[] weight = new long[2 * n];
        PriorityQueue<Integer> queue = new PriorityQueue<>((a, b) -> weight[a] != weight[b] ? Long.compare(weight[a], weight[b]) : Integer.compare(a, b));
        for (int s = 0; s < n; s++) {
            if (freq[s] > 0) {
                weight[s] = freq[s];
                queue.add(s);
            }
        }
        int next = n;
        while (queue.size() > 1) {
            int a = queue.poll();
            int b = queue.poll();
            weight[next] = weight[a] + weight[b];
            parent[a] = next;
            parent[b] = next;
            queue.add(next++);
        }
        int root = queue.poll();
        for (int s = 0; s < n; s++) {
            if (freq[s] > 0) {
                int depth = 0;
                for (int node = s; node != root; node = parent[node]) {
                    depth++;
                }
                lengths[s] = depth;
            }
        }
        return lengths;
    }

    private void assignCanonical() {
        Integer[] order = new Integer[lengths.length];
        for (int s = 0; s < order.length; s++) {
            order[s] = s;
        }
        Arrays.sort(order, (a, b) -> lengths[a] != lengths[b] ? Integer.compare(lengths[a], lengths[b]) : Integer.compare(a, b));
        int code = 0;
        int previousLength = 0;
        for (int s : order) {
            int len = lengths[s];
            if (len == 0) {
                continue;
            }
            code <<= (len - previousLength);
            previousLength = len;
            codes[s] = code;
            int shift = maxLength - len;
            int from = code << shift;
            Arrays.fill(decode, from, from + (1 << shift), s << 5 | len);
            code++;
        }
    }
}
