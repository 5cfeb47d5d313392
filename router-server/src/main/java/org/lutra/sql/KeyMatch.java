package org.lutra.sql;

import java.util.List;

/** What a WHERE clause pins the routing column to. */
public sealed interface KeyMatch {
    /** {@code col = v}: the statement runs unchanged wherever v lives. */
    record Equals(ValueRef value) implements KeyMatch {}

    /** {@code col IN (v1, v2, ...)}: each partition gets the statement with only its own values. */
    record In(List<ValueRef> values, SqlTemplate template) implements KeyMatch {}

    /**
     * {@code col BETWEEN a AND b}, {@code col >= a AND col < b}, ...: the statement runs unchanged
     * on the partitions that can hold keys in the range (paper §III-B: a small integer range on a
     * lookup or hash column expands to its keys). A missing bound is null.
     */
    record Range(ValueRef low, boolean lowInclusive, ValueRef high, boolean highInclusive) implements KeyMatch {}
}
