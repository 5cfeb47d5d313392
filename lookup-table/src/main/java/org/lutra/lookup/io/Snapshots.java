package org.lutra.lookup.io;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.SnapshotAccess;

/**
 * Lutra's binary table snapshot, for restarting a router in seconds on a large table.
 *
 * <pre>
 * "LUTRASNP" u32 version=1 u8 kind
 * kind 1 (dense array): i64 base, i32 pages, u8 width, i64 size, then per page u8 present and,
 *        if present, 65,536 cells of the width, big-endian — read straight into the page arrays
 * kind 2 (entries): u8 table type, then entries: u8 tag (0 long, 1 string, 0xFF end),
 *        the key (i64 or modified UTF-8), varint count, varint partitions
 * </pre>
 * Written to a temporary file and renamed, so a crash never leaves a truncated snapshot under the
 * final name.
 */
public final class Snapshots {
    static final byte[] MAGIC = "LUTRASNP".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    static final int VERSION = 1;

    private Snapshots() {}

    public static void write(LookupTable table, Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (var out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20))) {
            out.write(MAGIC);
            out.writeInt(VERSION);
            SnapshotAccess.write(table, out);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public static LookupTable read(Path file) throws IOException {
        try (var in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20))) {
            byte[] magic = in.readNBytes(MAGIC.length);
            if (!java.util.Arrays.equals(magic, MAGIC)) {
                throw new MapFormatException(file.toString(), 1, "not a Lutra snapshot (bad magic)");
            }
            int version = in.readInt();
            if (version != VERSION) {
                throw new MapFormatException(file.toString(), 1, "snapshot version " + version + ", this build reads " + VERSION);
            }
            return SnapshotAccess.read(in);
        }
    }
}
