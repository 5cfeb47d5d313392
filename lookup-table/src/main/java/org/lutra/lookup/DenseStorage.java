package org.lutra.lookup;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The cells of a {@link DenseArrayLookupTable}: the stored value ({@code partition + 1}, 0 = no
 * entry) of every key in {@code [base, base + span)}. Two layouts share this shape:
 * {@link DenseFlat}, one primitive array (the fast one: a lookup is one subtraction, one bounds
 * test and one load), and {@link DensePages}, a directory of 64 Ki-cell pages (for spans too
 * large or too sparse for one array: growth never copies cells, and absent pages cost nothing).
 *
 * <p>Both are addressed in pages of {@link #PAGE_SIZE} cells ({@code base} and {@code span} are
 * multiples of it) so that snapshots, conversions and the table's growth rules treat them alike.
 * One instance has one cell width and one span; the table replaces the whole instance (through a
 * volatile field) to grow, widen or change layout, and writes cells in place otherwise. Cells are
 * at most 32 bits, so a reader never sees a torn one.
 */
abstract sealed class DenseStorage permits DenseFlat, DensePages {
    static final int PAGE_BITS = 16;
    static final int PAGE_SIZE = 1 << PAGE_BITS;
    static final int PAGE_MASK = PAGE_SIZE - 1;

    /** Key stored at cell 0; always a multiple of {@link #PAGE_SIZE}. */
    final long base;
    /** Number of keys covered; a multiple of {@link #PAGE_SIZE}. */
    final long span;

    DenseStorage(long base, long span) {
        this.base = base;
        this.span = span;
    }

    /** Largest stored value this width holds: 0xFF, 0xFFFF, or -1 (every int, compared unsigned). */
    abstract int maxStored();

    /** Stored value for the key, or 0 (also for keys outside the span). */
    abstract int load(long key);

    /** Writes a stored value; the key must be inside the span. */
    abstract void store(long key, int stored);

    /** Whether page {@code page} may hold entries (false: it is all zeros and costs no memory). */
    abstract boolean pagePresent(int page);

    /** Cell {@code at} of a present page, through a generic path: iteration and conversion, not lookups. */
    abstract int cell(int page, int at);

    /** Heap bytes of the arrays. */
    abstract long storageBytes();

    /** Writes a present page's cells big-endian (snapshot format). */
    abstract void writePage(int page, DataOutputStream out, byte[] scratch) throws IOException;

    /** Reads a page written by {@link #writePage} into this (fresh, same-width) storage. */
    abstract void readPage(int page, DataInputStream in, byte[] scratch) throws IOException;

    /** Copies every present page of {@code source} (same width; this storage covers its whole span) into this storage. */
    abstract void copyPagesFrom(DenseStorage source);

    final int pageCount() {
        return (int) (span >>> PAGE_BITS);
    }

    final int width() {
        return widthOf(maxStored());
    }

    /** Page-wise operations on this width's arrays. */
    final CellArrays cellArrays() {
        return CellArrays.of(maxStored());
    }

    static int widthOf(int maxStored) {
        return maxStored == 0xFF ? 1 : maxStored == 0xFFFF ? 2 : 4;
    }

    /** The narrowest width's largest value that holds {@code stored} (compared unsigned). */
    static int maxStoredFor(int stored) {
        return Integer.compareUnsigned(stored, 0xFF) <= 0 ? 0xFF : Integer.compareUnsigned(stored, 0xFFFF) <= 0 ? 0xFFFF : -1;
    }

    /** Whether the key lies inside the span; {@code key - base} wraps for far keys, the unsigned test rejects them. */
    final boolean covers(long key) {
        return Long.compareUnsigned(key - base, span) < 0;
    }

    /** Whether this width can hold the stored value (compared unsigned: 4-byte cells hold every int). */
    final boolean holds(int stored) {
        return Integer.compareUnsigned(stored, maxStored()) <= 0;
    }

    /**
     * Empty storage of the given layout. {@code maxStored} is rounded up to a width's maximum
     * (so 16 partitions, stored 1..16, get one-byte cells).
     */
    static DenseStorage create(boolean flat, long base, int pageCount, int maxStored) {
        int max = maxStoredFor(maxStored);
        return flat ? DenseFlat.create(base, pageCount, max) : DensePages.create(base, pageCount, max);
    }

    /**
     * A copy of this storage with another shape, width and/or layout. Cells move page by page when
     * the width stays (an array copy, or for paged to paged just the page references); a widening
     * converts cell by cell.
     */
    final DenseStorage reshape(boolean flat, long newBase, int newPageCount, int newMaxStored) {
        int max = Integer.compareUnsigned(newMaxStored, maxStored()) > 0 ? maxStoredFor(newMaxStored) : maxStored();
        DenseStorage target = create(flat, newBase, newPageCount, max);
        if (span == 0) {
            return target; // nothing to copy; an empty storage's base need not lie in the new span
        }
        if (target.maxStored() == maxStored()) {
            target.copyPagesFrom(this);
            return target;
        }
        for (int page = 0; page < pageCount(); page++) {
            if (!pagePresent(page)) {
                continue;
            }
            long first = base + ((long) page << PAGE_BITS);
            for (int c = 0; c < PAGE_SIZE; c++) {
                int v = cell(page, c);
                if (v != 0) {
                    target.store(first + c, v);
                }
            }
        }
        return target;
    }

    /** Index of this storage's page {@code page} in a storage based at {@code otherBase} (page-aligned). */
    final int pageIn(long otherBase, int page) {
        return (int) ((base - otherBase) >> PAGE_BITS) + page;
    }
}
