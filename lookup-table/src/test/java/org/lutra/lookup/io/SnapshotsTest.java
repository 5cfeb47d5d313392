package org.lutra.lookup.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.lookup.ColtLookupTable;
import org.lutra.lookup.CompressedLookupTable;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.HashLookupTable;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.ReplicatedLookupTable;

class SnapshotsTest {
    @TempDir
    Path dir;

    @Test
    void denseArraysOfEveryWidthAndLayoutRoundTripExactly() throws Exception {
        for (int maxPartition : List.of(10, 1000, 100_000)) {
            for (int step : List.of(3, 301)) { // 90,000 keys over 270 K cells (flat) or over 27 M (paged)
                var table = new DenseArrayLookupTable();
                long end = -70_000 + 90_000L * step;
                for (long k = -70_000; k < end; k += step) {
                    table.put(k, (int) Math.floorMod(k * 7, maxPartition));
                }
                assertEquals(step == 3, table.flat());
                Path file = dir.resolve("dense" + maxPartition + "-" + step + ".lts");
                Snapshots.write(table, file);
                var back = assertInstanceOf(DenseArrayLookupTable.class, Snapshots.read(file));
                assertEquals(table.size(), back.size());
                assertEquals(table.width(), back.width());
                assertEquals(table.flat(), back.flat());
                for (long k = -70_010; k < end + 10; k += k % 1000 == 0 ? 1 : 7) {
                    assertEquals(table.get(k), back.get(k), "key " + k);
                }
            }
        }
    }

    @Test
    void flatAndPagedDenseArraysRestoreInTheirLayout() throws Exception {
        var flat = new DenseArrayLookupTable(0, 300_000, 16);
        var sparse = new DenseArrayLookupTable();
        for (long k = 0; k < 300_000; k++) {
            flat.put(k, (int) (k % 16));
            if (k % 100 == 0) {
                sparse.put(k * 100, (int) (k % 3)); // 3,000 keys over 30M: paged
            }
        }
        for (var table : List.of(flat, sparse)) {
            Path file = dir.resolve("layout" + table.flat() + ".lts");
            Snapshots.write(table, file);
            var back = assertInstanceOf(DenseArrayLookupTable.class, Snapshots.read(file));
            assertEquals(table.flat(), back.flat());
            assertEquals(table.size(), back.size());
            assertEquals(table.spanStart(), back.spanStart());
            for (long k = -5; k < 30_000_000; k += k < 400_000 ? 1 : 97) {
                assertEquals(table.get(k), back.get(k), "key " + k);
            }
        }
    }

    @Test
    void entryTablesKeepTheirTypeAndContents() throws Exception {
        List<Supplier<LookupTable>> kinds = List.of(HashLookupTable::new, ColtLookupTable::new, CompressedLookupTable::new,
                () -> new ReplicatedLookupTable(new HashLookupTable()));
        for (var kind : kinds) {
            LookupTable table = kind.get();
            for (long k = 0; k < 5000; k++) {
                table.put(k * 3, (int) (k % 11));
            }
            if (table instanceof ReplicatedLookupTable r) {
                r.putAll("ß", PartitionSet.of(1, 4));
            }
            Path file = dir.resolve(table.getClass().getSimpleName() + ".lts");
            Snapshots.write(table, file);
            LookupTable back = Snapshots.read(file);
            assertEquals(table.getClass(), back.getClass());
            assertEquals(table.size(), back.size());
            for (long k = 0; k < 15_000; k++) {
                assertEquals(table.get(k), back.get(k));
            }
            if (back instanceof ReplicatedLookupTable r) {
                assertEquals(PartitionSet.of(1, 4), r.getAll("ß"));
            }
        }
    }

    @Test
    void rejectsFilesThatAreNotSnapshots() throws Exception {
        Path file = Files.writeString(dir.resolve("x.lts"), "1,2\n");
        assertThrows(MapFormatException.class, () -> Snapshots.read(file));
    }
}
