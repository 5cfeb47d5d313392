package org.lutra.partition;

import org.lutra.lookup.io.MapFormat;
import org.lutra.lookup.io.MapWriter;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a partition of a co-access graph as map files that {@code LOAD LOOKUP TABLE ... FORMAT
 * csv|metis|schism} reads: one file per owner table (csv, metis: {@code table.csv},
 * {@code table.graph.part.k} + {@code table.graph.vertices} in a directory, or the one file named
 * when there is one table), or one Schism file for every table. Each begins with comment lines
 * saying what made it.
 */
public final class MapFiles {
    private MapFiles() {}

    /** What the path given to {@link #write} names. */
    public enum Out {
        /** One file: the map of the graph's only table (or a Schism map of all of them). */
        FILE,
        /** A directory (existing, or ending in '/'): one file per table. */
        DIRECTORY
    }

    /**
     * @param parts      each vertex's part
     * @param replicas   each vertex's further parts (null, or null entries: only its own part)
     * @param names      partition names, index = part
     * @param out        a file, or a directory: one file per table ({@code kind})
     * @param header     comment lines (without '#') at the top of each file
     * @return the files written (for METIS the part files; the vertex files sit next to them)
     */
    public static List<Path> write(CoAccessGraph graph, int[] parts, int[][] replicas, List<String> names, MapFormat format, Path out,
                                   Out kind, List<String> header) throws IOException {
        boolean directory = kind == Out.DIRECTORY;
        List<String> tables = graph.tables();
        int k = names.size();
        var written = new ArrayList<Path>();
        if (format == MapFormat.SCHISM) {
            if (directory) out = out.resolve("map.schism");
            writeLines(graph, parts, replicas, names, format, out, null, null, header);
            written.add(out);
            return written;
        }
        if (!directory && tables.size() > 1) {
            throw new IllegalArgumentException("the graph has rows of " + tables.size() + " tables (" + String.join(", ", tables)
                    + "): name a directory for --out (one file per table), choose one with --tables, or write --format schism");
        }
        for (String table : tables) {
            Path file = directory ? out.resolve(format == MapFormat.METIS ? table + ".graph.part." + k : table + ".csv") : out;
            if (format == MapFormat.METIS && !file.getFileName().toString().matches(".*\\.part\\.\\d+$")) {
                throw new IllegalArgumentException("a METIS map is named NAME.part.K (its keys go to NAME.vertices): " + file);
            }
            Path vertices = format == MapFormat.METIS ? file.resolveSibling(file.getFileName().toString().replaceFirst("\\.part\\.\\d+$", "") + ".vertices") : null;
            writeLines(graph, parts, replicas, names, format, file, vertices, table, header);
            written.add(file);
        }
        return written;
    }

    private static void writeLines(CoAccessGraph graph, int[] parts, int[][] replicas, List<String> names, MapFormat format, Path file, Path vertexFile,
                                   String onlyTable, List<String> header) throws IOException {
        if (file.getParent() != null) Files.createDirectories(file.getParent());
        try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16);
             Writer keys = vertexFile == null ? Writer.nullWriter() : new BufferedWriter(Files.newBufferedWriter(vertexFile, StandardCharsets.UTF_8), 1 << 16)) {
            for (String line : header) out.write("# " + line.replace('\n', ' ') + "\n");
            var vertices = graph.vertices();
            for (int v = 0; v < vertices.size(); v++) {
                var vertex = vertices.get(v);
                if (onlyTable != null && !vertex.table().equals(onlyTable)) continue;
                String key = MapWriter.quoted(vertex.key());
                int[] extra = replicas == null ? null : replicas[v];
                switch (format) {
                    case CSV -> out.write(key + "," + partitions(names, parts[v], extra) + "\n");
                    case SCHISM -> out.write(MapWriter.quoted(vertex.table()) + "," + key + "," + partitions(names, parts[v], extra) + "\n");
                    case METIS -> {
                        if (extra != null && extra.length > 0) {
                            throw new IllegalArgumentException("a METIS map holds one partition per key: write replicated keys as csv or schism");
                        }
                        out.write(parts[v] + "\n");
                        keys.write(key + "\n");
                    }
                    default -> throw new IllegalArgumentException("a partition is written as csv, metis or schism, not " + format);
                }
            }
        }
    }

    private static String partitions(List<String> names, int part, int[] extra) {
        if (extra == null || extra.length == 0) return names.get(part);
        var sb = new StringBuilder(names.get(part));
        for (int p : extra) if (p != part) sb.append(',').append(names.get(p));
        return sb.toString();
    }
}
