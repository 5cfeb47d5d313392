package org.lutra.lookup;

import java.util.function.LongUnaryOperator;

/**
 * An immutable, Huffman-coded array of stored values (partition + 1, 0 = no entry) over a key
 * range: the paper's bucketed Huffman table (§V-B).
 *
 * <p>Layout. Cells are grouped in buckets of {@link #BUCKET} keys. A bucket starts with one flag
 * bit and the code of its default value (its most frequent one). Flag 1: every cell holds the
 * default (a clustered map costs a couple of bits per 32 keys). Flag 0: one code per cell follows,
 * either the "same as default" symbol (usually a one-bit code) or the cell's own value. The sparse index that gives random
 * access is two-level: an absolute bit offset per group of 64 buckets ({@code long}) plus a
 * 16-bit offset per bucket relative to its group (0.5 bit a key). A lookup seeks to its bucket
 * and decodes at most {@code BUCKET} codes, one table lookup each.
 */
final class HuffmanPages {
    static final int BUCKET_BITS = 5;
    static final int BUCKET = 1 << BUCKET_BITS;
    static final int GROUP_BITS = 6;

    final long base;
    final long cells;
    final long entries;
    final HuffmanCode code;
    private final long[] bits;
    private final long[] groupOffsets;
    private final char[] bucketOffsets;

    private HuffmanPages(long base, long cells, long entries, HuffmanCode code, long[] bits, long[] groupOffsets, char[] bucketOffsets) {
        this.base = base;
        this.cells = cells;
        this.entries = entries;
        this.code = code;
        this.bits = bits;
        this.groupOffsets = groupOffsets;
        this.bucketOffsets = bucketOffsets;
    }

    static HuffmanPages empty() {
        return build(0, 0, i -> 0);
    }

    /**
     * Encodes cells {@code storedAt(0 .. cells-1)} (stored values) for keys {@code base ..}. Two
     * passes over the source: frequencies, then codes.
     */
    static HuffmanPages build(long base, long cells, LongUnaryOperator storedAt) {
        long buckets = (cells + BUCKET - 1) >>> BUCKET_BITS;
        if (buckets > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("a compressed table of " + cells + " cells is too large");
        }
        int[] cell = new int[BUCKET];
        long[] freq = new long[2];
        long entries = 0;
        for (long b = 0; b < buckets; b++) {
            int n = fill(cell, b, cells, storedAt);
            int mode = mode(cell, n);
            freq = count(freq, mode + 1);
            if (!constant(cell, n, mode)) {
                for (int i = 0; i < n; i++) {
                    freq = count(freq, cell[i] == mode ? SAME : cell[i] + 1);
                }
            }
            for (int i = 0; i < n; i++) {
                entries += cell[i] != 0 ? 1 : 0;
            }
        }
        HuffmanCode code = HuffmanCode.build(freq);
        var out = new BitWriter(Math.max(16, cells / 4));
        long[] groupOffsets = new long[(int) ((buckets >>> GROUP_BITS) + 1)];
        char[] bucketOffsets = new char[(int) buckets];
        long groupStart = 0;
        for (int b = 0; b < buckets; b++) {
            if ((b & ((1 << GROUP_BITS) - 1)) == 0) {
                groupStart = out.position();
                groupOffsets[b >>> GROUP_BITS] = groupStart;
            }
            bucketOffsets[b] = (char) (out.position() - groupStart); // < 63 * (1 + 33 * 16) bits: fits 16 bits
            int n = fill(cell, b, cells, storedAt);
            int mode = mode(cell, n);
            boolean constant = constant(cell, n, mode);
            out.write(constant ? 1 : 0, 1);
            out.write(code.codes[mode + 1], code.lengths[mode + 1]);
            if (!constant) {
                for (int i = 0; i < n; i++) {
                    int symbol = cell[i] == mode ? SAME : cell[i] + 1;
                    out.write(code.codes[symbol], code.lengths[symbol]);
                }
            }
        }
        return new HuffmanPages(base, cells, entries, code, out.finish(), groupOffsets, bucketOffsets);
    }

    /**
     * Code symbol meaning "this cell holds the bucket's default"; a stored value v is symbol v + 1.
     * Coding cells against a per-bucket default (its most frequent value) is what lets a clustered
     * map with some noise cost about a bit a key instead of the global entropy.
     */
    private static final int SAME = 0;

    private static int fill(int[] cell, long bucket, long cells, LongUnaryOperator storedAt) {
        long from = bucket << BUCKET_BITS;
        int n = (int) Math.min(BUCKET, cells - from);
        for (int i = 0; i < n; i++) {
            cell[i] = (int) storedAt.applyAsLong(from + i);
        }
        return n;
    }

    /** Most frequent value of the bucket (Boyer–Moore vote first: cheap, exact when a majority exists). */
    private static int mode(int[] cell, int n) {
        int candidate = cell[0];
        int votes = 0;
        for (int i = 0; i < n; i++) {
            if (votes == 0) {
                candidate = cell[i];
            }
            votes += cell[i] == candidate ? 1 : -1;
        }
        return candidate;
    }

    private static boolean constant(int[] cell, int n, int value) {
        for (int i = 0; i < n; i++) {
            if (cell[i] != value) {
                return false;
            }
        }
        return true;
    }

    private static long[] count(long[] freq, int symbol) {
        if (symbol >= freq.length) {
            freq = java.util.Arrays.copyOf(freq, Math.max(symbol + 1, freq.length * 2));
        }
        freq[symbol]++;
        return freq;
    }

    /** Stored value for the key (0 = no entry or outside the range). */
    int load(long key) {
        long index = key - base;
        if (Long.compareUnsigned(index, cells) >= 0) {
            return 0;
        }
        int bucket = (int) (index >>> BUCKET_BITS);
        long pos = groupOffsets[bucket >>> GROUP_BITS] + bucketOffsets[bucket];
        int maxLength = code.maxLength;
        int[] decode = code.decode;
        boolean constant = peek(pos, 1) == 1;
        int head = decode[peek(pos + 1, maxLength)];
        int fallback = (head >>> 5) - 1;
        if (constant) {
            return fallback;
        }
        pos += 1 + (head & 31);
        for (int skip = (int) index & (BUCKET - 1); skip > 0; skip--) {
            pos += decode[peek(pos, maxLength)] & 31;
        }
        int symbol = decode[peek(pos, maxLength)] >>> 5;
        return symbol == SAME ? fallback : symbol - 1;
    }

    /** The next {@code n} (1..32) bits at {@code pos}, MSB first. The stream has a spare word at the end. */
    private int peek(long pos, int n) {
        int word = (int) (pos >>> 6);
        int offset = (int) pos & 63;
        long window = bits[word] << offset;
        if (offset != 0) {
            window |= bits[word + 1] >>> (64 - offset);
        }
        return (int) (window >>> (64 - n));
    }

    long bytes() {
        return 64 + 16 + 8L * bits.length + 16 + 8L * groupOffsets.length + 16 + 2L * bucketOffsets.length + 16 + 4L * code.decode.length;
    }

    long bitCount() {
        return 64L * bits.length;
    }

    /** Bits appended MSB first into a growing long array. */
    private static final class BitWriter {
        private long[] words;
        private long position;

        BitWriter(long initialBits) {
            words = new long[(int) Math.min(Integer.MAX_VALUE - 8, (initialBits >>> 6) + 2)];
        }

        long position() {
            return position;
        }

        void write(int value, int length) {
            for (int written = 0; written < length; ) {
                int word = (int) (position >>> 6);
                if (word + 1 >= words.length) {
                    words = java.util.Arrays.copyOf(words, (int) Math.min(Integer.MAX_VALUE - 8, words.length * 3L / 2 + 2));
                }
                int offset = (int) position & 63;
                int room = 64 - offset;
                int take = Math.min(room, length - written);
                long chunk = ((long) value >>> (length - written - take)) & ((1L << take) - 1);
                words[word] |= chunk << (room - take);
                written += take;
                position += take;
            }
        }

        long[] finish() {
            return java.util.Arrays.copyOf(words, (int) (position >>> 6) + 2); // spare word for peek
        }
    }
}
