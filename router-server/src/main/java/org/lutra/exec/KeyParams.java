package org.lutra.exec;

import org.lutra.protocol.Value;

/** Routing keys back into wire values, for the probes the router sends itself. */
final class KeyParams {
    private KeyParams() {}

    static Value toValue(Object key) {
        return key instanceof Long l ? Value.newBuilder().setIntValue(l).build() : Value.newBuilder().setStringValue((String) key).build();
    }
}
