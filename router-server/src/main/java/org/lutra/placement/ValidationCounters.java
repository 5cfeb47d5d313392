package org.lutra.placement;

import org.lutra.catalog.Partitioning;

/**
 * Where the validation protocol ({@link LookupValidation}) reports what a router's lookup cache got wrong: the router's
 * counters ({@code exec.Stats}) implement it, so that the protocol, below them, counts without knowing them.
 */
public interface ValidationCounters {
    /** A lookup guess was wrong or incomplete; {@code partitions} were asked in addition. */
    void fallback(Partitioning.LookedUp lookup, int[] partitions);

    /** A cache entry was corrected from the key's home row. */
    void learn(Partitioning.LookedUp lookup);
}
