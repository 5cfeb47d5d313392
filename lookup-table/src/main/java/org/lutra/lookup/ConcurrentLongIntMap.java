package org.lutra.lookup;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An open-addressing long→int map with lock-free readers and serialized writers, storing keys
 * and values in two primitive arrays (12 bytes a slot, nothing boxed).
 *
 * <p>Invariants that make unlocked reads safe:
 * <ul>
 *   <li>A slot's key, once set, never changes until the arrays are replaced by a rehash. Removal
 *       writes {@link LookupTable#MISSING} into the value and leaves the key as a tombstone, so
 *       probe chains never break under a reader.
 *   <li>A new entry's value is written before its key is published with release semantics; a
 *       reader that sees the key (acquire) therefore sees that value or a later one. Values are
 *       ints, so a reader never sees half of one.
 *   <li>A rehash builds fresh arrays and publishes them through one volatile field; a reader keeps
 *       using the arrays it loaded, which stay internally consistent.
 * </ul>
 * Key {@code 0} marks a free slot, so the entry for key 0 lives in its own field.
 */
final class ConcurrentLongIntMap {
    private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(int[].class);
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final int MIN_BITS = 4;
    private static final int MAX_BITS = 30;

    /** One generation of the arrays; immutable shape, mutable contents. */
    private static final class Slots {
        final long[] keys;
        final int[] values;
        final int mask;
        final int shift;
        /** Occupied slots (live or tombstone) allowed before a rehash: 3/4 load. */
        final int threshold;

        Slots(int bits) {
            int capacity = 1 << bits;
            keys = new long[capacity];
            values = new int[capacity];
            mask = capacity - 1;
            shift = 64 - bits;
            threshold = capacity - (capacity >>> 2);
        }

        int home(long key) {
            return (int) ((key * GOLDEN) >>> shift);
        }
    }

    private volatile Slots slots;
    private volatile int zeroKeyValue = LookupTable.MISSING;
    private volatile long size;
    /** Slots holding a key, tombstones included; guarded by {@code this}. */
    private int occupied;

    ConcurrentLongIntMap() {
        this(0);
    }

    ConcurrentLongIntMap(long expectedSize) {
        slots = new Slots(bitsFor(expectedSize));
    }

    /** Heap bytes of a map pre-sized for {@code entries} (as {@link #ConcurrentLongIntMap(long)} sizes it). */
    static long bytesFor(long entries) {
        return bytesOfCapacity(1L << neededBits(entries));
    }

    /** Two arrays (long keys, int values) of {@code capacity} slots, plus the objects around them. */
    private static long bytesOfCapacity(long capacity) {
        return 96 + 12 * capacity;
    }

    private static int neededBits(long entries) {
        long needed = Math.max(16, entries + entries / 3 + 1);
        return Math.max(MIN_BITS, 64 - Long.numberOfLeadingZeros(needed - 1));
    }

    private static int bitsFor(long entries) {
        int bits = neededBits(entries);
        if (bits > MAX_BITS) {
            throw new IllegalStateException("a hash table of " + entries + " long keys exceeds 2^30 slots; use a dense array or shard the table");
        }
        return bits;
    }

    int get(long key) {
        if (key == 0) {
            return zeroKeyValue;
        }
        Slots s = slots;
        long[] keys = s.keys;
        int i = s.home(key);
        while (true) {
            long k = (long) KEYS.getAcquire(keys, i);
            if (k == key) {
                return (int) VALUES.getOpaque(s.values, i);
            }
            if (k == 0) {
                return LookupTable.MISSING;
            }
            i = (i + 1) & s.mask;
        }
    }

    /** Stores the value; returns the previous one or MISSING. {@code value} may be MISSING (= remove). */
    synchronized int put(long key, int value) {
        if (key == 0) {
            int old = zeroKeyValue;
            zeroKeyValue = value;
            adjustSize(old, value);
            return old;
        }
        Slots s = slots;
        int i = s.home(key);
        while (true) {
            long k = s.keys[i];
            if (k == key) {
                int old = s.values[i];
                VALUES.setRelease(s.values, i, value);
                adjustSize(old, value);
                return old;
            }
            if (k == 0) {
                break;
            }
            i = (i + 1) & s.mask;
        }
        if (value == LookupTable.MISSING) {
            return LookupTable.MISSING; // removing an absent key: no tombstone needed
        }
        if (occupied + 1 > s.threshold) {
            s = rehash(s);
            i = s.home(key);
            while (s.keys[i] != 0) {
                i = (i + 1) & s.mask;
            }
        }
        s.values[i] = value;
        KEYS.setRelease(s.keys, i, key); // publishes the value written just above
        occupied++;
        size = size + 1;
        return LookupTable.MISSING;
    }

    int remove(long key) {
        return put(key, LookupTable.MISSING);
    }

    private void adjustSize(int old, int value) {
        if (old == LookupTable.MISSING && value != LookupTable.MISSING) {
            size = size + 1;
        } else if (old != LookupTable.MISSING && value == LookupTable.MISSING) {
            size = size - 1;
        }
    }

    /** Copies live entries (dropping tombstones) into arrays sized for twice the live count. */
    private Slots rehash(Slots old) {
        long live = size - (zeroKeyValue == LookupTable.MISSING ? 0 : 1);
        Slots fresh = new Slots(bitsFor(Math.max(live * 2, 16)));
        int count = 0;
        for (int j = 0; j < old.keys.length; j++) {
            long k = old.keys[j];
            int v = old.values[j];
            if (k != 0 && v != LookupTable.MISSING) {
                int i = fresh.home(k);
                while (fresh.keys[i] != 0) {
                    i = (i + 1) & fresh.mask;
                }
                fresh.keys[i] = k;
                fresh.values[i] = v;
                count++;
            }
        }
        occupied = count;
        slots = fresh; // volatile write: the filled arrays become visible together
        return fresh;
    }

    long size() {
        return size;
    }

    /** Visits live entries of the current generation. */
    void forEach(LongIntConsumer consumer) {
        int zero = zeroKeyValue;
        if (zero != LookupTable.MISSING) {
            consumer.accept(0, zero);
        }
        Slots s = slots;
        for (int j = 0; j < s.keys.length; j++) {
            long k = (long) KEYS.getAcquire(s.keys, j);
            if (k != 0) {
                int v = (int) VALUES.getOpaque(s.values, j);
                if (v != LookupTable.MISSING) {
                    consumer.accept(k, v);
                }
            }
        }
    }

    long estimatedBytes() {
        return bytesOfCapacity(slots.keys.length);
    }

    @FunctionalInterface
    interface LongIntConsumer {
        void accept(long key, int value);
    }
}
