package org.lutra.lookup;

/**
 * Integer keys mapped through an array: the key minus a base indexes a cell holding the
 * partition. One byte a key up to 255 partitions, two up to 65,535, four beyond; the width grows
 * when a larger partition id arrives, the key range grows (up or down) as keys arrive, and a cell
 * of 0 is the explicit "no entry" value (cells hold {@code partition + 1}).
 *
 * <p>The fastest and, above a few percent density, the smallest table (see {@link LookupTables}).
 * String keys are not supported. Readers take no lock: they read the volatile {@link DensePages}
 * reference, then one directory slot and one cell. Writers serialize on a lock and replace the
 * pages object when they must grow or widen it.
 */
public final class DenseArrayLookupTable implements LookupTable {
    /** Default cap on the directory: 2^24 pages of 64 Ki keys, a span of about 10^12 keys. */
    public static final int DEFAULT_MAX_PAGES = 1 << 24;

    private final Object writeLock = new Object();
    private final int maxPages;
    private volatile DensePages pages;
    private volatile long size;

    public DenseArrayLookupTable() {
        this(0, 0, 1);
    }

    /**
     * @param firstKey       a key expected in the table (anchors the range; others may fall below)
     * @param expectedSpan   keys expected above {@code firstKey}: pre-sizes the directory
     * @param partitionCount partitions expected: picks the cell width up front, avoiding a widening copy
     */
    public DenseArrayLookupTable(long firstKey, long expectedSpan, int partitionCount) {
        this(firstKey, expectedSpan, partitionCount, DEFAULT_MAX_PAGES);
    }

    DenseArrayLookupTable(long firstKey, long expectedSpan, int partitionCount, int maxPages) {
        this.maxPages = maxPages;
        long base = firstKey & ~(long) DensePages.PAGE_MASK;
        long pageCount = (firstKey - base + Math.max(0, expectedSpan) + DensePages.PAGE_MASK) >>> DensePages.PAGE_BITS;
        if (pageCount > maxPages) {
            throw new IllegalArgumentException("a dense array spanning " + expectedSpan + " keys exceeds " + maxPages + " pages");
        }
        this.pages = DensePages.create(base, (int) pageCount, Math.max(partitionCount, 1));
    }

    /** Cell width in bytes (1, 2 or 4). */
    public int width() {
        return pages.width();
    }

    /** Lowest and one-past-highest key the current storage covers. */
    public long spanStart() {
        return pages.base;
    }

    public long spanEnd() {
        DensePages p = pages;
        return p.base + p.span;
    }

    @Override
    public int get(long key) {
        return pages.load(key) - 1;
    }

    @Override
    public int get(String key) {
        return MISSING; // a dense array never holds a String key
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition);
        int stored = partition + 1; // Integer.MAX_VALUE + 1 wraps to a value Ints hold unsigned
        synchronized (writeLock) {
            DensePages p = ensureFits(key, stored);
            int old = p.load(key);
            p.store(key, stored);
            if (old == 0) {
                size = size + 1;
            }
        }
    }

    @Override
    public void put(String key, int partition) {
        throw new IllegalArgumentException("a dense array table holds integer keys only, not the string '" + key + "'");
    }

    @Override
    public boolean remove(long key) {
        synchronized (writeLock) {
            DensePages p = pages;
            if (!p.covers(key) || p.load(key) == 0) {
                return false;
            }
            p.store(key, 0);
            size = size - 1;
            return true;
        }
    }

    @Override
    public boolean remove(String key) {
        return false;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        DensePages p = pages;
        for (int i = 0; i < p.pageCount(); i++) {
            Object page = p.page(i);
            if (page == null) {
                continue;
            }
            long first = p.base + ((long) i << DensePages.PAGE_BITS);
            for (int c = 0; c < DensePages.PAGE_SIZE; c++) {
                int stored = p.cell(page, c);
                if (stored != 0) {
                    visitor.visit(first + c, PartitionSet.of(stored - 1));
                }
            }
        }
    }

    @Override
    public long estimatedBytes() {
        return 48 + pages.pageBytes();
    }

    /** Density of the covered span: entries over keys spanned by allocated storage. */
    public double density() {
        DensePages p = pages;
        return p.span == 0 ? 0 : (double) size / p.span;
    }

    DensePages pages() {
        return pages;
    }

    /** Rebuilds a table around restored storage (snapshots); {@code size} is the count of non-zero cells. */
    static DenseArrayLookupTable restore(DensePages pages, long size) {
        var table = new DenseArrayLookupTable();
        table.pages = pages;
        table.size = size;
        return table;
    }

    /** Grows the span and/or widens the cells so that the key and value fit; caller holds the lock. */
    private DensePages ensureFits(long key, int stored) {
        DensePages p = pages;
        if (p.covers(key) && p.holds(stored)) {
            return p;
        }
        // Page starts, inclusive at both ends, so that keys near Long.MAX_VALUE do not overflow an exclusive end.
        long keyPage = key & ~(long) DensePages.PAGE_MASK;
        long first = p.span == 0 ? keyPage : p.base;
        long last = p.span == 0 ? keyPage : p.base + p.span - DensePages.PAGE_SIZE;
        long newFirst = Math.min(first, keyPage);
        long newLast = Math.max(last, keyPage);
        long distance = newLast - newFirst; // negative when the true distance overflows a long
        if (distance < 0 || (distance >>> DensePages.PAGE_BITS) + 1 > maxPages) {
            throw new IllegalArgumentException("key " + key + " is too far from the keys already in this dense table (more than "
                    + ((long) maxPages << DensePages.PAGE_BITS) + " keys spanned); use a hash table for sparse keys");
        }
        long neededPages = (distance >>> DensePages.PAGE_BITS) + 1;
        if (newLast > last && p.span != 0) {
            // Grow upward by half again so that an ascending load copies the directory O(log n) times.
            long headroom = Long.MAX_VALUE - newLast >>> DensePages.PAGE_BITS;
            long slack = Math.min(headroom, Math.max(1, p.span >>> (DensePages.PAGE_BITS + 1)));
            neededPages = Math.min(maxPages, neededPages + slack);
        }
        int newMax = p.holds(stored) ? p.maxStored() : stored;
        DensePages grown = p.reshape(newFirst, (int) neededPages, newMax);
        pages = grown; // readers switch to the new storage in one volatile read
        return grown;
    }
}
