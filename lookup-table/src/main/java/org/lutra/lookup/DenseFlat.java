package org.lutra.lookup;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Dense storage in one primitive array: cell {@code key - base}. The lookup path is as short as
 * the JVM allows for a table that can grow (one subtraction, one unsigned range test, one load),
 * which is what lets random lookups run at the speed of the memory system: about three times the
 * paged layout's rate on a 100M-key table (docs/benchmarks-router.md).
 *
 * <p>The table uses it while the span is at most {@link DenseArrayLookupTable#FLAT_MAX_BYTES}
 * and not too sparse; growing it copies the array (old and new are held at once), so large
 * tables should be created pre-sized, as the chooser and the loaders do.
 */
abstract sealed class DenseFlat extends DenseStorage {
    DenseFlat(long base, long span) {
        super(base, span);
    }

    static DenseFlat create(long base, int pageCount, int maxStored) {
        int cells = Math.toIntExact((long) pageCount << PAGE_BITS);
        return switch (maxStored) {
            case 0xFF -> new Bytes(base, new byte[cells]);
            case 0xFFFF -> new Shorts(base, new short[cells]);
            default -> new Ints(base, new int[cells]);
        };
    }

    @Override
    final boolean pagePresent(int page) {
        return true; // allocated with the array; an all-zero page is written as zeros
    }

    @Override
    final long storageBytes() {
        return 16 + span * width();
    }

    /** The cells: a byte[], short[] or int[] of {@link #span} cells. */
    abstract Object array();

    /** A copy of page {@code page}'s cells as a page array, or null if they are all zero. */
    final Object pageCopy(int page) {
        CellArrays arrays = cellArrays();
        if (arrays.zero(array(), offset(page))) {
            return null;
        }
        Object copy = arrays.allocate(PAGE_SIZE);
        System.arraycopy(array(), offset(page), copy, 0, PAGE_SIZE);
        return copy;
    }

    @Override
    final void copyPagesFrom(DenseStorage source) {
        switch (source) {
            // The target covers the source (storage only grows); no end is computed, so keys near Long.MAX_VALUE do not overflow.
            case DenseFlat flat -> System.arraycopy(flat.array(), 0, array(), (int) (flat.base - base), (int) flat.span);
            case DensePages paged -> {
                for (int p = 0; p < paged.pageCount(); p++) {
                    Object page = paged.page(p);
                    if (page != null) {
                        System.arraycopy(page, 0, array(), offset(paged.pageIn(base, p)), PAGE_SIZE);
                    }
                }
            }
        }
    }

    @Override
    final void writePage(int page, DataOutputStream out, byte[] scratch) throws IOException {
        cellArrays().write(array(), offset(page), out, scratch);
    }

    @Override
    final void readPage(int page, DataInputStream in, byte[] scratch) throws IOException {
        cellArrays().read(in, array(), offset(page), scratch);
    }

    /** Offset of page {@code page}'s first cell in the array. */
    static int offset(int page) {
        return page << PAGE_BITS;
    }

    static final class Bytes extends DenseFlat {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(byte[].class);
        final byte[] cells;

        Bytes(long base, byte[] cells) {
            super(base, cells.length);
            this.cells = cells;
        }

        @Override int maxStored() { return 0xFF; }
        @Override Object array() { return cells; }
        @Override int cell(int page, int at) { return cells[offset(page) + at] & 0xFF; }

        @Override
        int load(long key) {
            long at = key - base;
            int i = (int) at;
            byte[] c = cells;
            // at fits an int and lies in the array: the unsigned int test is the JIT's own range check, which it then drops.
            return at == i && Integer.compareUnsigned(i, c.length) < 0 ? c[i] & 0xFF : 0;
        }

        @Override
        void store(long key, int stored) {
            CELL.setRelease(cells, (int) (key - base), (byte) stored);
        }
    }

    static final class Shorts extends DenseFlat {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(short[].class);
        final short[] cells;

        Shorts(long base, short[] cells) {
            super(base, cells.length);
            this.cells = cells;
        }

        @Override int maxStored() { return 0xFFFF; }
        @Override Object array() { return cells; }
        @Override int cell(int page, int at) { return cells[offset(page) + at] & 0xFFFF; }

        @Override
        int load(long key) {
            long at = key - base;
            short[] c = cells;
            return Long.compareUnsigned(at, c.length) < 0 ? c[(int) at] & 0xFFFF : 0;
        }

        @Override
        void store(long key, int stored) {
            CELL.setRelease(cells, (int) (key - base), (short) stored);
        }
    }

    static final class Ints extends DenseFlat {
        private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(int[].class);
        final int[] cells;

        Ints(long base, int[] cells) {
            super(base, cells.length);
            this.cells = cells;
        }

        @Override int maxStored() { return -1; }
        @Override Object array() { return cells; }
        @Override int cell(int page, int at) { return cells[offset(page) + at]; }

        @Override
        int load(long key) {
            long at = key - base;
            int[] c = cells;
            return Long.compareUnsigned(at, c.length) < 0 ? c[(int) at] : 0;
        }

        @Override
        void store(long key, int stored) {
            CELL.setRelease(cells, (int) (key - base), stored);
        }
    }
}
