package org.lutra.lookup.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.lookup.CompressedLookupTable;
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
    void loadIntoRefusesAKeyOutOfTheDenseRangeWithItsLineNumberBeforeWritingAnything() throws Exception {
        var table = new DenseArrayLookupTable();
        table.put(100, 7);
        // Far from the table's own keys.
        Path far = file("far.map", "1,0\n2,1\n# comment\n100000000000000000,2\n3,1\n");
        var e = assertThrows(MapFormatException.class, () -> new MapLoader().loadInto(MapSource.csv(far), table));
        assertEquals(4, e.line());
        assertTrue(e.getMessage().contains("far.map:4") && e.getMessage().contains("100000000000000000"), e.getMessage());
        // Each key fits the table alone; the file's keys together span too much (2^40 keys is the cap).
        Path apart = file("apart.map", "5,1\n-600000000000,0\n17,2\n600000000000,1\n");
        assertEquals(4, assertThrows(MapFormatException.class, () -> new MapLoader().loadInto(MapSource.csv(apart), table)).line());
        // Untouched: one entry, and none of the lines before the bad one.
        assertEquals(1, table.size());
        assertEquals(7, table.get(100L));
        for (long k : new long[] {1, 2, 3, 5, 17, -600_000_000_000L}) {
            assertEquals(LookupTable.MISSING, table.get(k), "key " + k);
        }
        // The same check on a fresh table: load() refuses the file and returns nothing.
        assertEquals(4, assertThrows(MapFormatException.class,
                () -> new MapLoader().load(MapSource.csv(apart), DenseArrayLookupTable::new)).line());
        // Keys that fit load whole, and the table agrees with a reference map.
        var reference = new java.util.HashMap<Long, Integer>(Map.of(100L, 7));
        var sb = new StringBuilder();
        var r = new java.util.Random(3);
        for (int i = 0; i < 5_000; i++) {
            long k = r.nextInt(2_000_000) - 1_000_000;
            int p = r.nextInt(300);
            sb.append(k).append(',').append(p).append('\n');
            reference.put(k, p);
        }
        var stats = new MapLoader().loadInto(MapSource.csv(file("ok.map", sb.toString())), table);
        assertEquals(5_000, stats.entries());
        assertEquals(reference.size(), table.size());
        reference.forEach((k, v) -> assertEquals(v, table.get(k), "key " + k));
    }

    @Test
    void loadIntoRefusesPartitionsBeyondTheCompressedAlphabet() throws Exception {
        var table = new CompressedLookupTable();
        Path map = file("wide.map", "1,0\n2,70000\n");
        assertEquals(2, assertThrows(MapFormatException.class, () -> new MapLoader().loadInto(MapSource.csv(map), table)).line());
        assertEquals(0, table.size());
    }

    @Test
    void partitionsMayBeNamedThroughTheResolver() throws Exception {
        Path map = file("named.map", "1,p2\n2, p0\n3,1\n4,p1,p3\n");
        MapLoader.PartitionNames names = name -> name.matches("p[0-3]") ? name.charAt(1) - '0' : -1;
        var table = (ReplicatedLookupTable) new MapLoader(MapLoader.Progress.NONE, names)
                .load(MapSource.csv(map), () -> new ReplicatedLookupTable(new HashLookupTable()));
        assertEquals(2, table.get(1L));
        assertEquals(0, table.get(2L));
        assertEquals(1, table.get(3L), "ids stay ids");
        assertEquals(PartitionSet.of(1, 3), table.getAll(4L));
        Path unknown = file("unknown.map", "1,p2\n2,p9\n");
        var e = assertThrows(MapFormatException.class, () -> new MapLoader(MapLoader.Progress.NONE, names).load(MapSource.csv(unknown), HashLookupTable::new));
        assertEquals(2, e.line());
        assertTrue(e.getMessage().contains("p9"), e.getMessage());
        assertEquals(1, assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.csv(unknown), HashLookupTable::new)).line(),
                "without a resolver a name is not a partition");
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

    /** A partitioner says in a comment which one it was; in a METIS part file comment lines are not vertices. */
    @Test
    void metisPartFileCommentsAreNotVertices() throws Exception {
        Path part = file("commented.part.3", "# made by ./lutra partition: builtin, k=3\n0\n  # between\n2\n1\n");
        Path vertices = file("commented.vertices", "10\n11\nbob\n");
        LookupTable table = new MapLoader().load(MapSource.metis(part, vertices), HashLookupTable::new);
        assertEquals(3, table.size());
        assertEquals(0, table.get(10L));
        assertEquals(2, table.get(11L));
        assertEquals(1, table.get("bob"));
        Path bad = file("bad.part.3", "# header\n0\nx\n");
        var e = assertThrows(MapFormatException.class, () -> new MapLoader().load(MapSource.metis(bad, vertices), HashLookupTable::new));
        assertEquals(3, e.line(), "line numbers count the comment lines");
        Path csv = file("commented.csv", "# made by ./lutra partition\n10,0\n");
        assertEquals(0, new MapLoader().load(MapSource.csv(csv), HashLookupTable::new).get(10L));
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
        source.put("#not a comment", 0); // written unquoted, csv and schism lines would be comments and the key lost
        source.put(" \t#nor this", 1);
        source.put("", 2);
        for (MapFormat format : List.of(MapFormat.CSV, MapFormat.SCHISM, MapFormat.METIS, MapFormat.SNAPSHOT)) {
            Path out = dir.resolve("out-" + format);
            Path vertices = dir.resolve("out-" + format + ".vertices");
            MapWriter.write(source, format, out, vertices, "t");
            var src = new MapSource(format, out, format == MapFormat.METIS ? vertices : null, "t");
            LookupTable back = new MapLoader().load(src, HashLookupTable::new);
            assertEquals(source.size(), back.size(), format.toString());
            assertEquals(2, back.get("x,y"), format.toString());
            assertEquals(1, back.get("quote\"d"), format.toString());
            assertEquals(0, back.get("#not a comment"), format.toString());
            assertEquals(1, back.get(" \t#nor this"), format.toString());
            assertEquals(2, back.get(""), format.toString());
            assertEquals(2, back.get(-49L), format.toString());
        }
    }
}
