package org.lutra.lookup;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The general lookup table (the thesis's BasicLookupTable): any mix of long and String keys.
 * Long keys live in a primitive open-addressing map ({@link ConcurrentLongIntMap}, 12 bytes a
 * slot, no boxing); String keys in a {@link ConcurrentHashMap}. Reads are lock-free in both.
 */
public final class HashLookupTable implements LookupTable {
    private final ConcurrentLongIntMap longs;
    private final ConcurrentHashMap<String, Integer> strings = new ConcurrentHashMap<>();

    public HashLookupTable() {
        this(0);
    }

    /** Pre-sizes the long-key part so that a bulk load does not rehash. */
    public HashLookupTable(long expectedLongKeys) {
        longs = new ConcurrentLongIntMap(expectedLongKeys);
    }

    @Override
    public int get(long key) {
        return longs.get(key);
    }

    @Override
    public int get(String key) {
        Integer partition = strings.get(key);
        return partition == null ? MISSING : partition;
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition);
        longs.put(key, partition);
    }

    @Override
    public void put(String key, int partition) {
        PartitionSet.checkPartition(partition);
        strings.put(key, partition); // Integer.valueOf caches small ids: no allocation below 128
    }

    @Override
    public boolean remove(long key) {
        return longs.remove(key) != MISSING;
    }

    @Override
    public boolean remove(String key) {
        return strings.remove(key) != null;
    }

    @Override
    public long size() {
        return longs.size() + strings.size();
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        longs.forEach((k, v) -> visitor.visit(k, PartitionSet.of(v)));
        strings.forEach((k, v) -> visitor.visit(k, PartitionSet.of(v)));
    }

    @Override
    public long estimatedBytes() {
        // ConcurrentHashMap node 32 + table slot ~8 + String ~(40 + length); 56 + 24 assumed per key.
        return longs.estimatedBytes() + strings.size() * 104L;
    }
}
