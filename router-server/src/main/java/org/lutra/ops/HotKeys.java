package org.lutra.ops;

import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.ItemsSketch;
import org.lutra.catalog.Partitioning;
import org.lutra.exec.RouterMetrics.HotKey;
import org.lutra.lookup.LookupTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hottest routing keys of every lookup table over a sliding window: DataSketches' frequent-items
 * sketch (Misra-Gries with error bounds) per table, in bounded memory however many distinct keys
 * pass. A sketch is not thread-safe, so each table has a few stripes, a session thread updating
 * the one its thread id picks under that stripe's monitor (uncontended for a few sessions per
 * stripe); a reading merges them. Every {@link #rotate} starts a new window: the answer covers the
 * current window and the one before it, so between one and two windows of traffic.
 */
final class HotKeys {
    /** Items a sketch tracks before it purges: its error is at most 3.5 / this of the routings it saw. */
    static final int MAP_SIZE = 1024;
    private static final int STRIPES = 8;

    private final int top;
    /** By the shared lookup table itself (identity): an owner table and its SAME AS tables count together. */
    private final ConcurrentHashMap<LookupTable, Table> tables = new ConcurrentHashMap<>();

    /** @param top how many keys {@link #top} returns per table (0: none is counted) */
    HotKeys(int top) {
        this.top = top;
    }

    private static final class Table {
        final String name;
        volatile ItemsSketch<Object>[] stripes = fresh();
        /** The previous window's stripes merged; null before the first rotation. */
        volatile ItemsSketch<Object> previous;

        Table(String name) {
            this.name = name;
        }

        @SuppressWarnings("unchecked")
        static ItemsSketch<Object>[] fresh() {
            var stripes = (ItemsSketch<Object>[]) new ItemsSketch<?>[STRIPES];
            for (int i = 0; i < STRIPES; i++) stripes[i] = new ItemsSketch<>(MAP_SIZE);
            return stripes;
        }

        ItemsSketch<Object> merged(ItemsSketch<Object>[] of, ItemsSketch<Object> with) {
            var all = new ItemsSketch<Object>(MAP_SIZE);
            for (var s : of) {
                synchronized (s) {
                    all.merge(s);
                }
            }
            if (with != null) all.merge(with);
            return all;
        }
    }

    /** Counts one routing of {@code key} through {@code lookup}'s table. */
    void record(Partitioning.LookedUp lookup, Object key) {
        if (top == 0 || key == null) return;
        var table = tables.get(lookup.table()); // the hot path: a plain read, no lock
        if (table == null) table = tables.computeIfAbsent(lookup.table(), t -> new Table(lookup.owner()));
        var stripe = table.stripes[(int) (Thread.currentThread().threadId() & (STRIPES - 1))];
        synchronized (stripe) {
            stripe.update(key);
        }
    }

    /** Starts a new window: what the current one counted becomes the previous window, the one before it is forgotten. */
    void rotate() {
        for (var t : tables.values()) {
            var ended = t.stripes;
            t.stripes = Table.fresh();
            t.previous = t.merged(ended, null);
        }
    }

    /** Per lookup table (by name), its hottest keys, hottest first, at most {@code top} each. */
    List<HotKey> top() {
        var out = new ArrayList<HotKey>();
        var sorted = new ArrayList<>(tables.values());
        sorted.sort(Comparator.comparing(t -> t.name));
        for (var t : sorted) {
            var sketch = t.merged(t.stripes, t.previous);
            if (sketch.isEmpty()) continue;
            var rows = sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES);
            Arrays.sort(rows, Comparator.comparingLong(ItemsSketch.Row<Object>::getEstimate).reversed()
                    .thenComparing(r -> String.valueOf(r.getItem())));
            for (int i = 0; i < rows.length && i < top; i++) {
                var r = rows[i];
                out.add(new HotKey(t.name, i + 1, String.valueOf(r.getItem()), r.getEstimate(), r.getLowerBound(), r.getUpperBound()));
            }
        }
        return out;
    }

    int size() {
        return top;
    }
}
