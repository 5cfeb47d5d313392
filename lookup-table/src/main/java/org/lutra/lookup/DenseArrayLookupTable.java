package org.lutra.lookup;

/**
 * Integer keys mapped through an array: the key minus a base indexes a cell holding the
 * partition. One byte a key up to 255 partitions, two up to 65,535, four beyond; the width grows
 * when a larger partition id arrives, the key range grows (up or down) as keys arrive, and a cell
 * of 0 is the explicit "no entry" value (cells hold {@code partition + 1}).
 *
 * <p>The fastest and, above a few percent density, the smallest table (see {@link LookupTables}).
 * String keys are not supported. Storage is one flat array ({@link DenseFlat}) while the span
 * fits {@link #FLAT_MAX_BYTES} and is not too sparse, else pages ({@link DensePages}); the flat
 * layout looks keys up about twice as fast, the paged one grows without copying cells and
 * leaves gaps unallocated. Pre-size large tables (the chooser and the loaders do): growing a
 * flat array copies it.
 *
 * <p>Readers take no lock: one read of the storage (see {@link #flatBytes} for the flat byte
 * case), then one cell (flat) or one directory slot and one cell (paged). Writers serialize on a
 * lock, write cells in place, and replace the storage object when they must grow, widen or change
 * its layout; the replacement is complete before it is published, so a reader sees the old
 * storage or the new one, never a mix, and never a torn cell.
 */
public final class DenseArrayLookupTable implements IntegerKeyTable {
    /** Default cap on the span: 2^24 pages of 64 Ki keys, about 10^12 keys. */
    public static final int DEFAULT_MAX_PAGES = 1 << 24;
    /**
     * Largest flat array, in bytes (512 MiB). Beyond it the table is paged: a single array of a
     * billion bytes does not fit a 1.2 GB heap under the generational collectors (ParallelGC puts
     * it in an old generation of 2/3 of the heap), and growing it would need a second copy.
     */
    public static final long FLAT_MAX_BYTES = 1L << 29;
    /** Spans up to this many cells stay flat however sparse: the waste is bounded. */
    static final long FLAT_ANY_DENSITY_CELLS = 1 << 20;
    /** Above {@link #FLAT_ANY_DENSITY_CELLS}, a flat span needs one entry in this many cells. */
    static final int FLAT_MIN_DENSITY_INVERSE = 8;

    private final Object writeLock = new Object();
    private final int maxPages;
    private final long flatMaxBytes;
    private volatile DenseStorage storage;
    /**
     * The storage again when it is a flat byte array (the common case: up to 255 partitions), else
     * null; the lookup fast path. Typed with the final class, so a lookup calls no virtual method
     * and needs no type check. Not volatile, so that the JIT may keep it (and the array and base
     * behind it) in registers across a loop of lookups, as it does for an array a method owns:
     * that halves the instructions a lookup and lets the core keep twice as many cache misses in
     * flight (docs/benchmarks-router.md). Safe without the volatile because {@link #publish} stores a fresh
     * {@link DenseFlat.Bytes} built after its cells were written: a reader that sees it through
     * the race sees its final fields and the array contents as of its construction (JLS 17.5).
     * A reader may use a storage a little older than the newest (in a loop with no synchronizing
     * action, the one it read first), which is a lookup table's licence to be late, never torn.
     */
    private DenseFlat.Bytes flatBytes;
    private volatile long size;

    public DenseArrayLookupTable() {
        this(0, 0, 1);
    }

    /**
     * @param firstKey       a key expected in the table (anchors the range; others may fall below)
     * @param expectedSpan   keys expected above {@code firstKey}: pre-sizes the storage (flat up to
     *                       {@link #FLAT_MAX_BYTES}, whatever the density: the caller expects these keys)
     * @param partitionCount partitions expected: picks the cell width up front, avoiding a widening copy
     */
    public DenseArrayLookupTable(long firstKey, long expectedSpan, int partitionCount) {
        this(firstKey, expectedSpan, partitionCount, DEFAULT_MAX_PAGES, FLAT_MAX_BYTES);
    }

    /** {@code flatMaxBytes} 0 keeps the table paged (tests, and the benchmark's before/after comparison). */
    DenseArrayLookupTable(long firstKey, long expectedSpan, int partitionCount, int maxPages, long flatMaxBytes) {
        this.maxPages = maxPages;
        this.flatMaxBytes = flatMaxBytes;
        long base = firstKey & ~(long) DenseStorage.PAGE_MASK;
        long pageCount = (firstKey - base + Math.max(0, expectedSpan) + DenseStorage.PAGE_MASK) >>> DenseStorage.PAGE_BITS;
        if (pageCount > maxPages) {
            throw new IllegalArgumentException("a dense array spanning " + expectedSpan + " keys exceeds " + maxPages + " pages");
        }
        int maxStored = Math.max(partitionCount, 1);
        boolean flat = flatMaxBytes > 0
                && pageCount * DenseStorage.PAGE_SIZE * DenseStorage.widthOf(DenseStorage.maxStoredFor(maxStored)) <= flatMaxBytes;
        publish(DenseStorage.create(flat, base, (int) pageCount, maxStored));
    }

    /** A table that never uses the flat layout. */
    static DenseArrayLookupTable paged(long firstKey, long expectedSpan, int partitionCount) {
        return new DenseArrayLookupTable(firstKey, expectedSpan, partitionCount, DEFAULT_MAX_PAGES, 0);
    }

    /** Cell width in bytes (1, 2 or 4). */
    public int width() {
        return storage.width();
    }

    /** Whether the storage is one flat array (else pages). */
    public boolean flat() {
        return storage instanceof DenseFlat;
    }

    /** Lowest and one-past-highest key the current storage covers. */
    public long spanStart() {
        return storage.base;
    }

    public long spanEnd() {
        DenseStorage s = storage;
        return s.base + s.span;
    }

    @Override
    public int get(long key) {
        DenseFlat.Bytes bytes = flatBytes;
        return (bytes != null ? bytes.load(key) : storage.load(key)) - 1;
    }

    /** Makes a complete storage current; readers see it whole from their next read of it. */
    private void publish(DenseStorage s) {
        flatBytes = s instanceof DenseFlat.Bytes b ? new DenseFlat.Bytes(b.base, b.cells) : null; // frozen after the cells
        storage = s; // writers keep writing cells in place through this one; the array is shared
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition);
        int stored = partition + 1; // Integer.MAX_VALUE + 1 wraps to a value 4-byte cells hold unsigned
        synchronized (writeLock) {
            DenseStorage s = ensureFits(key, stored);
            int old = s.load(key);
            s.store(key, stored);
            if (old == 0) {
                size = size + 1;
            }
        }
    }

    @Override
    public boolean remove(long key) {
        synchronized (writeLock) {
            DenseStorage s = storage;
            if (!s.covers(key) || s.load(key) == 0) {
                return false;
            }
            s.store(key, 0);
            size = size - 1;
            return true;
        }
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        DenseStorage s = storage;
        for (int i = 0; i < s.pageCount(); i++) {
            if (!s.pagePresent(i)) {
                continue;
            }
            long first = s.base + ((long) i << DenseStorage.PAGE_BITS);
            for (int c = 0; c < DenseStorage.PAGE_SIZE; c++) {
                int stored = s.cell(i, c);
                if (stored != 0) {
                    visitor.visit(first + c, PartitionSet.of(stored - 1));
                }
            }
        }
    }

    @Override
    public long estimatedBytes() {
        return 56 + storage.storageBytes();
    }

    /** Density of the covered span: entries over keys spanned by allocated storage. */
    public double density() {
        DenseStorage s = storage;
        return s.span == 0 ? 0 : (double) size / s.span;
    }

    DenseStorage storage() {
        return storage;
    }

    /** Rebuilds a table around restored storage (snapshots); {@code size} is the count of non-zero cells. */
    static DenseArrayLookupTable restore(DenseStorage storage, long size) {
        var table = new DenseArrayLookupTable();
        table.publish(storage);
        table.size = size;
        return table;
    }

    /**
     * Throws what {@link #put} would throw for a key (the first argument) if keys {@code low..high}
     * were added to the table as it is now; does nothing if they fit. Bulk loads call it before
     * writing anything, so that a file with an out-of-range key is refused whole.
     */
    public void checkCanHold(long key, long low, long high) {
        DenseStorage s = storage;
        long first = low & ~(long) DenseStorage.PAGE_MASK;
        long last = high & ~(long) DenseStorage.PAGE_MASK;
        if (s.span != 0) {
            first = Math.min(first, s.base);
            last = Math.max(last, s.base + s.span - DenseStorage.PAGE_SIZE);
        }
        if (pagesSpanned(first, last) < 0) {
            throw tooFar(key);
        }
    }

    /** Pages from the page starting at {@code first} to the one at {@code last} inclusive, or -1 beyond {@code maxPages}. */
    private long pagesSpanned(long first, long last) {
        long distance = last - first; // negative when the true distance overflows a long
        long pages = (distance >>> DenseStorage.PAGE_BITS) + 1;
        return distance < 0 || pages > maxPages ? -1 : pages;
    }

    private IllegalArgumentException tooFar(long key) {
        return new IllegalArgumentException("key " + key + " is too far from the other keys of this dense table (more than "
                + ((long) maxPages << DenseStorage.PAGE_BITS) + " keys spanned); use a hash table for sparse keys");
    }

    /** The layout the table uses for a span of {@code cells} cells holding {@code entries} entries. */
    static boolean flatFor(long cells, int width, long entries, long flatMaxBytes) {
        return cells * width <= flatMaxBytes
                && (cells <= FLAT_ANY_DENSITY_CELLS || entries * FLAT_MIN_DENSITY_INVERSE >= cells);
    }

    /** Grows the span and/or widens the cells so that the key and value fit; caller holds the lock. */
    private DenseStorage ensureFits(long key, int stored) {
        DenseStorage s = storage;
        if (s.covers(key) && s.holds(stored)) {
            return s;
        }
        // Page starts, inclusive at both ends, so that keys near Long.MAX_VALUE do not overflow an exclusive end.
        long keyPage = key & ~(long) DenseStorage.PAGE_MASK;
        long first = s.span == 0 ? keyPage : s.base;
        long last = s.span == 0 ? keyPage : s.base + s.span - DenseStorage.PAGE_SIZE;
        long newFirst = Math.min(first, keyPage);
        long newLast = Math.max(last, keyPage);
        long neededPages = pagesSpanned(newFirst, newLast);
        if (neededPages < 0) {
            throw tooFar(key);
        }
        if (s.span != 0 && neededPages > s.pageCount()) {
            // Grow by half again on the side that grew, so that an ascending or descending load
            // copies the storage O(log n) times.
            long slack = Math.min(maxPages - neededPages, Math.max(1, s.pageCount() / 2));
            if (newLast > last) {
                long headroom = Long.MAX_VALUE - newLast >>> DenseStorage.PAGE_BITS;
                long up = Math.min(headroom, slack);
                neededPages += up;
                slack -= up;
            }
            if (newFirst < first) {
                long headroom = newFirst - Long.MIN_VALUE >>> DenseStorage.PAGE_BITS; // unsigned distance to the bottom
                long down = Math.min(headroom, slack);
                newFirst -= down << DenseStorage.PAGE_BITS;
                neededPages += down;
            }
        }
        int newMax = s.holds(stored) ? s.maxStored() : stored; // never narrower than now
        int width = DenseStorage.widthOf(DenseStorage.maxStoredFor(newMax));
        boolean flat = flatFor(neededPages << DenseStorage.PAGE_BITS, width, size + 1, flatMaxBytes);
        DenseStorage grown = s.reshape(flat, newFirst, (int) neededPages, newMax);
        publish(grown); // readers switch to the new storage in one volatile read
        return grown;
    }
}
