package org.lutra.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChooserTest {
    @Test
    void denseKeysGetAnArrayAndTheReasonSaysWhy() {
        var choice = LookupTables.choose(KeyProfile.ofLongRange(90_000_000, 1, 100_000_000, 16));
        assertEquals(LookupTables.Kind.DENSE_ARRAY, choice.kind());
        assertTrue(choice.reason().contains("density 90.0%"), choice.reason());
        assertInstanceOf(DenseArrayLookupTable.class, LookupTables.create(choice, KeyProfile.ofLongRange(90, 1, 100, 16)));
    }

    @Test
    void sparseIntKeysGetColtAndSparseLongKeysTheHashMap() {
        assertEquals(LookupTables.Kind.COLT, LookupTables.choose(KeyProfile.ofLongRange(1_000, 0, 2_000_000_000, 4)).kind());
        assertEquals(LookupTables.Kind.HASH, LookupTables.choose(KeyProfile.ofLongRange(1_000, 0, 1L << 50, 4)).kind());
    }

    @Test
    void estimatesAreWhatTheCreatedTablesTake() {
        // 3 M int keys over 10 M: each representation as create() pre-sizes it for the profile
        var profile = KeyProfile.ofLongRange(3_000_000, 5_000_000, 15_000_000, 16);
        var estimates = LookupTables.estimate(profile);
        for (var kind : java.util.List.of(LookupTables.Kind.DENSE_ARRAY, LookupTables.Kind.COLT, LookupTables.Kind.HASH)) {
            long created = LookupTables.create(new LookupTables.Choice(kind, "", estimates), profile).estimatedBytes();
            assertEquals(created, estimates.get(kind), created * 0.01, kind + ": estimate vs the created table");
        }
    }

    @Test
    void stringKeysAlwaysGetTheHashMap() {
        var profile = new KeyProfile(10, 10, 0, -1, 2, 0, new long[] {5, 5}, 0);
        var choice = LookupTables.choose(profile);
        assertEquals(LookupTables.Kind.HASH, choice.kind());
        assertTrue(choice.reason().contains("string"));
    }

    @Test
    void compactnessPicksHuffmanForClusteredMaps() {
        var profile = new KeyProfile(10_000_000, 0, 0, 9_999_999, 8, 0, new long[] {9_000_000, 500_000, 500_000}, 100);
        assertEquals(LookupTables.Kind.DENSE_ARRAY, LookupTables.choose(profile).kind());
        assertEquals(LookupTables.Kind.COMPRESSED, LookupTables.chooseCompact(profile).kind());
    }

    @Test
    void profilerCountsRunsDensityAndReplicas() {
        var profiler = new KeyProfile.Profiler();
        for (long k = 0; k < 100; k++) {
            profiler.visit(k, PartitionSet.of((int) (k / 10)));
        }
        profiler.visit(200, PartitionSet.of(1, 2));
        var profile = profiler.profile();
        assertEquals(101, profile.keyCount());
        assertEquals(11, profile.runs());
        assertEquals(1, profile.replicatedKeys());
        assertEquals(101 / 201.0, profile.density(), 1e-9);
        assertEquals(10, profile.partitionCount());
    }
}
