package org.lutra.lookup.bench;

import cern.colt.map.OpenIntIntHashMap;
import java.util.SplittableRandom;
import org.lutra.lookup.BenchAccess;
import org.lutra.lookup.ColtLookupTable;
import org.lutra.lookup.CompressedLookupTable;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.HashLookupTable;
import org.lutra.lookup.LookupTable;

/**
 * The synthetic maps the benchmarks share: keys 0..n-1, 16 partitions, clustered in runs
 * (geometric lengths, mean 1,000 keys, as a graph partitioner's output ordered by key tends to be)
 * with a skewed choice of partition per run and 1% of keys scattered at random.
 */
final class Maps {
    static final int PARTITIONS = 16;

    private Maps() {}

    /** The partition of each key, generated deterministically from the seed. */
    static byte[] clustered(int n, long seed) {
        var r = new SplittableRandom(seed);
        byte[] map = new byte[n];
        int i = 0;
        while (i < n) {
            int run = 1 + (int) (-Math.log(1 - r.nextDouble()) * 1000);
            int p = skewed(r);
            for (int end = Math.min(n, i + run); i < end; i++) {
                map[i] = (byte) (r.nextInt(100) == 0 ? r.nextInt(PARTITIONS) : p);
            }
        }
        return map;
    }

    /** Partition p with probability proportional to 1/(p+1) (Zipf-like): a few hot partitions. */
    private static int skewed(SplittableRandom r) {
        double total = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            total += 1.0 / (p + 1);
        }
        double x = r.nextDouble() * total;
        for (int p = 0; p < PARTITIONS; p++) {
            x -= 1.0 / (p + 1);
            if (x <= 0) {
                return p;
            }
        }
        return PARTITIONS - 1;
    }

    static LookupTable build(String kind, byte[] map) {
        int n = map.length;
        return switch (kind) {
            case "dense" -> fill(new DenseArrayLookupTable(0, n, PARTITIONS), map);
            case "paged" -> fill(BenchAccess.pagedDense(0, n, PARTITIONS), map);
            case "colt" -> fill(new ColtLookupTable(n), map);
            case "hash" -> fill(new HashLookupTable(n), map);
            case "compressed" -> CompressedLookupTable.of((DenseArrayLookupTable) fill(new DenseArrayLookupTable(0, n, PARTITIONS), map));
            case "raw" -> new RawArray(map);
            case "colt-own" -> fillColt(new OpenIntIntHashMap(2 * n + 1), map);
            case "colt-own-grown" -> fillColt(new OpenIntIntHashMap(n), map);
            default -> throw new IllegalArgumentException("kind: raw, dense, paged, colt, colt-own, colt-own-grown, hash, compressed");
        };
    }

    static LookupTable fill(LookupTable table, byte[] map) {
        for (int k = 0; k < map.length; k++) {
            table.put(k, map[k]);
        }
        return table;
    }

    static LookupTable fillColt(OpenIntIntHashMap colt, byte[] map) {
        for (int k = 0; k < map.length; k++) {
            colt.put(k, map[k]);
        }
        return new ColtOwn(colt);
    }

    /**
     * Baseline only, not a table: Colt's own {@code get} on a bare {@link OpenIntIntHashMap} (no
     * lock, no missing-key test), to separate what Colt costs from what {@code ColtLookupTable}
     * adds. {@code colt-own} is pre-sized as the table is (2n+1 slots, load 0.5 at the end);
     * {@code colt-own-grown} is sized for n and grows by Colt's rules (ending at load 0.30).
     */
    static final class ColtOwn implements LookupTable {
        private final OpenIntIntHashMap colt;

        ColtOwn(OpenIntIntHashMap colt) {
            this.colt = colt;
        }

        @Override public int get(long key) { return colt.get((int) key); }
        @Override public int get(String key) { return MISSING; }
        @Override public void put(long key, int partition) { throw new UnsupportedOperationException(); }
        @Override public void put(String key, int partition) { throw new UnsupportedOperationException(); }
        @Override public boolean remove(long key) { throw new UnsupportedOperationException(); }
        @Override public boolean remove(String key) { throw new UnsupportedOperationException(); }
        @Override public long size() { return colt.size(); }
    }

    /**
     * Baseline only, not a table: one flat byte[] indexed by the key, no paging, no bounds logic
     * beyond Java's. Shows what the machine's memory allows, so the dense table's overhead is visible.
     */
    static final class RawArray implements LookupTable {
        private final byte[] cells;

        RawArray(byte[] map) {
            cells = map;
        }

        @Override public int get(long key) { return cells[(int) key]; }
        @Override public int get(String key) { return MISSING; }
        @Override public void put(long key, int partition) { throw new UnsupportedOperationException(); }
        @Override public void put(String key, int partition) { throw new UnsupportedOperationException(); }
        @Override public boolean remove(long key) { throw new UnsupportedOperationException(); }
        @Override public boolean remove(String key) { throw new UnsupportedOperationException(); }
        @Override public long size() { return cells.length; }
        @Override public long estimatedBytes() { return 16L + cells.length; }
    }
}
