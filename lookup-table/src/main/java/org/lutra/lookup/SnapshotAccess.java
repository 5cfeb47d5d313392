package org.lutra.lookup;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The snapshot payload codec (format on {@code io.Snapshots}); lives in this package because it
 * writes a dense array's pages directly.
 */
public final class SnapshotAccess {
    private static final int KIND_DENSE = 1;
    private static final int KIND_ENTRIES = 2;
    private static final int TAG_LONG = 0;
    private static final int TAG_STRING = 1;
    private static final int TAG_END = 0xFF;

    private enum Type { HASH, COLT, COMPRESSED, REPLICATED, PARTIAL }

    private SnapshotAccess() {}

    public static void write(LookupTable table, DataOutputStream out) throws IOException {
        if (table instanceof DenseArrayLookupTable dense) {
            writeDense(dense, out);
            return;
        }
        out.writeByte(KIND_ENTRIES);
        out.writeByte(typeOf(table).ordinal());
        var failure = new IOException[1];
        table.forEach(new EntryVisitor() {
            @Override
            public void visit(long key, PartitionSet partitions) {
                try {
                    out.writeByte(TAG_LONG);
                    out.writeLong(key);
                    writePartitions(partitions, out);
                } catch (IOException e) {
                    failure[0] = e;
                }
            }

            @Override
            public void visit(String key, PartitionSet partitions) {
                try {
                    out.writeByte(TAG_STRING);
                    out.writeUTF(key);
                    writePartitions(partitions, out);
                } catch (IOException e) {
                    failure[0] = e;
                }
            }
        });
        if (failure[0] != null) {
            throw failure[0];
        }
        out.writeByte(TAG_END);
    }

    private static Type typeOf(LookupTable table) {
        return switch (table) {
            case ColtLookupTable c -> Type.COLT;
            case CompressedLookupTable c -> Type.COMPRESSED;
            case MultiLookupTable m -> Type.REPLICATED;
            default -> Type.HASH; // a partial cache is restored as a plain hash table: its bound is configuration
        };
    }

    private static void writeDense(DenseArrayLookupTable table, DataOutputStream out) throws IOException {
        DenseStorage p = table.storage();
        out.writeByte(KIND_DENSE);
        out.writeLong(p.base);
        out.writeInt(p.pageCount());
        out.writeByte(p.width());
        out.writeLong(table.size());
        byte[] scratch = new byte[DenseStorage.PAGE_SIZE * 4];
        for (int i = 0; i < p.pageCount(); i++) {
            boolean present = p.pagePresent(i);
            out.writeBoolean(present);
            if (present) {
                p.writePage(i, out, scratch);
            }
        }
    }

    public static LookupTable read(DataInputStream in) throws IOException {
        int kind = in.readUnsignedByte();
        if (kind == KIND_DENSE) {
            return readDense(in);
        }
        if (kind != KIND_ENTRIES) {
            throw new IOException("unknown snapshot kind " + kind);
        }
        Type type = Type.values()[in.readUnsignedByte()];
        LookupTable target = switch (type) {
            case COLT -> new ColtLookupTable();
            case REPLICATED -> new ReplicatedLookupTable(new HashLookupTable());
            case COMPRESSED -> new DenseArrayLookupTable(); // compressed once complete, below
            default -> new HashLookupTable();
        };
        while (true) {
            int tag = in.readUnsignedByte();
            if (tag == TAG_END) {
                break;
            }
            Object key = tag == TAG_LONG ? (Object) in.readLong() : in.readUTF();
            PartitionSet partitions = readPartitions(in);
            if (partitions.size() == 1) {
                target.put(key, partitions.first());
            } else {
                ((MultiLookupTable) target).putAll(key, partitions);
            }
        }
        return type == Type.COMPRESSED ? CompressedLookupTable.of((DenseArrayLookupTable) target) : target;
    }

    private static LookupTable readDense(DataInputStream in) throws IOException {
        long base = in.readLong();
        int pageCount = in.readInt();
        int width = in.readUnsignedByte();
        long size = in.readLong();
        if (pageCount < 0 || (width != 1 && width != 2 && width != 4) || size < 0) {
            throw new IOException("corrupt dense snapshot header: " + pageCount + " pages, width " + width + ", " + size + " keys");
        }
        // The layout the table would have chosen for this span and size: flat when it fits.
        long cells = (long) pageCount << DenseStorage.PAGE_BITS;
        boolean flat = DenseArrayLookupTable.flatFor(cells, width, size, DenseArrayLookupTable.FLAT_MAX_BYTES);
        DenseStorage p = DenseStorage.create(flat, base, pageCount, width == 1 ? 0xFF : width == 2 ? 0xFFFF : -1);
        byte[] scratch = new byte[DenseStorage.PAGE_SIZE * 4];
        for (int i = 0; i < pageCount; i++) {
            if (in.readBoolean()) {
                p.readPage(i, in, scratch);
            }
        }
        return DenseArrayLookupTable.restore(p, size);
    }

    private static void writePartitions(PartitionSet partitions, DataOutputStream out) throws IOException {
        writeVarint(partitions.size(), out);
        for (int i = 0; i < partitions.size(); i++) {
            writeVarint(partitions.get(i), out);
        }
    }

    private static PartitionSet readPartitions(DataInputStream in) throws IOException {
        int n = readVarint(in);
        if (n == 1) {
            return PartitionSet.of(readVarint(in));
        }
        int[] ps = new int[n];
        for (int i = 0; i < n; i++) {
            ps[i] = readVarint(in);
        }
        return PartitionSet.of(ps);
    }

    private static void writeVarint(int value, DataOutputStream out) throws IOException {
        while ((value & ~0x7F) != 0) {
            out.writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.writeByte(value);
    }

    private static int readVarint(DataInputStream in) throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.readUnsignedByte();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("corrupt varint in snapshot");
    }
}
