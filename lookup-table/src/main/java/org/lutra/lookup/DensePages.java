package org.lutra.lookup;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Dense storage as a directory of fixed-size pages, each a primitive array (allocated on the
 * first non-zero write, so new pages need no fill and untouched regions cost nothing).
 *
 * <p>The table uses pages for spans too large or too sparse for {@link DenseFlat}: growth never
 * copies cells (it copies the directory, a few KB even for a billion keys), so a 1-billion-key
 * table fits in about 1 GB without a transient second copy or a single huge array, and pages are
 * small enough (64 Ki cells) that G1 does not treat them as humongous objects. The price is one
 * more dependent load per lookup, which halves the random-lookup rate (docs/benchmarks-router.md).
 *
 * <p>Pages are published into the directory with release stores after they are allocated, so a
 * reader that sees a page sees it zero-filled.
 */
abstract sealed class DensePages extends DenseStorage {
    DensePages(long base, int pageCount) {
        super(base, (long) pageCount << PAGE_BITS);
    }

    static DensePages create(long base, int pageCount, int maxStored) {
        return switch (maxStored) {
            case 0xFF -> new Bytes(base, new byte[pageCount][]);
            case 0xFFFF -> new Shorts(base, new short[pageCount][]);
            default -> new Ints(base, new int[pageCount][]);
        };
    }

    abstract Object page(int index);

    abstract void setPage(int index, Object page);

    @Override
    final boolean pagePresent(int page) {
        return page(page) != null;
    }

    @Override
    final long storageBytes() {
        long bytes = 16L + 4L * pageCount();
        for (int i = 0; i < pageCount(); i++) {
            if (page(i) != null) {
                bytes += 16L + (long) PAGE_SIZE * width();
            }
        }
        return bytes;
    }

    @Override
    final void copyPagesFrom(DenseStorage source) {
        switch (source) {
            case DensePages paged -> {
                for (int p = 0; p < paged.pageCount(); p++) {
                    Object page = paged.page(p);
                    if (page != null) {
                        setPage(paged.pageIn(base, p), page); // shared: the old storage is dropped after the swap
                    }
                }
            }
            case DenseFlat flat -> {
                for (int p = 0; p < flat.pageCount(); p++) {
                    Object page = flat.pageCopy(p);
                    if (page != null) {
                        setPage(flat.pageIn(base, p), page);
                    }
                }
            }
        }
    }

    @Override
    final void writePage(int page, DataOutputStream out, byte[] scratch) throws IOException {
        cellArrays().write(page(page), 0, out, scratch);
    }

    @Override
    final void readPage(int page, DataInputStream in, byte[] scratch) throws IOException {
        Object cells = cellArrays().allocate(PAGE_SIZE);
        cellArrays().read(in, cells, 0, scratch);
        setPage(page, cells);
    }

    static final class Bytes extends DensePages {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(byte[].class);
        private static final VarHandle DIR = MethodHandles.arrayElementVarHandle(byte[][].class);
        final byte[][] pages;

        Bytes(long base, byte[][] pages) {
            super(base, pages.length);
            this.pages = pages;
        }

        @Override int maxStored() { return 0xFF; }
        @Override Object page(int index) { return pages[index]; }
        @Override void setPage(int index, Object page) { pages[index] = (byte[]) page; }

        @Override int cell(int page, int at) { return pages[page][at] & 0xFF; }

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
        @Override Object page(int index) { return pages[index]; }
        @Override void setPage(int index, Object page) { pages[index] = (short[]) page; }

        @Override int cell(int page, int at) { return pages[page][at] & 0xFFFF; }

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
        @Override Object page(int index) { return pages[index]; }
        @Override void setPage(int index, Object page) { pages[index] = (int[]) page; }

        @Override int cell(int page, int at) { return pages[page][at]; }

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
    }
}
