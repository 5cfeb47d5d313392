package org.lutra.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EdgeKeysTest {
    @Test
    void hashTableTakesUnicodeAndEmptyStringsBesideLongs() {
        var table = new HashLookupTable();
        String[] keys = {"", "ä", "日本語", "emoji 🦦", "a\u0000b", "O'Brien", "0", "-1"};
        for (int i = 0; i < keys.length; i++) {
            table.put(keys[i], i);
        }
        table.put(0L, 99);
        for (int i = 0; i < keys.length; i++) {
            assertEquals(i, table.get(keys[i]));
            assertEquals(i, table.get((Object) keys[i]));
        }
        assertEquals(99, table.get(0L));
        assertEquals(99, table.get((Object) 0));
        assertEquals(keys.length + 1, table.size());
        assertEquals(LookupTable.MISSING, table.get("日本"));
    }

    @Test
    void denseArrayHandlesZeroNegativeAndKeysNearTheEndsOfLong() {
        var table = new DenseArrayLookupTable();
        table.put(Long.MAX_VALUE, 3);
        table.put(Long.MAX_VALUE - 70_000, 4);
        assertEquals(3, table.get(Long.MAX_VALUE));
        assertEquals(4, table.get(Long.MAX_VALUE - 70_000));
        assertEquals(LookupTable.MISSING, table.get(Long.MIN_VALUE));
        assertEquals(LookupTable.MISSING, table.get(0));
        assertThrows(IllegalArgumentException.class, () -> table.put(0, 1), "far key must be refused, not allocated");
        assertEquals(2, table.size());

        var low = new DenseArrayLookupTable();
        low.put(Long.MIN_VALUE, 1);
        low.put(Long.MIN_VALUE + 1, 0);
        assertEquals(1, low.get(Long.MIN_VALUE));
        assertEquals(0, low.get(Long.MIN_VALUE + 1));
        assertEquals(LookupTable.MISSING, low.get(Long.MAX_VALUE));
    }

    @Test
    void denseArrayWidensFromBytesToShortsToIntsKeepingEntries() {
        var table = new DenseArrayLookupTable();
        for (int k = -100; k < 100; k++) {
            table.put(k, (k + 100) % 200);
        }
        assertEquals(1, table.width());
        table.put(5, 254);
        assertEquals(1, table.width(), "254 + 1 still fits a byte");
        table.put(6, 255);
        assertEquals(2, table.width());
        table.put(7, 70_000);
        assertEquals(4, table.width());
        table.put(8, Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, table.get(8));
        assertEquals(70_000, table.get(7));
        assertEquals(255, table.get(6));
        assertEquals(254, table.get(5));
        assertEquals(0, table.get(-100));
        assertEquals(200, table.size());
    }

    @Test
    void denseArrayCostsAboutOneByteAKeyWhenFull() {
        var table = new DenseArrayLookupTable(0, 1 << 20, 200);
        for (int k = 0; k < 1 << 20; k++) {
            table.put(k, k % 200);
        }
        double perKey = (double) table.estimatedBytes() / table.size();
        assertTrue(perKey < 1.01, "bytes a key: " + perKey);
    }

    @Test
    void sparseGapsLeaveUnallocatedPages() {
        var table = new DenseArrayLookupTable();
        table.put(0, 1);
        table.put(100_000_000, 2);
        assertTrue(table.estimatedBytes() < 400_000, "two pages and a directory, got " + table.estimatedBytes());
        assertEquals(LookupTable.MISSING, table.get(50_000_000));
    }

    @Test
    void denseLayoutFollowsSpanAndDensityAndKeepsEntries() {
        var reference = new HashMap<Long, Integer>();
        var table = new DenseArrayLookupTable();
        for (long k = 0; k < 10_000; k++) {
            table.put(k, (int) (k % 7));
            reference.put(k, (int) (k % 7));
        }
        assertTrue(table.flat(), "small and dense: one array");
        table.put(5_000_000, 3);
        reference.put(5_000_000L, 3);
        assertFalse(table.flat(), "10,001 keys over 5M: pages, gaps unallocated");
        assertTrue(table.estimatedBytes() < 1_000_000, "bytes: " + table.estimatedBytes());
        for (long k = 10_000; k < 5_000_000; k += 2) {
            table.put(k, 1);
            reference.put(k, 1);
        }
        assertFalse(table.flat(), "filling inside the span does not relayout");
        long end = table.spanEnd();
        table.put(end, 2); // growth re-decides the layout: half full now, so flat again
        reference.put(end, 2);
        assertTrue(table.flat(), "dense again after growth");
        reference.forEach((k, v) -> assertEquals(v, table.get(k), "key " + k));
        assertEquals(reference.size(), table.size());

        assertFalse(DenseArrayLookupTable.paged(0, 0, 1).flat(), "paged even while empty");
        var paged = DenseArrayLookupTable.paged(0, 1 << 20, 16);
        for (long k = 0; k < 1 << 20; k++) {
            paged.put(k, 1);
        }
        assertFalse(paged.flat());
        assertEquals(1, paged.get(12_345));
    }

    @Test
    void descendingAndAscendingLoadsGrowByHalvesNotByPages() {
        var down = new DenseArrayLookupTable();
        var up = new DenseArrayLookupTable();
        for (long k = 0; k < 3_000_000; k++) {
            down.put(-k, 1);
            up.put(k, 2);
        }
        assertTrue(down.flat() && up.flat());
        assertEquals(1, down.get(-2_999_999));
        assertEquals(2, up.get(2_999_999));
        assertTrue(down.spanEnd() - down.spanStart() < 2 * 3_000_000L + DensePages.PAGE_SIZE);
        assertTrue(up.spanEnd() - up.spanStart() < 2 * 3_000_000L + DensePages.PAGE_SIZE);
    }

    @Test
    void coltRemovedSlotsNeverAnswerAndCanBeReused() {
        var table = new ColtLookupTable();
        var reference = new HashMap<Long, Integer>();
        for (long k = 0; k < 3_000; k++) {
            table.put(k, (int) (k % 5));
            reference.put(k, (int) (k % 5));
        }
        for (long k = 0; k < 3_000; k += 2) {
            assertTrue(table.remove(k));
            reference.remove(k);
        }
        for (long k = -10; k < 6_010; k++) {
            assertEquals(reference.getOrDefault(k, LookupTable.MISSING), table.get(k), "key " + k);
        }
        for (long k = 0; k < 3_000; k += 4) {
            table.put(k, 4);
            reference.put(k, 4);
        }
        for (long k = -10; k < 6_010; k++) {
            assertEquals(reference.getOrDefault(k, LookupTable.MISSING), table.get(k), "key " + k);
        }
        assertEquals(reference.size(), table.size());
    }

    @Test
    void intOnlyTablesRefuseWhatTheyCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> new ColtLookupTable().put(1L << 40, 1));
        assertThrows(IllegalArgumentException.class, () -> new ColtLookupTable().put("x", 1));
        assertThrows(IllegalArgumentException.class, () -> new DenseArrayLookupTable().put("x", 1));
        assertThrows(IllegalArgumentException.class, () -> new CompressedLookupTable().put("x", 1));
        assertEquals(LookupTable.MISSING, new CompressedLookupTable().get("x"));
        assertFalse(new DenseArrayLookupTable().remove("x"));
        assertEquals(LookupTable.MISSING, new ColtLookupTable().get(1L << 40));
        assertThrows(IllegalArgumentException.class, () -> new HashLookupTable().put(1, -1));
        assertThrows(IllegalArgumentException.class, () -> new HashLookupTable().get(2.5));
    }

    @Test
    void compressedTableMatchesTheArrayItCompresses() {
        var r = new Random(5);
        var dense = new DenseArrayLookupTable();
        var reference = new HashMap<Long, Integer>();
        for (long k = 0; k < 300_000; k++) {
            if (r.nextInt(10) != 0) { // 10% holes, clustered runs, some noise
                int p = (int) ((k / 5_000) % 16);
                if (r.nextInt(50) == 0) {
                    p = r.nextInt(16);
                }
                dense.put(k, p);
                reference.put(k, p);
            }
        }
        var compressed = CompressedLookupTable.of(dense);
        assertEquals(reference.size(), compressed.size());
        for (long k = -10; k < 300_010; k++) {
            assertEquals(reference.getOrDefault(k, LookupTable.MISSING), compressed.get(k), "key " + k);
        }
        assertTrue(compressed.estimatedBytes() * 2 < dense.estimatedBytes(),
                compressed.estimatedBytes() + " vs " + dense.estimatedBytes());
    }

    @Test
    void huffmanCodeIsPrefixFreeAndLengthLimited() {
        long[] freq = new long[40];
        for (int i = 0; i < freq.length; i++) {
            freq[i] = 1L << Math.min(i, 60); // Fibonacci-like skew would need > 16 bits unlimited
        }
        var code = HuffmanCode.build(freq);
        assertTrue(code.maxLength <= HuffmanCode.LIMIT);
        for (int s = 0; s < freq.length; s++) {
            int entry = code.decode[code.codes[s] << (code.maxLength - code.lengths[s])];
            assertEquals(s, entry >>> 5);
            assertEquals(code.lengths[s], entry & 31);
        }
    }
}
