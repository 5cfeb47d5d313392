package org.lutra.lookup.io;

import java.nio.file.Path;

/**
 * A map file to read.
 *
 * @param format     its format
 * @param file       the map (for METIS the {@code .part.k} file)
 * @param vertexFile METIS only: line i names the key of vertex i
 * @param table      SCHISM only: keep rows of this table (null = every row)
 */
public record MapSource(MapFormat format, Path file, Path vertexFile, String table) {
    public MapSource {
        if (format == MapFormat.METIS && vertexFile == null) {
            throw new IllegalArgumentException("a METIS map needs a vertex file naming the key of each vertex");
        }
    }

    public static MapSource csv(Path file) {
        return new MapSource(MapFormat.CSV, file, null, null);
    }

    public static MapSource metis(Path partFile, Path vertexFile) {
        return new MapSource(MapFormat.METIS, partFile, vertexFile, null);
    }

    public static MapSource schism(Path file, String table) {
        return new MapSource(MapFormat.SCHISM, file, null, table);
    }

    public static MapSource snapshot(Path file) {
        return new MapSource(MapFormat.SNAPSHOT, file, null, null);
    }
}
