package org.lutra.exec;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one lookup table (an owner table's, shared with its SAME AS tables) did for the statements
 * routed through it since the router started. LongAdders: every routed key counts here, from every
 * session at once, and a sum is only read by SHOW LOOKUP TABLES.
 */
public final class LookupCounters {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder broadcasts = new LongAdder();
    final LongAdder fallbacks = new LongAdder();
    final LongAdder learned = new LongAdder();
    final LongAdder logApplied = new LongAdder();

    /** Routing keys the table had an entry for. */
    public long hits() {
        return hits.sum();
    }

    /** Routing keys it had no entry for: sent where DEFAULT NEW places a new key. */
    public long misses() {
        return misses.sum();
    }

    /** Statements on its tables that went to every partition because no key pinned them. */
    public long broadcasts() {
        return broadcasts.sum();
    }

    /** Statements whose guess from the table was wrong or incomplete, so other partitions were asked. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    /** Entries written from what a fallback found. */
    public long learned() {
        return learned.sum();
    }

    /** Entries of other routers' placement changes taken from the change log (PlacementLog). */
    public long logApplied() {
        return logApplied.sum();
    }

    /** One change-log entry applied to the table. */
    public void applied() {
        logApplied.increment();
    }
}
