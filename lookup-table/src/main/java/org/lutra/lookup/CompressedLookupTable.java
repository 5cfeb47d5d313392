package org.lutra.lookup;

import java.util.Arrays;

/**
 * A read-mostly integer-key table stored as bucketed Huffman codes ({@link HuffmanPages}) plus a
 * small delta of recent changes. Several times smaller than a dense array on skewed or clustered
 * maps, at the price of decoding up to 32 codes per lookup.
 *
 * <p>Changes go to the delta (a primitive hash map, checked first); when it outgrows
 * {@code max(4096, cells/64)} entries the writer re-encodes everything into new pages and
 * publishes pages and an empty delta together in one volatile {@link State}, so a reader always
 * sees a base and the delta that goes with it. Re-encoding runs in the writer that crossed the
 * threshold, under the write lock: puts stall for the rebuild (seconds at 10^8 keys), reads never.
 */
public final class CompressedLookupTable implements IntegerKeyTable {
    /** Delta value for "removed since the pages were built". */
    private static final int REMOVED = Integer.MAX_VALUE;
    /** Largest partition id: the code alphabet (and its frequency table) stays small. */
    public static final int MAX_PARTITION = 0xFFFE;

    private record State(HuffmanPages pages, ConcurrentLongIntMap delta) {}

    private final Object writeLock = new Object();
    private volatile State state;
    private volatile long size;

    public CompressedLookupTable() {
        this(HuffmanPages.empty());
    }

    private CompressedLookupTable(HuffmanPages pages) {
        state = new State(pages, new ConcurrentLongIntMap());
        size = pages.entries;
    }

    /** Compresses the entries of a dense array (which stays untouched). */
    public static CompressedLookupTable of(DenseArrayLookupTable source) {
        DenseStorage p = source.storage();
        return new CompressedLookupTable(HuffmanPages.build(p.base, p.span, i -> p.load(p.base + i)));
    }

    @Override
    public int get(long key) {
        State s = state;
        ConcurrentLongIntMap delta = s.delta;
        if (delta.size() != 0) {
            int changed = delta.get(key);
            if (changed != MISSING) {
                return changed == REMOVED ? MISSING : changed;
            }
        }
        return s.pages.load(key) - 1;
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition);
        if (partition > MAX_PARTITION) {
            throw new IllegalArgumentException("the compressed table codes partitions up to " + MAX_PARTITION + ", not " + partition);
        }
        change(key, partition);
    }

    @Override
    public boolean remove(long key) {
        return change(key, REMOVED);
    }

    /** Records a change; returns whether the key had an entry before. */
    private boolean change(long key, int value) {
        synchronized (writeLock) {
            State s = state;
            int before = get(key);
            if (before == MISSING && value == REMOVED) {
                return false;
            }
            s.delta.put(key, value);
            if (before == MISSING) {
                size = size + 1;
            } else if (value == REMOVED) {
                size = size - 1;
            }
            if (s.delta.size() > Math.max(4096, s.pages.cells >>> 6)) {
                rebuild(s);
            }
            return before != MISSING;
        }
    }

    /** Re-encodes pages + delta into new pages over the union of their key ranges; caller holds the lock. */
    private void rebuild(State s) {
        int n = (int) s.delta.size();
        long[] keys = new long[n];
        int[] at = {0};
        s.delta.forEach((k, v) -> keys[at[0]++] = k);
        Arrays.sort(keys, 0, at[0]);
        long lo = s.pages.cells == 0 ? Long.MAX_VALUE : s.pages.base;
        long hi = s.pages.cells == 0 ? Long.MIN_VALUE : s.pages.base + s.pages.cells - 1;
        for (int i = 0; i < at[0]; i++) {
            if (s.delta.get(keys[i]) != REMOVED) {
                lo = Math.min(lo, keys[i]);
                hi = Math.max(hi, keys[i]);
            }
        }
        if (lo > hi) {
            state = new State(HuffmanPages.empty(), new ConcurrentLongIntMap());
            return;
        }
        long cells = hi - lo + 1;
        if (cells <= 0 || cells > (long) DenseArrayLookupTable.DEFAULT_MAX_PAGES << DenseStorage.PAGE_BITS) {
            throw new IllegalArgumentException("keys " + lo + ".." + hi + " span too much for a compressed table; use a hash table");
        }
        long base = lo;
        HuffmanPages pages = HuffmanPages.build(base, cells, i -> {
            long key = base + i;
            int changed = s.delta.get(key); // one probe per cell: the rebuild is O(cells), amortized over cells/64 changes
            if (changed != MISSING) {
                return changed == REMOVED ? 0 : changed + 1;
            }
            return s.pages.load(key);
        });
        state = new State(pages, new ConcurrentLongIntMap());
    }

    /** Folds the delta into the pages now (e.g. after a bulk load, before serving reads). */
    public void compact() {
        synchronized (writeLock) {
            if (state.delta.size() > 0) {
                rebuild(state);
            }
        }
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        State s = state;
        HuffmanPages p = s.pages;
        for (long i = 0; i < p.cells; i++) {
            int stored = p.load(p.base + i);
            if (stored != 0 && s.delta.get(p.base + i) == MISSING) {
                visitor.visit(p.base + i, PartitionSet.of(stored - 1));
            }
        }
        s.delta.forEach((k, v) -> {
            if (v != REMOVED) {
                visitor.visit(k, PartitionSet.of(v));
            }
        });
    }

    @Override
    public long estimatedBytes() {
        State s = state;
        return 64 + s.pages.bytes() + s.delta.estimatedBytes();
    }

    /**
     * Rough size from a profile, for the chooser (see {@link HuffmanPages} for the layout): 17
     * index bits and a header per bucket; a bucket crossed by a run boundary (at most one per run)
     * codes its cells against its default, about 1.3 bits a cell; without run information every
     * bucket is assumed mixed and cells cost the entropy of the partition distribution.
     */
    static double estimateBytes(KeyProfile profile) {
        double span = profile.spanKeys();
        double buckets = Math.ceil(span / HuffmanPages.BUCKET);
        long[] h = Arrays.copyOf(profile.histogram(), profile.histogram().length + 1);
        h[h.length - 1] = (long) Math.max(0, span - profile.integerKeys()); // empty cells are a symbol too
        double entropy = new KeyProfile(0, 0, 0, -1, 0, 0, h, 0).entropyBits();
        double header = 1 + 17 + Math.max(1, entropy);
        if (profile.runs() > 0) {
            double mixed = Math.min(buckets, profile.runs());
            return (buckets * header + mixed * HuffmanPages.BUCKET * 1.3) / 8;
        }
        return (buckets * header + span * Math.max(1, entropy + 0.1)) / 8;
    }
}
