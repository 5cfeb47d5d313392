package org.lutra.trace;

import java.util.List;
import java.util.Map;

/**
 * A whole trace, read by {@link TraceReader#readAll}.
 *
 * @param sameAs       a SAME AS table's lower-case name → its owner's, from the {@code @same-as} lines
 * @param transactions the transaction lines, in file order
 */
public record Trace(Map<String, String> sameAs, List<TraceLine> transactions) {
    public Trace {
        sameAs = Map.copyOf(sameAs);
        transactions = List.copyOf(transactions);
    }
}
