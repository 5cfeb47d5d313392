package org.lutra.lookup.io;

import java.util.Locale;

/** The map file formats of DESIGN.md §3, plus Lutra's binary snapshot. */
public enum MapFormat {
    /** {@code key,partition[,partition…]} per line; blank lines and {@code #} comments are skipped. */
    CSV,
    /**
     * A METIS {@code .part.k} file (line i = partition of vertex i; {@code #} comment lines, such as a partitioner's
     * header, are not vertices) plus a vertex file (line i = key of vertex i).
     */
    METIS,
    /** {@code table,key,partition} rows as Schism's partitioning step writes them. */
    SCHISM,
    /** {@link Snapshots}: compact binary, for fast restarts. */
    SNAPSHOT;

    public static MapFormat parse(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown map format '" + name + "' (csv, metis, schism, snapshot)");
        }
    }

    /** Guesses from the file name: {@code .part.N} → metis, {@code .lts} → snapshot, {@code .schism} → schism, else csv. */
    public static MapFormat guess(String fileName) {
        if (fileName.matches(".*\\.part\\.\\d+$")) {
            return METIS;
        }
        if (fileName.endsWith(".lts")) {
            return SNAPSHOT;
        }
        return fileName.endsWith(".schism") ? SCHISM : CSV;
    }
}
