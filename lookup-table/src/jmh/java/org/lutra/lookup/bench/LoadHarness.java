package org.lutra.lookup.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.io.MapLoader;
import org.lutra.lookup.io.MapSource;
import org.lutra.lookup.io.Snapshots;

/**
 * Loading speed: writes a csv map of {@code n} lines (if absent), loads it into a dense array
 * with {@link MapLoader} (lines/s), writes a snapshot and reads it back (restart time).
 *
 * <pre>java -Xmx2g -cp ... org.lutra.lookup.bench.LoadHarness /tmp/map100m.csv 100000000</pre>
 */
public final class LoadHarness {
    public static void main(String[] args) throws IOException {
        Path csv = Path.of(args[0]);
        int n = Integer.parseInt(args[1].replace("_", ""));
        if (!Files.exists(csv)) {
            write(csv, n);
        }
        for (int round = 1; round <= 2; round++) { // round 1 warms the JIT and the page cache
            var loader = new MapLoader();
            long t0 = System.nanoTime();
            LookupTable table = loader.load(MapSource.csv(csv), () -> new DenseArrayLookupTable(0, n, Maps.PARTITIONS));
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("round %d: csv load %,d lines in %.2fs = %.2fM lines/s%n", round, table.size(), s, table.size() / s / 1e6);
            Path snapshot = csv.resolveSibling(csv.getFileName() + ".lts");
            long t1 = System.nanoTime();
            Snapshots.write(table, snapshot);
            long t2 = System.nanoTime();
            LookupTable back = Snapshots.read(snapshot);
            long t3 = System.nanoTime();
            System.out.printf("round %d: snapshot %,d bytes, write %.2fs, read %.2fs (%,d keys)%n", round, Files.size(snapshot),
                    (t2 - t1) / 1e9, (t3 - t2) / 1e9, back.size());
        }
    }

    private static void write(Path csv, int n) throws IOException {
        byte[] map = Maps.clustered(n, 42);
        try (var out = new BufferedOutputStream(Files.newOutputStream(csv), 1 << 20)) {
            for (int k = 0; k < n; k++) {
                out.write((k + "," + map[k] + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
        }
    }
}
