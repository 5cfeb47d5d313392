package org.lutra.catalog;

/** How a partitioning column's values are compared: as 64-bit integers or as exact strings. */
public enum KeyType { LONG, STRING }
