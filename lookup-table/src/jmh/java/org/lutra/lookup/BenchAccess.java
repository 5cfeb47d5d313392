package org.lutra.lookup;

/**
 * Benchmark-only access to package-private variants (compiled with -Pjmh only): the paged
 * layout of the dense array, kept so that flat and paged are measured side by side in one run.
 */
public final class BenchAccess {
    private BenchAccess() {}

    /** A dense table that never uses the flat layout (the layout before the flat fast path). */
    public static DenseArrayLookupTable pagedDense(long firstKey, long expectedSpan, int partitionCount) {
        return DenseArrayLookupTable.paged(firstKey, expectedSpan, partitionCount);
    }
}
