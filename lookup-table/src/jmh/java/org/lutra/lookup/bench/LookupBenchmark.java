package org.lutra.lookup.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.LookupTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Single-thread random lookups over a table of {@code size} keys. {@code raw} (a bare byte[]) is
 * the baseline every run carries, {@code paged} the dense array forced to its paged layout (the
 * layout before the flat fast path), so that ratios come from one run. Each invocation performs
 * {@link #BATCH} lookups of precomputed random keys (so the random generator is not measured)
 * and the score is lookups per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+UseParallelGC"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class LookupBenchmark {
    static final int BATCH = 1024;

    @Param({"raw", "dense", "paged", "colt", "hash", "compressed"})
    public String kind;

    @Param({"100000000"})
    public int size;

    private LookupTable table;
    private long[] keys;
    private int cursor;

    @Setup(Level.Trial)
    public void setUp() {
        table = Maps.build(kind, Maps.clustered(size, 42));
        var r = new SplittableRandom(7);
        keys = new long[1 << 20];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = r.nextInt(size);
        }
        String layout = table instanceof DenseArrayLookupTable d ? (d.flat() ? ", flat" : ", paged") : "";
        System.out.printf("%n%s: %,d keys, %.3f bytes/key (estimated)%s%n", kind, table.size(), (double) table.estimatedBytes() / table.size(), layout);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int lookup() {
        int from = cursor;
        cursor = (from + BATCH) & (keys.length - 1);
        int sum = 0;
        long[] k = keys;
        LookupTable t = table;
        for (int i = from; i < from + BATCH; i++) {
            sum += t.get(k[i]);
        }
        return sum;
    }
}
