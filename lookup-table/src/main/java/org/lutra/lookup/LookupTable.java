package org.lutra.lookup;

/**
 * A map from a key to the partition that holds the rows with that key.
 *
 * <p>Keys are {@code long} (every SQL integer type) or {@link String}. Partitions are small
 * non-negative ints (indexes into a table's partition list). A router treats the table as a
 * cache: {@link #MISSING} means "this table has no entry", never "no such row".
 *
 * <p>This is also the one interface readers use for non-unique tables ({@link MultiLookupTable}):
 * {@link #get} gives one partition (the one a read goes to), {@link #getAll} gives every one.
 *
 * <p>Thread-safety: readers never block and never see a torn entry, while writers (inserts,
 * moves, validation) update concurrently. A reader racing a writer sees the old or the new
 * entry; it may see it a little late, which a cache tolerates.
 */
public interface LookupTable {
    /** Returned by the getters when the table has no entry for the key. */
    int MISSING = -1;

    int get(long key);

    int get(String key);

    void put(long key, int partition);

    void put(String key, int partition);

    /** Removes the entry; returns whether there was one. */
    boolean remove(long key);

    boolean remove(String key);

    /** Number of keys with an entry. */
    long size();

    /** Dispatches on the key's class: {@link Long} (or another integral {@link Number}), {@link String} or {@link TextKey}. */
    default int get(Object key) {
        String text = Keys.text(key);
        return text != null ? get(text) : get(Keys.asLong(key));
    }

    default void put(Object key, int partition) {
        String text = Keys.text(key);
        if (text != null) {
            put(text, partition);
        } else {
            put(Keys.asLong(key), partition);
        }
    }

    default boolean remove(Object key) {
        String text = Keys.text(key);
        return text != null ? remove(text) : remove(Keys.asLong(key));
    }

    /** Every partition holding the key; a unique table answers with at most one. */
    default PartitionSet getAll(long key) {
        int p = get(key);
        return p == MISSING ? PartitionSet.EMPTY : PartitionSet.of(p);
    }

    default PartitionSet getAll(String key) {
        int p = get(key);
        return p == MISSING ? PartitionSet.EMPTY : PartitionSet.of(p);
    }

    default PartitionSet getAll(Object key) {
        String text = Keys.text(key);
        return text != null ? getAll(text) : getAll(Keys.asLong(key));
    }

    /**
     * Visits every entry (snapshot semantics are per implementation: entries written during the
     * walk may or may not be seen). Used by snapshots, converters and {@code lookup inspect}.
     */
    default void forEach(EntryVisitor visitor) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot enumerate its entries");
    }

    /** Approximate heap bytes held by the table, or -1 when the implementation cannot tell. */
    default long estimatedBytes() {
        return -1;
    }
}
