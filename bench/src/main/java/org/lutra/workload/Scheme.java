package org.lutra.workload;

/**
 * A placement scheme of a workload: the schema's placement clauses and, for the lookup schemes,
 * the map the partitioner makes.
 *
 * @param name        short name used in options, file names and charts ({@code hash}, {@code lookup}, ...)
 * @param description one line for the report
 * @param lookup      whether a partitioner places its rows (a fine-grained scheme)
 */
public record Scheme(String name, String description, boolean lookup) {}
