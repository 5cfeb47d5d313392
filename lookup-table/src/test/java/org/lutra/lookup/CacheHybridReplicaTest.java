package org.lutra.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CacheHybridReplicaTest {
    @Test
    void partialTableKeepsRecentlyUsedKeysWithinItsEntryBound() {
        var cache = PartialLookupTable.ofEntries(100);
        for (long k = 0; k < 100; k++) {
            cache.put(k, 1);
        }
        for (int round = 0; round < 3; round++) {
            for (long k = 0; k < 10; k++) {
                assertEquals(1, cache.get(k)); // hot keys keep their reference bit set
            }
            for (long k = 1000 + round * 50; k < 1050 + round * 50; k++) {
                cache.put(k, 2);
            }
        }
        assertEquals(100, cache.size());
        for (long k = 0; k < 10; k++) {
            assertEquals(1, cache.get(k), "hot key " + k + " evicted");
        }
        assertTrue(cache.evictions() >= 150);
    }

    @Test
    void partialTableRespectsItsByteBoundWithStrings() {
        var cache = PartialLookupTable.ofBytes(20_000);
        var r = new Random(1);
        for (int i = 0; i < 10_000; i++) {
            cache.put("user-" + r.nextInt(1_000_000) + "-ü", 3);
            assertTrue(cache.estimatedBytes() <= 20_000 + 4 * 1024 + 64 * 2, "over budget: " + cache.estimatedBytes());
        }
        assertTrue(cache.size() > 50 && cache.size() < 200, "entries " + cache.size());
    }

    @Test
    void hybridLearnsRangesAndKeepsOnlyTheOutliersAsExceptions() {
        int n = 100_000;
        long[] keys = new long[n];
        int[] parts = new int[n];
        var r = new Random(3);
        for (int i = 0; i < n; i++) {
            keys[i] = i * 2L; // every other key, so gaps exist
            parts[i] = (i / 1000) % 8;
            if (r.nextInt(100) == 0) {
                parts[i] = r.nextInt(8);
            }
        }
        var table = HybridLookupTable.train(keys, parts, n, 4);
        var rule = assertInstanceOf(HybridLookupTable.RangeRule.class, table.rule());
        assertTrue(rule.starts().length <= 101, "ranges " + rule.starts().length);
        assertTrue(table.exceptionCount() < n / 80, "exceptions " + table.exceptionCount());
        for (int i = 0; i < n; i++) {
            assertEquals(parts[i], table.get(keys[i]));
        }
        assertTrue(table.estimatedBytes() < n, "hybrid bytes " + table.estimatedBytes());
        assertEquals(n, table.size());
        assertTrue(table.remove(keys[5]));
        assertEquals(LookupTable.MISSING, table.get(keys[5]), "removed keys stop answering even inside a range");
        table.put(keys[5], 7);
        assertEquals(7, table.get(keys[5]));
        assertEquals(n, table.size());
    }

    @Test
    void hybridFallsBackToHashWhenKeysAreHashPartitioned() {
        int n = 10_000;
        long[] keys = new long[n];
        int[] parts = new int[n];
        var rule = new HybridLookupTable.HashRule(4);
        for (int i = 0; i < n; i++) {
            keys[i] = i;
            parts[i] = rule.predict(i);
        }
        var table = HybridLookupTable.train(keys, parts, n, 4);
        assertInstanceOf(HybridLookupTable.HashRule.class, table.rule());
        assertEquals(0, table.exceptionCount());
    }

    @Test
    void replicatedTableAgreesWithAReferenceOfSets() {
        var r = new Random(9);
        for (LookupTable primary : new LookupTable[] {new DenseArrayLookupTable(), new HashLookupTable(), new ColtLookupTable()}) {
            var table = new ReplicatedLookupTable(primary, 64);
            Map<Long, PartitionSet> reference = new HashMap<>();
            for (int op = 0; op < 30_000; op++) {
                long k = r.nextInt(2000) - 1000;
                int p = r.nextInt(6);
                PartitionSet before = reference.getOrDefault(k, PartitionSet.EMPTY);
                switch (r.nextInt(5)) {
                    case 0 -> { table.add(k, p); reference.put(k, before.with(p)); }
                    case 1 -> {
                        assertEquals(before.contains(p), table.removePartition(k, p));
                        if (before.without(p).isEmpty()) reference.remove(k); else reference.put(k, before.without(p));
                    }
                    case 2 -> { table.put(k, p); reference.put(k, PartitionSet.of(p)); }
                    case 3 -> assertEquals(reference.remove(k) != null, table.remove(k));
                    default -> {
                        assertEquals(before, table.getAll(k));
                        assertEquals(before.first(), table.get(k));
                    }
                }
            }
            assertEquals(reference.size(), table.size());
            reference.forEach((k, v) -> assertEquals(v, table.getAll(k)));
            assertFalse(reference.values().stream().noneMatch(s -> s.size() > 1), "test exercised replication");
        }
    }

    @Test
    void sameAsColumnsShareOneTable() {
        var catalog = new LookupCatalog();
        LookupTable users = catalog.define("users", "id", new DenseArrayLookupTable());
        catalog.sameAs("followers", "source", "users", "id");
        users.put(27L, 2);
        assertEquals(2, catalog.table("followers", "source").get(27L));
        assertTrue(catalog.table("followers", "source") == users);
        assertEquals(java.util.Set.of("users.id", "followers.source"), catalog.columnsSharing(users));
    }
}
