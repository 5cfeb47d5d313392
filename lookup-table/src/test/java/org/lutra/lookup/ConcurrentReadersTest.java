package org.lutra.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Readers run while a writer inserts, moves, removes, grows and widens. Readers must see, for a
 * churned key, MISSING or one of the values ever written for it (never a torn or foreign value),
 * and for a stable key written before they started, always its value (growth loses nothing).
 */
class ConcurrentReadersTest {
    static Stream<Arguments> tables() {
        return Stream.of(
                Arguments.of("dense", (Supplier<LookupTable>) DenseArrayLookupTable::new),
                Arguments.of("dense-paged", (Supplier<LookupTable>) () -> DenseArrayLookupTable.paged(0, 0, 1)),
                // flat while the cells are bytes, paged once they widen: readers race the change of layout
                Arguments.of("dense-relayout", (Supplier<LookupTable>) () ->
                        new DenseArrayLookupTable(0, 0, 1, DenseArrayLookupTable.DEFAULT_MAX_PAGES, 1 << 17)),
                Arguments.of("colt", (Supplier<LookupTable>) ColtLookupTable::new),
                Arguments.of("hash", (Supplier<LookupTable>) HashLookupTable::new),
                Arguments.of("compressed", (Supplier<LookupTable>) CompressedLookupTable::new),
                Arguments.of("replicated", (Supplier<LookupTable>) () -> new ReplicatedLookupTable(new HashLookupTable())),
                Arguments.of("hybrid", (Supplier<LookupTable>) () -> HybridLookupTable.empty()));
    }

    /** The values a churned key may legitimately hold: three per key, one of them wide. */
    static boolean legal(long key, int p) {
        int base = (int) Math.floorMod(key, 5);
        return p == base || p == base + 5 || p == 300 + base;
    }

    static int stableValue(long key) {
        return (int) Math.floorMod(key * 31, 7);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void readersSeeOnlyWrittenValuesAndNeverLoseStableKeys(String name, Supplier<LookupTable> factory) throws Exception {
        LookupTable table = factory.get();
        // Stable keys: odd multiples of 3 in [-30_000, 30_000); churned keys: the rest.
        for (long k = -30_001; k < 30_000; k += 6) {
            table.put(k, stableValue(k));
        }
        var stop = new AtomicBoolean();
        var failures = new ConcurrentLinkedQueue<String>();
        var reads = new AtomicLong();
        var readers = new ArrayList<Thread>();
        for (int t = 0; t < 3; t++) {
            int seed = t;
            readers.add(Thread.ofPlatform().start(() -> {
                var r = new Random(seed);
                long n = 0;
                while (!stop.get() && failures.isEmpty()) {
                    long k = -40_000 + r.nextInt(80_000);
                    int p = table.get(k);
                    boolean stable = Math.floorMod(k + 30_001, 6) == 0 && k >= -30_001 && k < 30_000;
                    if (stable ? p != stableValue(k) : p != LookupTable.MISSING && !legal(k, p)) {
                        failures.add(name + ": key " + k + " read " + p);
                    }
                    n++;
                }
                reads.addAndGet(n);
            }));
        }
        var r = new Random(42);
        long deadline = System.nanoTime() + 400_000_000L;
        int writes = 0;
        while (System.nanoTime() < deadline || writes < 50_000) {
            long k = -40_000 + r.nextInt(80_000);
            if (Math.floorMod(k + 30_001, 6) == 0 && k >= -30_001 && k < 30_000) {
                continue;
            }
            int base = (int) Math.floorMod(k, 5);
            int dice = r.nextInt(10);
            if (dice < 7) {
                table.put(k, dice < 6 ? base + (dice % 2) * 5 : 300 + base);
            } else {
                table.remove(k);
            }
            writes++;
        }
        stop.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        assertTrue(failures.isEmpty(), () -> failures.peek());
        assertTrue(reads.get() > 1000, "readers ran: " + reads.get());
        for (long k = -30_001; k < 30_000; k += 6) {
            assertEquals(stableValue(k), table.get(k));
        }
    }
}
