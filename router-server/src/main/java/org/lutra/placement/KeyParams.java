package org.lutra.placement;

import org.lutra.protocol.Value;

/** Routing keys back into wire values, for the probes the router sends itself. */
public final class KeyParams {
    private KeyParams() {}

    /** A collated key binds its value: the backend matches every spelling equal to it, as for the client's own. */
    public static Value toValue(Object key) {
        if (key instanceof Long l) return Value.newBuilder().setIntValue(l).build();
        return Value.newBuilder().setStringValue(key instanceof org.lutra.catalog.CollatedKey c ? c.value() : (String) key).build();
    }

    /** A secondary lookup's value as its parameters, one per column ({@link org.lutra.catalog.SecondaryLookup#parts}). */
    public static java.util.List<Value> toValues(Object key) {
        var out = new java.util.ArrayList<Value>();
        for (Object part : org.lutra.catalog.SecondaryLookup.parts(key)) out.add(toValue(part));
        return out;
    }
}
