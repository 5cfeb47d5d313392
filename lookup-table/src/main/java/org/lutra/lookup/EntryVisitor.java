package org.lutra.lookup;

/**
 * Receives the entries of a table in {@link LookupTable#forEach}. Unique tables pass cached
 * singleton sets, so walking a large table allocates nothing per entry.
 */
public interface EntryVisitor {
    void visit(long key, PartitionSet partitions);

    void visit(String key, PartitionSet partitions);
}
