package org.lutra.lookup;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A partial lookup table: a cache of recently used keys bounded by entries and/or bytes. A miss
 * means "unknown" (the router falls back to broadcast and learns the entry), never "absent".
 *
 * <p>Eviction is CLOCK (second chance), the usual lock-free-read approximation of LRU: a hit only
 * sets the entry's reference bit (and only if it is clear, so hot entries do not bounce a cache
 * line between cores); the writer that needs room sweeps a hand over a ring of entries, clearing
 * bits and evicting the first entry found clear. Readers never take the lock.
 *
 * <p>Byte accounting is an estimate of the heap an entry costs (map node, entry, boxed key or
 * string, ring slot); it is what the bound is checked against.
 */
public final class PartialLookupTable implements LookupTable {
    private static final int LONG_ENTRY_BYTES = 32 + 32 + 16 + 8;
    private static final int STRING_ENTRY_BYTES = 32 + 32 + 40 + 8;

    private static final class Entry {
        final Object key;
        final int bytes;
        volatile int partition;
        volatile boolean referenced;
        int slot;

        Entry(Object key, int partition, int bytes) {
            this.key = key;
            this.partition = partition;
            this.bytes = bytes;
        }
    }

    private final long maxEntries;
    private final long maxBytes;
    private final ConcurrentHashMap<Object, Entry> entries = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();
    // Guarded by writeLock:
    private Entry[] ring = new Entry[16];
    private int ringUsed;
    private int[] freeSlots = new int[16];
    private int freeCount;
    private int hand;
    private long bytes;
    private volatile long evictions;

    /** @param maxEntries entries kept at most; @param maxBytes estimated heap bytes kept at most */
    public PartialLookupTable(long maxEntries, long maxBytes) {
        if (maxEntries < 1 || maxBytes < STRING_ENTRY_BYTES) {
            throw new IllegalArgumentException("a cache needs room for at least one entry");
        }
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    public static PartialLookupTable ofEntries(long maxEntries) {
        return new PartialLookupTable(maxEntries, Long.MAX_VALUE);
    }

    public static PartialLookupTable ofBytes(long maxBytes) {
        return new PartialLookupTable(Long.MAX_VALUE, maxBytes);
    }

    @Override
    public int get(long key) {
        return hit(entries.get(key));
    }

    @Override
    public int get(String key) {
        return hit(entries.get(key));
    }

    private static int hit(Entry e) {
        if (e == null) {
            return MISSING;
        }
        if (!e.referenced) {
            e.referenced = true;
        }
        return e.partition;
    }

    @Override
    public void put(long key, int partition) {
        store(key, partition, LONG_ENTRY_BYTES);
    }

    @Override
    public void put(String key, int partition) {
        store(key, partition, STRING_ENTRY_BYTES + 2 * key.length());
    }

    private void store(Object key, int partition, int cost) {
        PartitionSet.checkPartition(partition);
        synchronized (writeLock) {
            Entry existing = entries.get(key);
            if (existing != null) {
                existing.partition = partition;
                existing.referenced = true;
                return;
            }
            while (entries.size() > 0 && (entries.size() >= maxEntries || bytes + cost > maxBytes)) {
                evictOne();
            }
            var e = new Entry(key, partition, cost);
            e.slot = takeSlot();
            ring[e.slot] = e;
            bytes += cost;
            entries.put(key, e);
        }
    }

    private int takeSlot() {
        if (freeCount > 0) {
            return freeSlots[--freeCount];
        }
        if (ringUsed == ring.length) {
            ring = Arrays.copyOf(ring, ring.length * 2);
        }
        return ringUsed++;
    }

    /** Advances the CLOCK hand to the first unreferenced entry and evicts it; caller holds the lock. */
    private void evictOne() {
        while (true) {
            if (hand >= ringUsed) {
                hand = 0;
            }
            Entry e = ring[hand];
            if (e != null) {
                if (e.referenced) {
                    e.referenced = false;
                } else {
                    drop(e);
                    evictions = evictions + 1;
                    hand++;
                    return;
                }
            }
            hand++;
        }
    }

    private void drop(Entry e) {
        entries.remove(e.key, e);
        ring[e.slot] = null;
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeSlots.length * 2);
        }
        freeSlots[freeCount++] = e.slot;
        bytes -= e.bytes;
    }

    @Override
    public boolean remove(long key) {
        return drop((Object) key);
    }

    @Override
    public boolean remove(String key) {
        return drop((Object) key);
    }

    private boolean drop(Object key) {
        synchronized (writeLock) {
            Entry e = entries.get(key);
            if (e == null) {
                return false;
            }
            drop(e);
            return true;
        }
    }

    @Override
    public long size() {
        return entries.size();
    }

    public long evictions() {
        return evictions;
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        entries.forEach((k, e) -> {
            if (k instanceof Long l) {
                visitor.visit(l, PartitionSet.of(e.partition));
            } else {
                visitor.visit((String) k, PartitionSet.of(e.partition));
            }
        });
    }

    @Override
    public long estimatedBytes() {
        synchronized (writeLock) {
            return bytes + 4L * ring.length + 4L * freeSlots.length + 64;
        }
    }
}
