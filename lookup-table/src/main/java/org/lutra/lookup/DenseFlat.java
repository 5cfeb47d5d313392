package org.lutra.lookup;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Dense storage in one primitive array: cell {@code key - base}. The lookup path is as short as
 * the JVM allows for a table that can grow (one subtraction, one unsigned range test, one load),
 * which is what lets random lookups run at the speed of the memory system: about twice the paged
 * layout's rate on a 100M-key table (BENCHMARKS.md).
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

    /** A copy of page {@code page}'s cells as a page array, or null if they are all zero. */
    abstract Object pageCopy(int page);

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
        @Override int cell(int page, int at) { return cells[offset(page) + at] & 0xFF; }

        @Override
        Object pageCopy(int page) {
            int from = offset(page);
            for (int i = from; i < from + PAGE_SIZE; i++) {
                if (cells[i] != 0) {
                    return Arrays.copyOfRange(cells, from, from + PAGE_SIZE);
                }
            }
            return null;
        }

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

        @Override
        void copyPagesFrom(DenseStorage source) {
            switch (source) {
                case Bytes flat -> {
                    // The target covers the source (storage only grows); no end is computed, so keys near Long.MAX_VALUE do not overflow.
                    System.arraycopy(flat.cells, 0, cells, (int) (flat.base - base), flat.cells.length);
                }
                case DensePages.Bytes paged -> {
                    for (int p = 0; p < paged.pageCount(); p++) {
                        if (paged.pages[p] != null) {
                            System.arraycopy(paged.pages[p], 0, cells, offset(paged.pageIn(base, p)), PAGE_SIZE);
                        }
                    }
                }
                default -> throw new IllegalStateException("width mismatch");
            }
        }

        @Override
        void writePage(int page, DataOutputStream out, byte[] scratch) throws IOException {
            out.write(cells, offset(page), PAGE_SIZE);
        }

        @Override
        void readPage(int page, DataInputStream in, byte[] scratch) throws IOException {
            in.readFully(cells, offset(page), PAGE_SIZE);
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
        @Override int cell(int page, int at) { return cells[offset(page) + at] & 0xFFFF; }

        @Override
        Object pageCopy(int page) {
            int from = offset(page);
            for (int i = from; i < from + PAGE_SIZE; i++) {
                if (cells[i] != 0) {
                    return Arrays.copyOfRange(cells, from, from + PAGE_SIZE);
                }
            }
            return null;
        }

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

        @Override
        void copyPagesFrom(DenseStorage source) {
            switch (source) {
                case Shorts flat -> {
                    // The target covers the source (storage only grows); no end is computed, so keys near Long.MAX_VALUE do not overflow.
                    System.arraycopy(flat.cells, 0, cells, (int) (flat.base - base), flat.cells.length);
                }
                case DensePages.Shorts paged -> {
                    for (int p = 0; p < paged.pageCount(); p++) {
                        if (paged.pages[p] != null) {
                            System.arraycopy(paged.pages[p], 0, cells, offset(paged.pageIn(base, p)), PAGE_SIZE);
                        }
                    }
                }
                default -> throw new IllegalStateException("width mismatch");
            }
        }

        @Override
        void writePage(int page, DataOutputStream out, byte[] scratch) throws IOException {
            ByteBuffer.wrap(scratch).asShortBuffer().put(cells, offset(page), PAGE_SIZE);
            out.write(scratch, 0, PAGE_SIZE * 2);
        }

        @Override
        void readPage(int page, DataInputStream in, byte[] scratch) throws IOException {
            in.readFully(scratch, 0, PAGE_SIZE * 2);
            ByteBuffer.wrap(scratch).asShortBuffer().get(cells, offset(page), PAGE_SIZE);
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
        @Override int cell(int page, int at) { return cells[offset(page) + at]; }

        @Override
        Object pageCopy(int page) {
            int from = offset(page);
            for (int i = from; i < from + PAGE_SIZE; i++) {
                if (cells[i] != 0) {
                    return Arrays.copyOfRange(cells, from, from + PAGE_SIZE);
                }
            }
            return null;
        }

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

        @Override
        void copyPagesFrom(DenseStorage source) {
            switch (source) {
                case Ints flat -> {
                    // The target covers the source (storage only grows); no end is computed, so keys near Long.MAX_VALUE do not overflow.
                    System.arraycopy(flat.cells, 0, cells, (int) (flat.base - base), flat.cells.length);
                }
                case DensePages.Ints paged -> {
                    for (int p = 0; p < paged.pageCount(); p++) {
                        if (paged.pages[p] != null) {
                            System.arraycopy(paged.pages[p], 0, cells, offset(paged.pageIn(base, p)), PAGE_SIZE);
                        }
                    }
                }
                default -> throw new IllegalStateException("width mismatch");
            }
        }

        @Override
        void writePage(int page, DataOutputStream out, byte[] scratch) throws IOException {
            ByteBuffer.wrap(scratch).asIntBuffer().put(cells, offset(page), PAGE_SIZE);
            out.write(scratch, 0, PAGE_SIZE * 4);
        }

        @Override
        void readPage(int page, DataInputStream in, byte[] scratch) throws IOException {
            in.readFully(scratch, 0, PAGE_SIZE * 4);
            ByteBuffer.wrap(scratch).asIntBuffer().get(cells, offset(page), PAGE_SIZE);
        }
    }
}
