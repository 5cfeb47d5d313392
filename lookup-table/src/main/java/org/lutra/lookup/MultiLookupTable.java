package org.lutra.lookup;

/**
 * A non-unique table: a key maps to a set of partitions. Two uses share it: tuples replicated on
 * several partitions (reads go to {@link #get}, the first replica; writes go to all of
 * {@link #getAll}), and secondary lookups on non-unique columns (every partition holding a row
 * with the value).
 *
 * <p>{@link #put(long, int)} replaces the whole set with one partition, so the unique-table
 * contract still holds for callers that know only {@link LookupTable}.
 */
public interface MultiLookupTable extends LookupTable {
    @Override
    PartitionSet getAll(long key);

    @Override
    PartitionSet getAll(String key);

    /** Adds a partition to the key's set (creating the entry). */
    void add(long key, int partition);

    void add(String key, int partition);

    /** Removes one partition from the key's set; the entry disappears with its last partition. */
    boolean removePartition(long key, int partition);

    boolean removePartition(String key, int partition);

    /** Replaces the key's set; an empty set removes the entry. */
    void putAll(long key, PartitionSet partitions);

    void putAll(String key, PartitionSet partitions);

    default void add(Object key, int partition) {
        String text = Keys.text(key);
        if (text != null) {
            add(text, partition);
        } else {
            add(Keys.asLong(key), partition);
        }
    }

    default void putAll(Object key, PartitionSet partitions) {
        String text = Keys.text(key);
        if (text != null) {
            putAll(text, partitions);
        } else {
            putAll(Keys.asLong(key), partitions);
        }
    }
}
