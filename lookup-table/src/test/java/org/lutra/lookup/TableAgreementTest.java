package org.lutra.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every unique integer-key table agrees with a HashMap on random sequences of puts, moves,
 * removes and lookups, over several key distributions (dense, sparse, negative, extremes).
 */
class TableAgreementTest {
    record Impl(String name, Supplier<LookupTable> factory, KeySpace keys) {
        @Override
        public String toString() {
            return name + "/" + keys;
        }
    }

    enum KeySpace {
        DENSE(0, 5_000), NEGATIVE(-3_000, 3_000), SPARSE_INT(Integer.MIN_VALUE, Integer.MAX_VALUE), EXTREMES(Long.MIN_VALUE, Long.MAX_VALUE),
        /** Six clusters of 3,000 keys spread over 15M keys: a dense array starts flat and turns paged. */
        CLUSTERS(-6_000_000, 9_000_000);

        final long lo;
        final long hi;

        KeySpace(long lo, long hi) {
            this.lo = lo;
            this.hi = hi;
        }

        long next(Random r) {
            if (this == EXTREMES) {
                long[] edges = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1};
                return r.nextInt(4) == 0 ? edges[r.nextInt(edges.length)] : r.nextLong();
            }
            if (this == CLUSTERS) {
                return lo + r.nextInt(6) * 3_000_000L + r.nextInt(3_000);
            }
            if (this == SPARSE_INT) {
                int[] edges = {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1};
                return r.nextInt(8) == 0 ? edges[r.nextInt(edges.length)] : r.nextInt(20_000) * 104_729L;
            }
            return lo + r.nextLong(hi - lo);
        }
    }

    static Stream<Arguments> implementations() {
        return Stream.of(
                new Impl("dense", DenseArrayLookupTable::new, KeySpace.DENSE),
                new Impl("dense", DenseArrayLookupTable::new, KeySpace.NEGATIVE),
                new Impl("dense", DenseArrayLookupTable::new, KeySpace.CLUSTERS),
                new Impl("dense-paged", () -> DenseArrayLookupTable.paged(0, 0, 1), KeySpace.NEGATIVE),
                new Impl("dense-paged", () -> DenseArrayLookupTable.paged(0, 0, 1), KeySpace.CLUSTERS),
                // A 128 KiB flat limit: widening to 2- and 4-byte cells moves the table from flat to paged mid-sequence.
                new Impl("dense-small-flat-limit", () -> new DenseArrayLookupTable(0, 0, 1, DenseArrayLookupTable.DEFAULT_MAX_PAGES, 1 << 17),
                        KeySpace.NEGATIVE),
                new Impl("colt", ColtLookupTable::new, KeySpace.DENSE),
                new Impl("colt", ColtLookupTable::new, KeySpace.SPARSE_INT),
                new Impl("hash", HashLookupTable::new, KeySpace.NEGATIVE),
                new Impl("hash", HashLookupTable::new, KeySpace.SPARSE_INT),
                new Impl("hash", HashLookupTable::new, KeySpace.EXTREMES),
                new Impl("compressed", CompressedLookupTable::new, KeySpace.DENSE),
                new Impl("compressed", CompressedLookupTable::new, KeySpace.NEGATIVE),
                new Impl("replicated-over-dense", () -> new ReplicatedLookupTable(new DenseArrayLookupTable()), KeySpace.DENSE),
                new Impl("replicated-over-hash", () -> new ReplicatedLookupTable(new HashLookupTable()), KeySpace.EXTREMES),
                // Start as the narrow kinds and move to the hash map on the first key they cannot hold.
                new Impl("adaptive-over-dense", () -> new AdaptiveLookupTable(new DenseArrayLookupTable(), "test"), KeySpace.EXTREMES),
                new Impl("adaptive-over-colt", () -> new AdaptiveLookupTable(new ColtLookupTable(), "test"), KeySpace.EXTREMES),
                new Impl("adaptive-over-dense", () -> new AdaptiveLookupTable(new DenseArrayLookupTable(), "test"), KeySpace.CLUSTERS),
                new Impl("partial-unbounded", () -> new PartialLookupTable(1_000_000, Long.MAX_VALUE), KeySpace.EXTREMES)
        ).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("implementations")
    void agreesWithHashMapOnRandomOperations(Impl impl) {
        for (int seed = 1; seed <= 4; seed++) {
            var r = new Random(seed * 7919L + impl.keys.ordinal());
            LookupTable table = impl.factory.get();
            Map<Long, Integer> reference = new HashMap<>();
            int partitions = seed == 4 ? 70_000 : seed == 3 ? 300 : 8; // seeds 3 and 4 force widening
            for (int op = 0; op < 20_000; op++) {
                long key = r.nextInt(3) == 0 && !reference.isEmpty() ? anyKey(reference, r) : impl.keys.next(r);
                int dice = r.nextInt(10);
                if (dice < 5) {
                    int p = r.nextInt(partitions);
                    if (table instanceof CompressedLookupTable && p > CompressedLookupTable.MAX_PARTITION) {
                        p %= CompressedLookupTable.MAX_PARTITION;
                    }
                    table.put(key, p);
                    reference.put(key, p);
                } else if (dice < 7) {
                    assertEquals(reference.remove(key) != null, table.remove(key), "remove " + key);
                } else {
                    assertEquals(reference.getOrDefault(key, LookupTable.MISSING), table.get(key), "get " + key + " after op " + op);
                }
            }
            assertEquals(reference.size(), table.size(), "size");
            for (var e : reference.entrySet()) {
                assertEquals(e.getValue(), table.get(e.getKey()), "final get " + e.getKey());
                assertEquals(PartitionSet.of(e.getValue()), table.getAll(e.getKey()));
            }
            Map<Long, Integer> walked = new HashMap<>();
            table.forEach(new EntryVisitor() {
                @Override
                public void visit(long key, PartitionSet partitions) {
                    walked.put(key, partitions.first());
                }

                @Override
                public void visit(String key, PartitionSet partitions) {
                    throw new AssertionError("no string keys were put");
                }
            });
            assertEquals(reference, walked, "forEach");
        }
    }

    private static long anyKey(Map<Long, Integer> reference, Random r) {
        int skip = r.nextInt(Math.min(reference.size(), 64));
        var it = reference.keySet().iterator();
        long key = it.next();
        while (skip-- > 0 && it.hasNext()) {
            key = it.next();
        }
        return key;
    }
}
