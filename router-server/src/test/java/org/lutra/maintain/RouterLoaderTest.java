package org.lutra.maintain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.KeyType;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.ColtLookupTable;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.HashLookupTable;
import org.lutra.lookup.KeyProfile;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.io.MapFormat;
import org.lutra.lookup.io.MapFormatException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The loading half of RouterLoader without backends: rows come from a fake scan, map files from
 * a temporary directory. Answers are checked against a HashMap of what was written last.
 */
class RouterLoaderTest {
    static final List<String> PARTITIONS = List.of("p0", "p1", "p2", "p3", "p4");
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT, destination INT, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE accounts (email VARCHAR(64) COLLATE utf8mb4_bin PRIMARY KEY, id BIGINT)
              PARTITION BY lookup(email) ON (p0, p1);
            CREATE TABLE events (id BIGINT PRIMARY KEY) PARTITION BY lookup(id) ON (p0, p1, p2, p3);
            """;

    @TempDir
    Path dir;

    final Catalog catalog = SchemaParser.parse(SCHEMA, PARTITIONS);

    Partitioning.LookedUp lookup(String table) {
        return (Partitioning.LookedUp) catalog.table(table).partitioning();
    }

    RouterLoader.Loaded fill(String table, Map<Object, Integer> rows, RouterConfig.LookupSource... maps) throws Exception {
        TableDef t = catalog.table(table);
        var profiler = new KeyProfile.Profiler();
        rows.forEach((k, p) -> {
            if (k instanceof Long l) {
                profiler.visit(l, org.lutra.lookup.PartitionSet.of(p));
            } else {
                profiler.visit((String) k, org.lutra.lookup.PartitionSet.of(p));
            }
        });
        return RouterLoader.fill(catalog, t, lookup(table), profiler.profile(), sink -> {
            rows.forEach(sink::accept);
            return rows.size();
        }, List.of(maps));
    }

    RouterConfig.LookupSource map(String table, String file, String format, String text) throws Exception {
        return new RouterConfig.LookupSource(table, Files.writeString(dir.resolve(file), text), format);
    }

    static void assertAgrees(Map<Object, Integer> reference, LookupTable table) {
        reference.forEach((k, p) -> assertEquals(p, table.get(k), "key " + k));
        assertEquals(reference.size(), table.size());
    }

    @Test
    void denseIntegerKeysGetAFlatArrayFromRowsAndACsvMapThatNamesPartitions() throws Exception {
        var rows = new HashMap<Object, Integer>();
        var r = new Random(1);
        for (long id = 1; id <= 50_000; id++) {
            if (id != 7) rows.put(id, r.nextInt(4));
        }
        var reference = new HashMap<>(rows);
        var csv = new StringBuilder("# the partitioner's map: it places new keys; keys with rows stay with their rows\n");
        for (long id = 1; id <= 50_000; id += 7) {
            int p = r.nextInt(4);
            csv.append(id).append(id % 2 == 0 ? ",p" : ", ").append(p).append('\n'); // names and ids
        }
        csv.append("007,p3\n"); // an integer column: 007 is key 7, which has no rows
        csv.append("7,p1\n"); // a second entry for a key: the first one wins
        reference.put(7L, 3);
        var loaded = fill("users", rows, map("users", "users.csv", "csv", csv.toString()));

        var table = (AdaptiveLookupTable) lookup("users").table();
        var dense = assertInstanceOf(DenseArrayLookupTable.class, table.current());
        assertTrue(dense.flat());
        assertEquals("DenseArrayLookupTable", loaded.representation());
        assertTrue(loaded.reason().contains("density 100.0%") && loaded.reason().contains("49999 keys in the rows"), loaded.reason());
        assertEquals(50_000, loaded.keys());
        assertAgrees(reference, table);
        assertSame(table, lookup("followers").table(), "SAME AS tables see the new representation through the shared handle");

        table.put(1L << 40, 2); // a key far outside the array: the handle moves to the hash map, the insert succeeds
        assertInstanceOf(HashLookupTable.class, table.current());
        assertEquals(2, table.get(1L << 40));
        assertEquals(reference.get(7L), table.get(7L));
    }

    @Test
    void sparseIntKeysGetColtAndStringKeysTheHashMap() throws Exception {
        var rows = new HashMap<Object, Integer>();
        for (long i = 0; i < 2_000; i++) {
            rows.put(i * 1_000_003L, (int) (i % 4));
        }
        var loaded = fill("users", rows);
        assertInstanceOf(ColtLookupTable.class, ((AdaptiveLookupTable) lookup("users").table()).current(), loaded.reason());
        assertEquals("ColtLookupTable", loaded.representation());
        assertAgrees(rows, lookup("users").table());

        var emails = new HashMap<Object, Integer>(Map.of("ann@x", 0, "bob@x", 1));
        var reference = new HashMap<>(emails);
        reference.put("42", 1); // numeric text in a string column is a string key
        reference.put("cy@x", 0); // trailing spaces do not count under PAD SPACE collations
        var accounts = fill("accounts", emails, map("accounts", "accounts.csv", null, "42,p1\ncy@x   ,0\n"));
        assertEquals("HashLookupTable", accounts.representation());
        assertTrue(accounts.reason().contains("string keys"), accounts.reason());
        assertAgrees(reference, lookup("accounts").table());
    }

    @Test
    void metisAndSchismMapsLoadThroughTheLibrary() throws Exception {
        Files.writeString(dir.resolve("events.graph.vertices"), "100\n101\n102\n103\n");
        var metis = map("events", "events.graph.part.4", "metis", "3\n2\n1\n0\n");
        var schism = map("events", "out.schism", "SCHISM", "events,102,2\nusers,102,0\nevents,200,1\n");
        var loaded = fill("events", Map.of(100L, 0, 104L, 3), metis, schism);
        // rows win over map entries (100 stays on 0), and the first entry for a key over later ones (102: metis before schism)
        assertAgrees(Map.of(100L, 0, 101L, 2, 102L, 1, 103L, 0, 104L, 3, 200L, 1), lookup("events").table());
        assertEquals(6, loaded.keys());
        assertEquals(dir.resolve("events.graph.vertices"), LookupMapFiles.verticesOf(dir.resolve("events.graph.part.4")));
        assertEquals(MapFormat.METIS, LookupMapFiles.mapSource(metis).format());
    }

    @Test
    void aBadLineStopsTheLoadWithItsLineNumberAndLeavesTheTableAsItWas() throws Exception {
        var before = lookup("users").table();
        before.put(5L, 1);
        LookupTable current = ((AdaptiveLookupTable) before).current();
        List<String[]> cases = new ArrayList<>(List.of(
                new String[] {"1,p0\n2,p1\n3,p4\n", "3", "partition p4 is not one of the partitions of users (p0, p1, p2, p3)"},
                new String[] {"1,p0\nbob,p1\n", "2", "key 'bob' is not an integer"},
                new String[] {"1,p0\n2,p1\n\n4,p2,p1\n", "4", "key 4 is placed on p1, p2: the config's map files place a key on one partition;"
                        + " replicate it with LOAD LOOKUP TABLE ... FROM this file, or ALTER TABLE ... SET PARTITION = (p1, p2) WHERE ..."},
                new String[] {"1,p0\n2,p1\n\n4" + ",p1".repeat(70) + "\n", "4", "more than 66 fields"},
                new String[] {"1,p0\n\u0001\u0002,p1\n", "2", "key '\\x01\\x02' is not an integer"},
                new String[] {"1,p0\n2,p7\n", "2", "not a partition id: 'p7'"}));
        for (String[] c : cases) {
            var e = assertThrows(MapFormatException.class, () -> fill("users", Map.of(9L, 0), map("users", "bad.csv", "csv", c[0])));
            assertEquals(Long.parseLong(c[1]), e.line(), e.getMessage());
            assertTrue(e.getMessage().contains("bad.csv:" + c[1]) && e.getMessage().contains(c[2]), e.getMessage());
            assertSame(current, ((AdaptiveLookupTable) before).current(), "nothing installed");
            assertEquals(1, before.get(5L));
            assertEquals(LookupTable.MISSING, before.get(9L), "the rows were not applied either");
        }
        var unknown = assertThrows(java.io.IOException.class,
                () -> LookupMapFiles.mapSource(new RouterConfig.LookupSource("users", dir.resolve("x.map"), "tsv")));
        assertTrue(unknown.getMessage().contains("unknown map format 'tsv'"), unknown.getMessage());
    }

    @Test
    void theProfileJoinsRowsAndMapsAndCoversEveryPartitionOfTheOnList() {
        var rows = KeyProfile.ofLongRange(1_000, 1, 1_000, 2);
        var map = KeyProfile.ofLongRange(800, 500, 1_500, 4);
        var joined = RouterLoader.combine(List.of(rows, map), KeyType.LONG, lookup("users"));
        assertEquals(1_000, joined.keyCount(), "overlapping sources: the larger count");
        assertEquals(1, joined.minKey());
        assertEquals(1_500, joined.maxKey());
        assertEquals(4, joined.partitionCount());
        var none = RouterLoader.combine(List.of(KeyProfile.ofLongRange(0, 0, -1, 0)), KeyType.LONG, lookup("users"));
        assertEquals(0, none.keyCount());
    }
}
