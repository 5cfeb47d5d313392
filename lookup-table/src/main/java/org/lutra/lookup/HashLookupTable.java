package org.lutra.lookup;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The general lookup table: any mix of long and String keys in a {@link ConcurrentHashMap}.
 * Reads are lock-free. It boxes every key, so it is the fallback, not the choice for large
 * integer-keyed tables.
 */
public final class HashLookupTable implements LookupTable {
    private final ConcurrentHashMap<Object, Integer> entries = new ConcurrentHashMap<>();

    @Override
    public int get(long key) {
        return orMissing(entries.get(key));
    }

    @Override
    public int get(String key) {
        return orMissing(entries.get(key));
    }

    @Override
    public void put(long key, int partition) {
        entries.put(key, checked(partition));
    }

    @Override
    public void put(String key, int partition) {
        entries.put(key, checked(partition));
    }

    @Override
    public boolean remove(long key) {
        return entries.remove(key) != null;
    }

    @Override
    public boolean remove(String key) {
        return entries.remove(key) != null;
    }

    @Override
    public long size() {
        return entries.size();
    }

    private static int orMissing(Integer partition) {
        return partition == null ? MISSING : partition;
    }

    private static int checked(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + partition);
        }
        return partition;
    }
}
