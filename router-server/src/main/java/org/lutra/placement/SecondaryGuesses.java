package org.lutra.placement;

import org.lutra.catalog.SecondaryLookup;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartialLookupTable;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A router's guesses of where the row of a value of a {@code UNIQUE} secondary lookup lives: value → partition, per lookup,
 * learned from the entries it read ({@link SecondaryEntries#partitions}) and the rows it wrote. A guess is never trusted:
 * a read by the value tries the partition guessed and keeps the answer only when a row of the value came back, which
 * proves the answer complete (docs/placement.md, "Secondary lookups"); otherwise it runs as without a guess. So a guess
 * may be stale, wrong, or left from a lookup dropped and created again: it costs a try, never an answer. Bounded per
 * lookup ({@link PartialLookupTable}: least recently used guesses go first).
 */
public final class SecondaryGuesses {
    /** Guesses kept per lookup at most (about 30 MB for string values). */
    static final long MAX_PER_LOOKUP = 1 << 18;

    private final ConcurrentHashMap<String, LookupTable> byLookup = new ConcurrentHashMap<>();

    /** The partition guessed for {@code key} (normalized as the entries hold it), or -1. */
    public int get(SecondaryLookup lookup, Object key) {
        LookupTable t = byLookup.get(lookup.name());
        if (t == null) return -1;
        int p = t.get(key);
        return p == LookupTable.MISSING ? -1 : p;
    }

    /** Guesses {@code partition} for {@code key} from now on. */
    public void learn(SecondaryLookup lookup, Object key, int partition) {
        if (!lookup.unique() || key == null) return;
        byLookup.computeIfAbsent(lookup.name(), n -> PartialLookupTable.ofEntries(MAX_PER_LOOKUP)).put(key, partition);
    }
}
