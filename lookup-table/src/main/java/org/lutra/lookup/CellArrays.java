package org.lutra.lookup;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The page-wise operations of dense storage on one cell width's primitive array ({@code byte[]},
 * {@code short[]} or {@code int[]}), so that the flat and the paged layouts share them instead of
 * repeating each per width. Lookups and stores stay typed in the layouts themselves: these run
 * on snapshots, conversions and growth, a page at a time. Snapshot pages are big-endian.
 */
enum CellArrays {
    BYTES {
        @Override Object allocate(int length) { return new byte[length]; }
        @Override boolean zero(Object cells, int from) { return Arrays.mismatch((byte[]) cells, from, from + DenseStorage.PAGE_SIZE, ZERO_BYTES, 0, DenseStorage.PAGE_SIZE) < 0; }

        @Override
        void write(Object cells, int from, DataOutputStream out, byte[] scratch) throws IOException {
            out.write((byte[]) cells, from, DenseStorage.PAGE_SIZE);
        }

        @Override
        void read(DataInputStream in, Object cells, int from, byte[] scratch) throws IOException {
            in.readFully((byte[]) cells, from, DenseStorage.PAGE_SIZE);
        }
    },
    SHORTS {
        @Override Object allocate(int length) { return new short[length]; }
        @Override boolean zero(Object cells, int from) { return Arrays.mismatch((short[]) cells, from, from + DenseStorage.PAGE_SIZE, ZERO_SHORTS, 0, DenseStorage.PAGE_SIZE) < 0; }

        @Override
        void write(Object cells, int from, DataOutputStream out, byte[] scratch) throws IOException {
            ByteBuffer.wrap(scratch).asShortBuffer().put((short[]) cells, from, DenseStorage.PAGE_SIZE);
            out.write(scratch, 0, DenseStorage.PAGE_SIZE * 2);
        }

        @Override
        void read(DataInputStream in, Object cells, int from, byte[] scratch) throws IOException {
            in.readFully(scratch, 0, DenseStorage.PAGE_SIZE * 2);
            ByteBuffer.wrap(scratch).asShortBuffer().get((short[]) cells, from, DenseStorage.PAGE_SIZE);
        }
    },
    INTS {
        @Override Object allocate(int length) { return new int[length]; }
        @Override boolean zero(Object cells, int from) { return Arrays.mismatch((int[]) cells, from, from + DenseStorage.PAGE_SIZE, ZERO_INTS, 0, DenseStorage.PAGE_SIZE) < 0; }

        @Override
        void write(Object cells, int from, DataOutputStream out, byte[] scratch) throws IOException {
            ByteBuffer.wrap(scratch).asIntBuffer().put((int[]) cells, from, DenseStorage.PAGE_SIZE);
            out.write(scratch, 0, DenseStorage.PAGE_SIZE * 4);
        }

        @Override
        void read(DataInputStream in, Object cells, int from, byte[] scratch) throws IOException {
            in.readFully(scratch, 0, DenseStorage.PAGE_SIZE * 4);
            ByteBuffer.wrap(scratch).asIntBuffer().get((int[]) cells, from, DenseStorage.PAGE_SIZE);
        }
    };

    private static final byte[] ZERO_BYTES = new byte[DenseStorage.PAGE_SIZE];
    private static final short[] ZERO_SHORTS = new short[DenseStorage.PAGE_SIZE];
    private static final int[] ZERO_INTS = new int[DenseStorage.PAGE_SIZE];

    /** A zero-filled array of this width. */
    abstract Object allocate(int length);

    /** Whether the page of cells starting at {@code from} is all zeros (no entries). */
    abstract boolean zero(Object cells, int from);

    /** Writes the page of cells starting at {@code from}; {@code scratch} holds at least a page's bytes. */
    abstract void write(Object cells, int from, DataOutputStream out, byte[] scratch) throws IOException;

    /** Reads a page written by {@link #write} into the cells starting at {@code from}. */
    abstract void read(DataInputStream in, Object cells, int from, byte[] scratch) throws IOException;

    /** The arrays of cells holding stored values up to {@code maxStored} (0xFF, 0xFFFF or -1). */
    static CellArrays of(int maxStored) {
        return switch (maxStored) {
            case 0xFF -> BYTES;
            case 0xFFFF -> SHORTS;
            default -> INTS;
        };
    }
}
