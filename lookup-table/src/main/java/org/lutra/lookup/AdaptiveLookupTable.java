package org.lutra.lookup;

/**
 * A stable handle on a table whose representation may change: what a router holds for each
 * lookup-partitioned table (and shares with its SAME AS tables), since the catalog exists before
 * any key is known.
 *
 * <ul>
 *   <li>{@link #replace} installs a table built elsewhere: the loader fills a table of the kind
 *       {@link LookupTables#choose} picked from the scanned keys, then swaps it in whole.
 *   <li>A write the current representation cannot hold (a key far outside a dense array's span,
 *       a key beyond an int for Colt, a string where only integers fit) first moves every entry
 *       into the general hash map, instead of failing the statement that wrote it: a chooser's
 *       guess from yesterday's keys must not turn today's insert into an error.
 * </ul>
 *
 * <p>For unique tables (one partition a key). Readers read one volatile field and call through; they never block. Writers serialize on a
 * lock (the tables underneath serialize their writers anyway), so a change of representation never
 * loses a concurrent write.
 */
public final class AdaptiveLookupTable implements LookupTable {
    private final Object writeLock = new Object();
    private volatile LookupTable current;
    private volatile String reason;

    public AdaptiveLookupTable(LookupTable initial, String reason) {
        this.current = initial;
        this.reason = reason;
    }

    /** An empty table of the kind the chooser picks when no key is known yet. */
    public static AdaptiveLookupTable empty() {
        var profile = KeyProfile.ofLongRange(0, 0, -1, 0);
        var choice = LookupTables.choose(profile);
        return new AdaptiveLookupTable(LookupTables.create(choice, profile), choice.reason());
    }

    /** The representation in use now. */
    public LookupTable current() {
        return current;
    }

    /** Why the current representation was picked (the chooser's words, or the fallback's). */
    public String reason() {
        return reason;
    }

    /** Installs a complete table; entries of the old one are dropped (the new one is the truth). */
    public void replace(LookupTable table, String why) {
        synchronized (writeLock) {
            reason = why;
            current = table;
        }
    }

    @Override
    public int get(long key) {
        return current.get(key);
    }

    @Override
    public int get(String key) {
        return current.get(key);
    }

    @Override
    public PartitionSet getAll(long key) {
        return current.getAll(key);
    }

    @Override
    public PartitionSet getAll(String key) {
        return current.getAll(key);
    }

    @Override
    public void put(long key, int partition) {
        PartitionSet.checkPartition(partition); // so that an IllegalArgumentException below is about the representation
        synchronized (writeLock) {
            try {
                current.put(key, partition);
            } catch (IllegalArgumentException e) {
                generalize(e).put(key, partition);
            }
        }
    }

    @Override
    public void put(String key, int partition) {
        PartitionSet.checkPartition(partition);
        synchronized (writeLock) {
            try {
                current.put(key, partition);
            } catch (IllegalArgumentException e) {
                generalize(e).put(key, partition);
            }
        }
    }

    @Override
    public boolean remove(long key) {
        synchronized (writeLock) {
            return current.remove(key);
        }
    }

    @Override
    public boolean remove(String key) {
        synchronized (writeLock) {
            return current.remove(key);
        }
    }

    @Override
    public long size() {
        return current.size();
    }

    @Override
    public void forEach(EntryVisitor visitor) {
        current.forEach(visitor);
    }

    @Override
    public long estimatedBytes() {
        return current.estimatedBytes();
    }

    /**
     * Copies every entry into the general hash map and makes it current; caller holds the lock.
     * Readers keep using the old table, which stays complete, until the new one is published.
     */
    private LookupTable generalize(IllegalArgumentException refusal) {
        LookupTable old = current;
        if (old instanceof HashLookupTable || old instanceof MultiLookupTable) {
            throw refusal; // already the general map (or a non-unique table, which this handle does not manage)
        }
        var general = new HashLookupTable(old.size());
        old.forEach(new EntryVisitor() {
            @Override
            public void visit(long key, PartitionSet partitions) {
                general.put(key, partitions.first());
            }

            @Override
            public void visit(String key, PartitionSet partitions) {
                general.put(key, partitions.first());
            }
        });
        reason = "general hash map since " + refusal.getMessage() + " (was " + old.getClass().getSimpleName() + ": " + reason + ")";
        current = general;
        return general;
    }
}
