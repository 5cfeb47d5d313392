package org.lutra.lookup;

import cern.colt.map.HashFunctions;
import cern.colt.map.OpenIntIntHashMap;
import cern.colt.map.PrimeFinder;
import java.util.concurrent.locks.StampedLock;

/**
 * Sparse int keys in Colt's {@link OpenIntIntHashMap} (the thesis's IntLookupTable): 9 bytes a
 * slot, no boxing. Keys must fit an int; String keys are not supported.
 *
 * <p>Colt is not safe for unlocked readers, so reads are optimistic: a reader takes a
 * {@link StampedLock} stamp (one volatile read), probes the map's arrays with a bounded loop,
 * and validates the stamp. Only if a writer ran meanwhile does it retry under the read lock. The
 * bounded probe matters: a reader racing a rehash may see arrays from two generations, and the
 * result is then discarded by the validation, but it must not loop forever first.
 *
 * <p>Speed. Colt keeps a slot's state, key and value in three parallel arrays, so its own
 * {@code get} touches three cache lines per probe of a large map; random lookups are bound by
 * those misses. The reader here checks the key's home slot first and reads the state array only
 * when that slot does not hold the key, which is sound because {@link ReadableMap#removeKey}
 * overwrites a removed slot's key (Colt never reads keys of removed slots) and free slots hold 0
 * (key 0 always takes the full probe). Pre-sizing for Colt's maximum load factor (0.5) keeps a
 * bulk load from rehashing into a table three times the keys. See docs/benchmarks-router.md.
 */
public final class ColtLookupTable implements IntegerKeyTable {
    private final StampedLock lock = new StampedLock();
    private final ReadableMap map;

    public ColtLookupTable() {
        this(1000);
    }

    /** Sized so that {@code expectedSize} keys fit under Colt's maximum load factor without a rehash. */
    public ColtLookupTable(int expectedSize) {
        map = new ReadableMap(capacityFor(expectedSize));
    }

    private static int capacityFor(long expectedSize) {
        return (int) Math.min(Integer.MAX_VALUE - 1, Math.max(expectedSize, 16) * 2L + 1);
    }

    /** Heap bytes of a table pre-sized for {@code keys}: Colt rounds the capacity up to a prime of its table. */
    static long bytesFor(long keys) {
        return bytesOfCapacity(PrimeFinder.nextPrime(capacityFor(keys)));
    }

    /** Three arrays (int keys, int values, byte states) of {@code capacity} slots, plus the objects around them. */
    private static long bytesOfCapacity(long capacity) {
        return 112 + 9 * capacity;
    }

    @Override
    public int get(long key) {
        if (!Keys.fitsInt(key)) {
            return MISSING;
        }
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            int partition = map.probe((int) key);
            if (lock.validate(stamp)) {
                return partition;
            }
        }
        stamp = lock.readLock();
        try {
            return map.probe((int) key);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition);
        if (!Keys.fitsInt(key)) {
            throw new IllegalArgumentException("the Colt table holds int keys only, not " + key);
        }
        long stamp = lock.writeLock();
        try {
            map.put((int) key, partition);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public boolean remove(long key) {
        if (!Keys.fitsInt(key)) {
            return false;
        }
        long stamp = lock.writeLock();
        try {
            return map.removeKey((int) key);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public long size() {
        return map.size(); // one int field: never torn, at worst a moment stale
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        // Under the read lock: a walk is a maintenance job, it may hold writers back briefly.
        long stamp = lock.readLock();
        try {
            map.forEachPair((k, v) -> {
                visitor.visit(k, PartitionSet.of(v));
                return true;
            });
        } finally {
            lock.unlockRead(stamp);
        }
    }

    @Override
    public long estimatedBytes() {
        return bytesOfCapacity(map.capacityNow());
    }

    /** Exposes Colt's arrays to a probe that tolerates concurrent modification. */
    private static final class ReadableMap extends OpenIntIntHashMap {
        ReadableMap(int capacity) {
            super(capacity);
        }

        int capacityNow() {
            return table.length;
        }

        /**
         * Colt's own {@code indexOfKey} (double hashing; state FREE=0, FULL=1, REMOVED=2) on
         * locals, giving up after {@code length} steps or on arrays of different generations.
         * The home slot is tried before any state is read: a slot holding a non-zero key whose
         * home it is, is FULL (free slots hold 0; removed slots hold a key homed elsewhere).
         */
        int probe(int key) {
            int[] tab = table;
            int[] vals = values;
            byte[] stat = state;
            int length = tab.length;
            if (vals.length != length || stat.length != length) {
                return MISSING; // torn view of a rehash; validation will fail
            }
            int hash = HashFunctions.hash(key) & 0x7FFFFFFF;
            int i = hash % length;
            if (tab[i] == key && key != 0) {
                return vals[i];
            }
            int decrement = hash % (length - 2);
            if (decrement == 0) {
                decrement = 1;
            }
            for (int steps = 0; steps < length; steps++) {
                byte s = stat[i];
                if (s == FREE) {
                    return MISSING;
                }
                if (s == FULL && tab[i] == key) {
                    return vals[i];
                }
                i -= decrement;
                if (i < 0) {
                    i += length;
                }
            }
            return MISSING;
        }

        /**
         * Colt's removal marks the slot REMOVED and leaves its key; this also overwrites the key
         * with one whose home slot is another, so that {@link #probe}'s home-slot test cannot
         * match a removed entry. Colt itself compares keys of FULL slots only. Caller holds the write lock.
         */
        @Override
        public boolean removeKey(int key) {
            int[] tab = table;
            int i = indexOfKey(key);
            if (i < 0) {
                return false;
            }
            super.removeKey(key);
            if (table == tab) { // no shrinking rehash (which keeps FULL slots only)
                tab[i] = keyHomedElsewhere(i, tab.length);
            }
            return true;
        }

        private static int keyHomedElsewhere(int slot, int length) {
            int k = slot + 1;
            while (length > 1 && (HashFunctions.hash(k) & 0x7FFFFFFF) % length == slot) {
                k++;
            }
            return k;
        }
    }
}
