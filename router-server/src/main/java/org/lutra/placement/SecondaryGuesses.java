package org.lutra.placement;

import org.lutra.backend.BackendThreads;
import org.lutra.backend.Backends;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.catalog.TableDef;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartialLookupTable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A router's guesses of where the row of a value of a {@code UNIQUE} secondary lookup lives: value → partition, per lookup,
 * learned from the entries it read ({@link SecondaryEntries#partitions}) and the rows it wrote, and once per lookup from all
 * its entries ({@link #warmOnce}: a value read once in the router's life, as a trade completed once, has no earlier read). A guess is never trusted:
 * a read by the value tries the partition guessed and keeps the answer only when a row of the value came back, which
 * proves the answer complete (docs/placement.md, "Secondary lookups"); otherwise it runs as without a guess. So a guess
 * may be stale, wrong, or left from a lookup dropped and created again: it costs a try, never an answer. Bounded per
 * lookup ({@link PartialLookupTable}: least recently used guesses go first).
 */
public final class SecondaryGuesses {
    /** Guesses kept per lookup at most (about 30 MB for string values). */
    static final long MAX_PER_LOOKUP = 1 << 18;

    private final ConcurrentHashMap<String, LookupTable> byLookup = new ConcurrentHashMap<>();
    private final Set<String> warmed = ConcurrentHashMap.newKeySet();

    /** The partition guessed for {@code key} (normalized as the entries hold it), or -1. */
    public int get(SecondaryLookup lookup, Object key) {
        LookupTable t = byLookup.get(lookup.name());
        if (t == null) return -1;
        int p = t.get(key);
        return p == LookupTable.MISSING ? -1 : p;
    }

    /** How many guesses this router keeps for the lookup named {@code name}. */
    public long size(String name) {
        LookupTable t = byLookup.get(name);
        return t == null ? 0 : t.size();
    }

    /** Guesses {@code partition} for {@code key} from now on. */
    public void learn(SecondaryLookup lookup, Object key, int partition) {
        if (!lookup.unique() || key == null) return;
        byLookup.computeIfAbsent(lookup.name(), n -> PartialLookupTable.ofEntries(MAX_PER_LOOKUP)).put(key, partition);
    }

    /**
     * The first time this router reads by {@code lookup}: its entries on every partition (as many as it keeps) read in the
     * background as guesses, each entry naming where its value's row was when read. Any guess, however old, is checked by
     * the read that tries it; a failure here only leaves guesses unlearned.
     */
    public void warmOnce(Backends backends, TableDef table, SecondaryLookup lookup) {
        if (backends == null || !lookup.unique() || !warmed.add(lookup.name())) return;
        BackendThreads.later(() -> {
            try {
                warm(backends, table, lookup);
            } catch (SQLException | RuntimeException e) {
                System.getLogger(SecondaryGuesses.class.getName()).log(System.Logger.Level.DEBUG,
                        "secondary lookup " + lookup.name() + ": its entries not read as guesses: " + e.getMessage());
            }
        });
    }

    private void warm(Backends backends, TableDef table, SecondaryLookup lookup) throws SQLException {
        int[] homes = table.partitioning().partitions();
        for (int home : homes) {
            var values = new ArrayList<Object[]>();
            var partitions = new ArrayList<Integer>();
            int n = lookup.columns().size();
            try (Connection c = backends.placement(home).borrow();
                 var ps = c.prepareStatement("SELECT " + lookup.valueList() + ", p FROM " + SecondaryEntries.quote(lookup.indexTable()) + " LIMIT ?")) {
                ps.setLong(1, MAX_PER_LOOKUP / homes.length);
                try (var rs = ps.executeQuery()) {
                    while (rs.next()) {
                        var value = new Object[n];
                        for (int i = 0; i < n; i++) value[i] = rs.getObject(i + 1);
                        values.add(value);
                        partitions.add(rs.getInt(n + 1));
                    }
                }
            }
            for (int from = 0; from < values.size(); from += 1000) {
                List<Object[]> some = values.subList(from, Math.min(values.size(), from + 1000));
                Object[] keys = lookup.keys(table, some.toArray(new Object[0][])); // a collation's weights: one round trip per column at most
                for (int i = 0; i < keys.length; i++) {
                    if (get(lookup, keys[i]) < 0) learn(lookup, keys[i], partitions.get(from + i)); // not over a newer guess
                }
            }
        }
    }
}
