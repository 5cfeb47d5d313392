package org.lutra.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.lookup.HashLookupTable;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.ReplicatedLookupTable;
import org.lutra.lookup.io.MapLoader;
import org.lutra.lookup.io.MapSource;
import org.lutra.trace.Access;
import org.lutra.trace.TraceLine;
import org.lutra.trace.TraceWriter;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws Exception {
        return new PartitionCommand(new PrintStream(out, true), new PrintStream(err, true)).run(List.of(args));
    }

    /**
     * 4 groups of 50 users; each transaction reads a user, writes one of its group's followers rows (SAME AS
     * users) and, one time in 50, a user of another group. The map puts each group on one partition.
     */
    private Path communities() throws Exception {
        Path trace = dir.resolve("social.trace");
        var random = new Random(3);
        try (var w = TraceWriter.create(trace)) {
            w.comment("four communities of 50 users");
            w.sameAs("followers", "users");
            for (int i = 0; i < 4000; i++) {
                int group = i % 4; // groups of equal load: each fits a partition within the 3% imbalance
                int a = group * 50 + random.nextInt(50);
                int b = group * 50 + random.nextInt(50);
                var accesses = new ArrayList<Access>(List.of(Access.read("users", Integer.toString(a)), Access.write("followers", Integer.toString(b))));
                if (random.nextInt(50) == 0) accesses.add(Access.read("users", Integer.toString(random.nextInt(200))));
                w.write(new TraceLine("follow", List.of(Integer.toString(a), Integer.toString(b)), accesses));
            }
        }
        return trace;
    }

    @Test
    void aTraceBecomesACsvMapThatKeepsEachCommunityTogether() throws Exception {
        Path trace = communities();
        Path map = dir.resolve("users.csv");
        assertEquals(0, run(trace.toString(), "--k", "4", "--partitioner", "builtin", "--out", map.toString()), err.toString());
        assertTrue(out.toString().contains("builtin: multilevel k-way"), out.toString());
        String text = Files.readString(map);
        assertTrue(text.startsWith("# made by ./lutra partition"), text.substring(0, 80));
        assertTrue(text.contains("# partitioner builtin: multilevel k-way"), text);
        var names = (MapLoader.PartitionNames) name -> name.matches("p[0-3]") ? name.charAt(1) - '0' : -1;
        LookupTable table = new MapLoader(MapLoader.Progress.NONE, names).load(MapSource.csv(map), HashLookupTable::new);
        assertEquals(200, table.size(), "a vertex per user; followers rows are their owner's");
        var partsOfGroups = new java.util.HashSet<Integer>();
        for (int group = 0; group < 4; group++) {
            int part = table.get((long) group * 50);
            for (int u = group * 50; u < group * 50 + 50; u++) assertEquals(part, table.get((long) u), "user " + u);
            partsOfGroups.add(part);
        }
        assertEquals(4, partsOfGroups.size(), "each community on its own partition");
    }

    @Test
    void metisAndSchismFormatsLoadToo() throws Exception {
        Path trace = communities();
        Path part = dir.resolve("users.graph.part.4");
        assertEquals(0, run(trace.toString(), "--k", "4", "--partitioner", "builtin", "--format", "metis", "--out", part.toString()), err.toString());
        LookupTable byMetis = new MapLoader().load(MapSource.metis(part, dir.resolve("users.graph.vertices")), HashLookupTable::new);
        assertEquals(200, byMetis.size());
        Path schism = dir.resolve("all.schism");
        assertEquals(0, run(trace.toString(), "--partitions", "a,b,c,d", "--partitioner", "builtin", "--format", "schism", "--out", schism.toString(),
                "--replicate", "2"), err.toString());
        var names = (MapLoader.PartitionNames) name -> name.length() == 1 ? name.charAt(0) - 'a' : -1;
        var replicated = (ReplicatedLookupTable) new MapLoader(MapLoader.Progress.NONE, names)
                .load(MapSource.schism(schism, "users"), () -> new ReplicatedLookupTable(new HashLookupTable()));
        assertEquals(200, replicated.size());
        long several = 0;
        for (long u = 0; u < 200; u++) if (replicated.getAll(u).size() > 1) several++;
        assertTrue(several >= 1 && several <= 2, "the hottest keys are on several partitions: " + several);
        assertTrue(out.toString().contains("replicated    2 keys"), out.toString());
    }

    @Test
    void theSameSeedWritesTheSameMap() throws Exception {
        Path trace = communities();
        assertEquals(0, run(trace.toString(), "--k", "3", "--partitioner", "builtin", "--seed", "7", "--out", dir.resolve("a.csv").toString()));
        assertEquals(0, run(trace.toString(), "--k", "3", "--partitioner", "builtin", "--seed", "7", "--out", dir.resolve("b.csv").toString()));
        assertEquals(withoutDate(Files.readString(dir.resolve("a.csv"))), withoutDate(Files.readString(dir.resolve("b.csv"))));
    }

    private static String withoutDate(String map) {
        return map.replaceFirst("# made by [^\n]*\n", "");
    }

    @Test
    void aMalformedTraceWritesNoMapAndNamesTheLine() throws Exception {
        Path trace = dir.resolve("bad.trace");
        Files.writeString(trace, "lutra-trace\t1\nt\tr:users:1\tr:users:2\nt\tr:users:1\tq:users:3\n");
        Path map = dir.resolve("bad.csv");
        var e = org.junit.jupiter.api.Assertions.assertThrows(org.lutra.trace.TraceFormatException.class,
                () -> run(trace.toString(), "--k", "2", "--out", map.toString()));
        assertEquals(3, e.line());
        assertFalse(Files.exists(map));
    }

    @Test
    void severalTablesNeedADirectoryOrSchism() throws Exception {
        Path trace = dir.resolve("two.trace");
        try (var w = TraceWriter.create(trace)) {
            for (int i = 0; i < 100; i++) {
                w.write(TraceLine.untyped(List.of(Access.read("customer", Integer.toString(i / 2)), Access.write("trade", Integer.toString(i)))));
            }
        }
        assertEquals(2, run(trace.toString(), "--k", "2", "--out", dir.resolve("one.csv").toString()));
        assertTrue(err.toString().contains("name a directory for --out"), err.toString());
        Path maps = dir.resolve("maps");
        assertEquals(0, run(trace.toString(), "--k", "2", "--partitioner", "builtin", "--out", maps + "/"), err.toString());
        assertTrue(Files.exists(maps.resolve("customer.csv")) && Files.exists(maps.resolve("trade.csv")));
        var names = (MapLoader.PartitionNames) name -> name.charAt(1) - '0';
        var customers = new MapLoader(MapLoader.Progress.NONE, names).load(MapSource.csv(maps.resolve("customer.csv")), HashLookupTable::new);
        var trades = new MapLoader(MapLoader.Progress.NONE, names).load(MapSource.csv(maps.resolve("trade.csv")), HashLookupTable::new);
        assertEquals(50, customers.size());
        for (long t = 0; t < 100; t++) assertEquals(PartitionSet.of(customers.get(t / 2)), PartitionSet.of(trades.get(t)), "trade " + t + " with its customer");
    }
}
