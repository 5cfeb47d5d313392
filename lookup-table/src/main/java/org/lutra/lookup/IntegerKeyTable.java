package org.lutra.lookup;

/**
 * A lookup table for integer keys only (the dense array, Colt and compressed tables): it never
 * holds a String key, so looking one up finds nothing, removing one removes nothing, and storing
 * one is refused. Loaders test for this type to reject a string key before writing anything.
 */
public interface IntegerKeyTable extends LookupTable {
    @Override
    default int get(String key) {
        return MISSING;
    }

    @Override
    default void put(String key, int partition) {
        throw new IllegalArgumentException(getClass().getSimpleName() + " holds integer keys only, not the string '" + key + "'");
    }

    @Override
    default boolean remove(String key) {
        return false;
    }
}
