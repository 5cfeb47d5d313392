package org.lutra.lookup.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.HashLookupTable;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.ReplicatedLookupTable;

class MapLoaderTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void csvWithStringsUnicodeQuotesCommentsAndReplicas() throws Exception {
        Path map = file("users.map", "# key,partition\n1,0\r\n-5,3\n\n007,2\n日本語,1\n\"a,b\",4\n9223372036854775807,1\n42,1,3\n");
        var table = (ReplicatedLookupTable) new MapLoader().load(MapSource.csv(map), () -> new ReplicatedLookupTable(new HashLookupTable()));
        assertEquals(0, table.get(1L));
        assertEquals(3, table.get(-5L));
        assertEquals(2, table.get("007"), "non-canonical integers stay strings");
        assertEquals(LookupTable.MISSING, table.get(7L));
        assertEquals(1, table.get("日本語"));
        assertEquals(4, table.get("a,b"));
        assertEquals(1, table.get(Long.MAX_VALUE));
        assertEquals(PartitionSet.of(1, 3), table.getAll(42L));
        assertEquals(7, table.size());
    }

    @Test
    void malformedLineIsReportedWithItsNumberAndNothingIsReturned() throws Exception {
        Path map = file("bad.map", "1,0\n2,1\n3,x\n4,1\n");
        var e = assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.csv(map), HashLookupTable::new));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("bad.map:3"), e.getMessage());
        Path negative = file("neg.map", "1,0\n2,-1\n");
        assertEquals(2, assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.csv(negative), HashLookupTable::new)).line());
        Path single = file("single.map", "1,0\n2\n");
        assertEquals(2, assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.csv(single), HashLookupTable::new)).line());
    }

    @Test
    void loadIntoLeavesTheTableUntouchedWhenALateLineDoesNotFit() throws Exception {
        var table = new DenseArrayLookupTable();
        table.put(100, 7);
        Path map = file("late.map", "1,0\n2,1\nalice,2\n");
        var e = assertThrows(MapFormatException.class, () -> new MapLoader().loadInto(MapSource.csv(map), table));
        assertEquals(3, e.line());
        assertEquals(1, table.size());
        assertEquals(LookupTable.MISSING, table.get(1L));
        Path replicated = file("rep.map", "1,0\n2,1,2\n");
        assertEquals(2, assertThrows(MapFormatException.class, () -> new MapLoader().loadInto(MapSource.csv(replicated), table)).line());
        assertEquals(1, table.size());
    }

    @Test
    void metisPartFilePairsWithTheVertexFile() throws Exception {
        Path part = file("graph.part.3", "0\n2\n1\n2\n");
        Path vertices = file("graph.vertices", "10\n11\nbob\n13\n");
        LookupTable table = new MapLoader().load(MapSource.metis(part, vertices), HashLookupTable::new);
        assertEquals(0, table.get(10L));
        assertEquals(2, table.get(11L));
        assertEquals(1, table.get("bob"));
        assertEquals(4, table.size());
        Path shortVertices = file("short.vertices", "10\n11\n");
        var e = assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.metis(part, shortVertices), HashLookupTable::new));
        assertEquals(3, e.line());
        assertEquals(MapFormat.METIS, MapFormat.guess("graph.part.3"));
    }

    @Test
    void schismRowsAreFilteredByTable() throws Exception {
        Path rows = file("out.schism", "users,1,0\nposts,1,3\nusers,2,1\n");
        LookupTable users = new MapLoader().load(MapSource.schism(rows, "users"), HashLookupTable::new);
        assertEquals(2, users.size());
        assertEquals(0, users.get(1L));
        Path bad = file("bad.schism", "users,1,0\nusers,2\n");
        assertEquals(2, assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.schism(bad, null), HashLookupTable::new)).line());
    }

    @Test
    void progressIsReportedAndStatsCountLines() throws Exception {
        var sb = new StringBuilder();
        for (int i = 0; i < (1 << 20) + 10; i++) {
            sb.append(i).append(',').append(i % 4).append('\n');
        }
        Path map = file("big.map", sb.toString());
        List<Long> reports = new ArrayList<>();
        var stats = new MapLoader((lines, bytes, total) -> reports.add(lines)).loadInto(MapSource.csv(map), new DenseArrayLookupTable());
        assertEquals((1 << 20) + 10, stats.lines());
        assertEquals((1 << 20) + 10, stats.profile().keyCount());
        assertEquals(4, stats.profile().runs() > 0 ? stats.profile().partitionCount() : -1);
        assertTrue(reports.contains(1L << 20), reports.toString());
    }

    @Test
    void convertingRoundTripsThroughEveryTextFormat() throws Exception {
        var source = new HashLookupTable();
        for (long k = -50; k < 50; k++) {
            source.put(k, (int) Math.floorMod(k, 3));
        }
        source.put("x,y", 2);
        source.put("quote\"d", 1);
        for (MapFormat format : List.of(MapFormat.CSV, MapFormat.SCHISM, MapFormat.METIS, MapFormat.SNAPSHOT)) {
            Path out = dir.resolve("out-" + format);
            Path vertices = dir.resolve("out-" + format + ".vertices");
            MapWriter.write(source, format, out, vertices, "t");
            var src = new MapSource(format, out, format == MapFormat.METIS ? vertices : null, "t");
            LookupTable back = new MapLoader().load(src, HashLookupTable::new);
            assertEquals(source.size(), back.size(), format.toString());
            assertEquals(2, back.get("x,y"), format.toString());
            assertEquals(1, back.get("quote\"d"), format.toString());
            assertEquals(2, back.get(-49L), format.toString());
        }
    }
}
