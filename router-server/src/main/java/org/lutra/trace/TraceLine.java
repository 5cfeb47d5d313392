package org.lutra.trace;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One transaction of a trace ({@code docs/traces.md}): its type and parameters, as a benchmark
 * ran it, and the rows it touched.
 *
 * @param type     a transaction type ({@code [A-Za-z0-9_.-]+}), or {@link #UNTYPED}
 * @param params   its parameters as text, in order; null for SQL NULL
 * @param accesses the rows it touched
 */
public record TraceLine(String type, List<String> params, List<Access> accesses) {
    /** The type of a transaction recorded without one (the router's): it can be partitioned, not replayed. */
    public static final String UNTYPED = "-";
    static final Pattern TYPE = Pattern.compile("[A-Za-z0-9_.-]+");

    public TraceLine {
        Objects.requireNonNull(type, "type");
        if (!TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("a transaction type is letters, digits, '_', '.' and '-' (or '-' alone): '" + type + "'");
        }
        params = Collections.unmodifiableList(new java.util.ArrayList<>(params)); // List.copyOf refuses the nulls of SQL NULL
        accesses = List.copyOf(accesses);
    }

    /** A line of the router's: no type, no parameters. */
    public static TraceLine untyped(List<Access> accesses) {
        return new TraceLine(UNTYPED, List.of(), accesses);
    }

    public boolean typed() {
        return !type.equals(UNTYPED);
    }
}
