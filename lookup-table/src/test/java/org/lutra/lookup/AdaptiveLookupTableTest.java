package org.lutra.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AdaptiveLookupTableTest {
    @Test
    void startsAsTheChoosersEmptyTableAndTakesAReplacementWhole() {
        var table = AdaptiveLookupTable.empty();
        assertInstanceOf(HashLookupTable.class, table.current());
        assertTrue(table.reason().contains("no keys yet"), table.reason());
        table.put(1L, 2);
        var dense = new DenseArrayLookupTable(0, 100, 4);
        dense.put(5, 3);
        table.replace(dense, "chosen");
        assertSame(dense, table.current());
        assertEquals("chosen", table.reason());
        assertEquals(3, table.get(5L));
        assertEquals(LookupTable.MISSING, table.get(1L), "the replacement is the truth");
    }

    @Test
    void aKeyTheRepresentationCannotHoldMovesEveryEntryToTheHashMap() {
        var table = new AdaptiveLookupTable(new DenseArrayLookupTable(0, 1000, 4), "dense keys");
        for (long k = 0; k < 1000; k++) {
            table.put(k, (int) (k % 4));
        }
        table.put(1L << 50, 1); // beyond any dense span from 0
        assertInstanceOf(HashLookupTable.class, table.current());
        assertTrue(table.reason().startsWith("general hash map since key " + (1L << 50)), table.reason());
        assertEquals(1001, table.size());
        assertEquals(1, table.get(1L << 50));
        for (long k = 0; k < 1000; k++) {
            assertEquals((int) (k % 4), table.get(k));
        }
        table.put("text", 2);
        assertEquals(2, table.get("text"));

        var colt = new AdaptiveLookupTable(new ColtLookupTable(), "int keys");
        colt.put(7L, 1);
        colt.put("seven", 2);
        assertInstanceOf(HashLookupTable.class, colt.current());
        assertEquals(1, colt.get(7L));
        assertEquals(2, colt.get("seven"));
    }

    @Test
    void badPartitionsAreRefusedWithoutChangingTheRepresentation() {
        var dense = new DenseArrayLookupTable();
        var table = new AdaptiveLookupTable(dense, "dense");
        assertThrows(IllegalArgumentException.class, () -> table.put(1L, -3));
        assertSame(dense, table.current());
        var hash = new AdaptiveLookupTable(new HashLookupTable(), "hash");
        assertThrows(IllegalArgumentException.class, () -> hash.put(1L, -3));
    }

    @Test
    void readersKeepSeeingEveryKeyWhileTheRepresentationChanges() throws Exception {
        for (int trial = 0; trial < 20; trial++) {
            var table = new AdaptiveLookupTable(new DenseArrayLookupTable(), "dense");
            for (long k = 0; k < 20_000; k++) {
                table.put(k, (int) (k % 5));
            }
            var stop = new AtomicBoolean();
            var failures = new ConcurrentLinkedQueue<String>();
            var readers = new ArrayList<Thread>();
            for (int t = 0; t < 2; t++) {
                readers.add(Thread.ofPlatform().start(() -> {
                    long k = 0;
                    while (!stop.get()) {
                        int p = table.get(k);
                        if (p != (int) (k % 5)) {
                            failures.add("key " + k + " read " + p);
                        }
                        k = (k + 7919) % 20_000;
                    }
                }));
            }
            table.put(Long.MAX_VALUE, 1); // generalizes while the readers run
            for (long k = 20_000; k < 25_000; k++) {
                table.put(k, 0);
            }
            stop.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
            assertTrue(failures.isEmpty(), () -> failures.peek());
            assertEquals(25_001, table.size());
        }
    }
}
