package org.lutra.plan;

import java.util.List;

/** What a WHERE clause pins the routing column to. */
public sealed interface KeyMatch {
    /** {@code col = v}: the statement runs unchanged wherever v lives. */
    record Equals(ValueRef value) implements KeyMatch {}

    /** {@code col IN (v1, v2, ...)}: each partition gets the statement with only its own values. */
    record In(List<ValueRef> values, SqlTemplate template) implements KeyMatch {}
}
