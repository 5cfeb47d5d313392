package org.lutra.lookup;

/** Key conversions shared by the implementations. */
public final class Keys {
    private Keys() {}

    static long asLong(Object key) {
        if (key instanceof Long l) {
            return l;
        }
        if (key instanceof Integer || key instanceof Short || key instanceof Byte) {
            return ((Number) key).longValue();
        }
        throw new IllegalArgumentException("lookup keys are long or String, not " + (key == null ? "null" : key.getClass().getName()));
    }
}
