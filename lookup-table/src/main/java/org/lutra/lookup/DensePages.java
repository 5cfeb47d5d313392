package org.lutra.lookup;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The storage of a {@link DenseArrayLookupTable}: a directory of fixed-size pages, each a
 * primitive array whose cells hold {@code partition + 1} (so 0, the value of a fresh array,
 * means "no entry" and new pages need no fill).
 *
 * <p>Paging rather than one big array: growth never copies cells (it copies the directory, a few
 * KB even for a billion keys), so a 1-billion-key table fits in about 1 GB without a transient
 * second copy; untouched regions of a sparse key range cost nothing; and pages are small enough
 * (64 Ki cells) that G1 does not treat them as humongous objects.
 *
 * <p>One instance has one cell width and a fixed directory shape. The table replaces the whole
 * instance (through a volatile field) to grow the directory or widen the cells; cell values are
 * written in place with release stores and are at most 32 bits, so a reader never sees a torn one.
 */
abstract sealed class DensePages permits DensePages.Bytes, DensePages.Shorts, DensePages.Ints {
    static final int PAGE_BITS = 16;
    static final int PAGE_SIZE = 1 << PAGE_BITS;
    static final int PAGE_MASK = PAGE_SIZE - 1;

    /** Key stored at cell 0 of page 0; always a multiple of {@link #PAGE_SIZE}. */
    final long base;
    /** Number of keys the directory spans. */
    final long span;

    DensePages(long base, int pageCount) {
        this.base = base;
        this.span = (long) pageCount << PAGE_BITS;
    }

    /** Largest stored value (partition + 1) this width holds. */
    abstract int maxStored();

    abstract int pageCount();

    /** Stored value (partition + 1) for the key, or 0. */
    abstract int load(long key);

    /** Writes a stored value; the key must be inside the span. Allocates the page on demand. */
    abstract void store(long key, int stored);

    /** A copy with another directory shape (and possibly width), sharing or converting pages. */
    abstract DensePages reshape(long newBase, int newPageCount, int newMaxStored);

    abstract Object page(int index);

    int width() {
        return maxStored() == 0xFF ? 1 : maxStored() == 0xFFFF ? 2 : 4;
    }

    static DensePages create(long base, int pageCount, int maxStored) {
        if (maxStored <= 0xFF) {
            return new Bytes(base, new byte[pageCount][]);
        }
        if (maxStored <= 0xFFFF) {
            return new Shorts(base, new short[pageCount][]);
        }
        return new Ints(base, new int[pageCount][]);
    }

    /** Whether the key lies inside the span; {@code key - base} wraps for far keys, the unsigned test rejects them. */
    final boolean covers(long key) {
        return Long.compareUnsigned(key - base, span) < 0;
    }

    /** Whether this width can hold the stored value (compared unsigned: Ints hold every int). */
    final boolean holds(int stored) {
        return Integer.compareUnsigned(stored, maxStored()) <= 0;
    }

    final long pageBytes() {
        long bytes = 16L + 4L * pageCount();
        for (int i = 0; i < pageCount(); i++) {
            if (page(i) != null) {
                bytes += 16L + (long) PAGE_SIZE * width();
            }
        }
        return bytes;
    }

    /** Reads cells through a generic path: used when converting pages, never on the hot path. */
    final int cell(Object page, int at) {
        return switch (page) {
            case byte[] b -> b[at] & 0xFF;
            case short[] s -> s[at] & 0xFFFF;
            case int[] n -> n[at];
            default -> throw new IllegalStateException();
        };
    }

    final DensePages copyInto(DensePages target) {
        long shift = base - target.base; // pages of both are aligned, so this is a whole number of pages
        int pageShift = (int) (shift >> PAGE_BITS);
        for (int i = 0; i < pageCount(); i++) {
            Object page = page(i);
            if (page == null) {
                continue;
            }
            long firstKey = base + ((long) i << PAGE_BITS);
            if (target.width() == width()) {
                target.setPage(i + pageShift, page);
            } else {
                for (int c = 0; c < PAGE_SIZE; c++) {
                    int v = cell(page, c);
                    if (v != 0) {
                        target.store(firstKey + c, v);
                    }
                }
            }
        }
        return target;
    }

    abstract void setPage(int index, Object page);

    static final class Bytes extends DensePages {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(byte[].class);
        private static final VarHandle DIR = MethodHandles.arrayElementVarHandle(byte[][].class);
        final byte[][] pages;

        Bytes(long base, byte[][] pages) {
            super(base, pages.length);
            this.pages = pages;
        }

        @Override int maxStored() { return 0xFF; }
        @Override int pageCount() { return pages.length; }
        @Override Object page(int index) { return pages[index]; }
        @Override void setPage(int index, Object page) { pages[index] = (byte[]) page; }

        @Override
        int load(long key) {
            long at = key - base;
            if (Long.compareUnsigned(at, span) >= 0) {
                return 0;
            }
            byte[] page = pages[(int) (at >>> PAGE_BITS)];
            return page == null ? 0 : page[(int) at & PAGE_MASK] & 0xFF;
        }

        @Override
        void store(long key, int stored) {
            long at = key - base;
            int p = (int) (at >>> PAGE_BITS);
            byte[] page = pages[p];
            if (page == null) {
                if (stored == 0) {
                    return;
                }
                page = new byte[PAGE_SIZE];
                DIR.setRelease(pages, p, page);
            }
            CELL.setRelease(page, (int) at & PAGE_MASK, (byte) stored);
        }

        @Override
        DensePages reshape(long newBase, int newPageCount, int newMaxStored) {
            return copyInto(create(newBase, newPageCount, Math.max(newMaxStored, maxStored())));
        }
    }

    static final class Shorts extends DensePages {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(short[].class);
        private static final VarHandle DIR = MethodHandles.arrayElementVarHandle(short[][].class);
        final short[][] pages;

        Shorts(long base, short[][] pages) {
            super(base, pages.length);
            this.pages = pages;
        }

        @Override int maxStored() { return 0xFFFF; }
        @Override int pageCount() { return pages.length; }
        @Override Object page(int index) { return pages[index]; }
        @Override void setPage(int index, Object page) { pages[index] = (short[]) page; }

        @Override
        int load(long key) {
            long at = key - base;
            if (Long.compareUnsigned(at, span) >= 0) {
                return 0;
            }
            short[] page = pages[(int) (at >>> PAGE_BITS)];
            return page == null ? 0 : page[(int) at & PAGE_MASK] & 0xFFFF;
        }

        @Override
        void store(long key, int stored) {
            long at = key - base;
            int p = (int) (at >>> PAGE_BITS);
            short[] page = pages[p];
            if (page == null) {
                if (stored == 0) {
                    return;
                }
                page = new short[PAGE_SIZE];
                DIR.setRelease(pages, p, page);
            }
            CELL.setRelease(page, (int) at & PAGE_MASK, (short) stored);
        }

        @Override
        DensePages reshape(long newBase, int newPageCount, int newMaxStored) {
            return copyInto(create(newBase, newPageCount, Math.max(newMaxStored, maxStored())));
        }
    }

    static final class Ints extends DensePages {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(int[].class);
        private static final VarHandle DIR = MethodHandles.arrayElementVarHandle(int[][].class);
        final int[][] pages;

        Ints(long base, int[][] pages) {
            super(base, pages.length);
            this.pages = pages;
        }

        @Override int maxStored() { return -1; } // every int: stored values are compared unsigned
        @Override int width() { return 4; }
        @Override int pageCount() { return pages.length; }
        @Override Object page(int index) { return pages[index]; }
        @Override void setPage(int index, Object page) { pages[index] = (int[]) page; }

        @Override
        int load(long key) {
            long at = key - base;
            if (Long.compareUnsigned(at, span) >= 0) {
                return 0;
            }
            int[] page = pages[(int) (at >>> PAGE_BITS)];
            return page == null ? 0 : page[(int) at & PAGE_MASK];
        }

        @Override
        void store(long key, int stored) {
            long at = key - base;
            int p = (int) (at >>> PAGE_BITS);
            int[] page = pages[p];
            if (page == null) {
                if (stored == 0) {
                    return;
                }
                page = new int[PAGE_SIZE];
                DIR.setRelease(pages, p, page);
            }
            CELL.setRelease(page, (int) at & PAGE_MASK, stored);
        }

        @Override
        DensePages reshape(long newBase, int newPageCount, int newMaxStored) {
            return copyInto(new Ints(newBase, new int[newPageCount][])); // never narrows
        }
    }
}
