package org.lutra.catalog;

import org.lutra.lookup.LookupTable;

import java.util.List;

/**
 * How a table's rows are spread over partitions: the routing functions of the paper's DDL.
 * Every variant knows its partitions (catalog ids, in the order of the ON list).
 */
public sealed interface Partitioning {
    /** Result of {@link #locate} and {@link #placeNew} when no partition qualifies. */
    int NONE = -1;

    int[] partitions();

    /** The routing column, or null for replicated tables. */
    String column();

    /**
     * The partition that holds rows with {@code key}, or {@link #NONE}. For hash and range this is
     * exact. For lookups it is the cached entry, else where a new key would have been placed:
     * callers must validate (see {@link #needsValidation}).
     */
    int locate(Object key);

    /** Where a new row with {@code key} goes, or {@link #NONE} if no partition accepts it. */
    int placeNew(Object key);

    /** True when {@link #locate} is a guess that a broadcast may have to correct (lookup tables are caches). */
    default boolean needsValidation() {
        return false;
    }

    /** {@code PARTITION BY hash(col) ON (p0, p1, ...)}. */
    record Hashed(String column, int[] partitions) implements Partitioning {
        @Override
        public int locate(Object key) {
            return partitions[KeyValues.bucket(key, partitions.length)];
        }

        @Override
        public int placeNew(Object key) {
            return locate(key);
        }
    }

    /**
     * {@code PARTITION BY range(col) ON (p0 < 'H', p1 < 'P', p2)}: a row goes to the first partition
     * whose upper bound is above its key; a null bound means "everything else".
     */
    record Ranged(String column, int[] partitions, List<Object> upperBounds) implements Partitioning {
        @Override
        public int locate(Object key) {
            for (int i = 0; i < partitions.length; i++) {
                Object bound = upperBounds.get(i);
                if (bound == null || KeyValues.compare(key, bound) < 0) {
                    return partitions[i];
                }
            }
            return NONE;
        }

        @Override
        public int placeNew(Object key) {
            return locate(key);
        }
    }

    /**
     * {@code PARTITION BY lookup(col) ON (...) DEFAULT NEW ON hash(col)}, or {@code SAME AS owner}:
     * the {@code table} maps keys to partitions and is shared with every SAME AS table.
     *
     * @param owner  the table whose key column fills the lookup table (this table, unless SAME AS)
     * @param unique whether {@code column} is unique in this table, which lets validation count rows
     */
    record LookedUp(String column, int[] partitions, LookupTable table, String owner, String ownerColumn, boolean unique)
            implements Partitioning {
        @Override
        public int locate(Object key) {
            int cached = table.get(key);
            return cached != LookupTable.MISSING ? cached : placeNew(key);
        }

        /** The DEFAULT NEW rule: hash over the ON list. Every router places a new key the same way. */
        @Override
        public int placeNew(Object key) {
            return partitions[KeyValues.bucket(key, partitions.length)];
        }

        @Override
        public boolean needsValidation() {
            return true;
        }
    }

    /** {@code REPLICATED ON (...)}: every partition holds every row. */
    record Replicated(int[] partitions) implements Partitioning {
        @Override
        public String column() {
            return null;
        }

        @Override
        public int locate(Object key) {
            return partitions[0];
        }

        @Override
        public int placeNew(Object key) {
            return NONE;
        }
    }
}
