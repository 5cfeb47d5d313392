package org.lutra.lookup.bench;

import java.lang.management.ManagementFactory;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.LookupTable;

/**
 * Measures the heap a table really takes: heap used after full GCs with the table reachable,
 * minus heap used before it was built (the source map is dropped first). Not a JMH benchmark.
 *
 * <pre>java -Xmx1200m -cp ... org.lutra.lookup.bench.FootprintHarness dense 1000000000</pre>
 * For {@code dense} the keys are put one by one (no source array), so a billion keys fit in
 * about 1 GB of heap; the other kinds build from the clustered synthetic map.
 */
public final class FootprintHarness {
    public static void main(String[] args) {
        String kind = args[0];
        int n = Integer.parseInt(args[1].replace("_", ""));
        long before = usedAfterGc();
        long started = System.nanoTime();
        LookupTable table;
        if (kind.equals("dense")) {
            table = new DenseArrayLookupTable(0, n, Maps.PARTITIONS);
            for (int k = 0; k < n; k++) {
                table.put(k, (k >>> 10) % Maps.PARTITIONS);
            }
        } else {
            table = Maps.build(kind, Maps.clustered(n, 42)); // the map array is garbage after this line
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long after = usedAfterGc();
        long bytes = after - before;
        System.out.printf("%s keys=%,d heapUsed=%,d bytes (%.1f MB) bytesPerKey=%.3f estimated=%.3f build=%.1fs maxHeap=%,d MB%n",
                kind, table.size(), bytes, bytes / 1e6, (double) bytes / table.size(),
                (double) table.estimatedBytes() / table.size(), seconds, Runtime.getRuntime().maxMemory() >> 20);
        if (table.get(n / 2) == LookupTable.MISSING) {
            throw new AssertionError("table lost a key"); // also keeps the table reachable up to here
        }
    }

    static long usedAfterGc() {
        var memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
