package org.lutra.lookup;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link MultiLookupTable} built on any unique table: keys on one partition (the common case)
 * live in the unique table at its usual cost; keys on several hold a marker partition there and
 * their set in a side map. A lookup of a single-partition key is one lookup in the unique table.
 *
 * <p>Writers serialize on a lock and order their steps so that unlocked readers stay right:
 * going multi, the side map is filled before the marker is written; going single or absent, the
 * unique table is written before the side entry is dropped. A reader that sees the marker but
 * finds no side entry has raced a writer going the other way and re-reads the unique table.
 */
public final class ReplicatedLookupTable implements MultiLookupTable {
    /** Default marker: a partition id no real table uses, far above any width-saving threshold. */
    public static final int DEFAULT_MARKER = Integer.MAX_VALUE - 1;

    private final LookupTable primary;
    private final int marker;
    private final ConcurrentHashMap<Object, PartitionSet> replicated = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();

    public ReplicatedLookupTable(LookupTable primary) {
        this(primary, DEFAULT_MARKER);
    }

    /**
     * @param marker a partition id never used for real, stored in {@code primary} for keys with
     *               several partitions; with a dense array pick the partition count, so the cells stay narrow
     */
    public ReplicatedLookupTable(LookupTable primary, int marker) {
        this.primary = primary;
        this.marker = marker;
    }

    @Override
    public int get(long key) {
        int p = primary.get(key);
        return p != marker ? p : getAll(key).first(); // a single-partition key: one lookup, as in the unique table
    }

    @Override
    public int get(String key) {
        int p = primary.get(key);
        return p != marker ? p : getAll(key).first();
    }

    @Override
    public PartitionSet getAll(long key) {
        while (true) {
            int p = primary.get(key);
            if (p != marker) {
                return p == MISSING ? PartitionSet.EMPTY : PartitionSet.of(p);
            }
            PartitionSet set = replicated.get(key);
            if (set != null) {
                return set;
            }
        }
    }

    @Override
    public PartitionSet getAll(String key) {
        while (true) {
            int p = primary.get(key);
            if (p != marker) {
                return p == MISSING ? PartitionSet.EMPTY : PartitionSet.of(p);
            }
            PartitionSet set = replicated.get(key);
            if (set != null) {
                return set;
            }
        }
    }

    @Override
    public void put(long key, int partition) {
        putAll(key, PartitionSet.of(partition));
    }

    @Override
    public void put(String key, int partition) {
        putAll(key, PartitionSet.of(partition));
    }

    @Override
    public void add(long key, int partition) {
        synchronized (writeLock) {
            putAll(key, getAll(key).with(partition));
        }
    }

    @Override
    public void add(String key, int partition) {
        synchronized (writeLock) {
            putAll(key, getAll(key).with(partition));
        }
    }

    @Override
    public boolean removePartition(long key, int partition) {
        synchronized (writeLock) {
            PartitionSet before = getAll(key);
            putAll(key, before.without(partition));
            return before.contains(partition);
        }
    }

    @Override
    public boolean removePartition(String key, int partition) {
        synchronized (writeLock) {
            PartitionSet before = getAll(key);
            putAll(key, before.without(partition));
            return before.contains(partition);
        }
    }

    @Override
    public void putAll(long key, PartitionSet partitions) {
        store(key, partitions);
    }

    @Override
    public void putAll(String key, PartitionSet partitions) {
        store(key, partitions);
    }

    @Override
    public boolean remove(long key) {
        synchronized (writeLock) {
            boolean had = primary.remove(key);
            replicated.remove(key);
            return had;
        }
    }

    @Override
    public boolean remove(String key) {
        synchronized (writeLock) {
            boolean had = primary.remove(key);
            replicated.remove(key);
            return had;
        }
    }

    /** The ordered write protocol described on the class; {@code key} is a Long or a String. */
    private void store(Object key, PartitionSet partitions) {
        for (int i = 0; i < partitions.size(); i++) {
            if (partitions.get(i) == marker) {
                throw new IllegalArgumentException("partition " + marker + " is this table's replication marker");
            }
        }
        synchronized (writeLock) {
            if (partitions.isEmpty()) {
                primary.remove(key);
                replicated.remove(key);
            } else if (partitions.size() == 1) {
                primary.put(key, partitions.first());
                replicated.remove(key);
            } else {
                replicated.put(key, partitions);
                primary.put(key, marker);
            }
        }
    }

    @Override
    public long size() {
        return primary.size();
    }

    /** Keys held by more than one partition. */
    public long replicatedKeys() {
        return replicated.size();
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        primary.forEach(new EntryVisitor() {
            @Override
            public void visit(long key, PartitionSet partitions) {
                visitor.visit(key, partitions.first() == marker ? getAll(key) : partitions);
            }

            @Override
            public void visit(String key, PartitionSet partitions) {
                visitor.visit(key, partitions.first() == marker ? getAll(key) : partitions);
            }
        });
    }

    @Override
    public long estimatedBytes() {
        return primary.estimatedBytes() + replicated.size() * 120L;
    }
}
