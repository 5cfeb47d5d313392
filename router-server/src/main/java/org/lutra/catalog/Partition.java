package org.lutra.catalog;

/**
 * A logical partition: {@code id} is its index in the catalog (what lookup tables store),
 * {@code name} the schema file's name for it (p0, p1, ...). Where it lives is the executor's concern.
 */
public record Partition(int id, String name) {}
