package org.lutra.lookup.io;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.lutra.lookup.EntryVisitor;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartitionSet;

/** Writes a table in one of the map formats (the other half of {@code ./lutra lookup convert}). */
public final class MapWriter {
    private MapWriter() {}

    /**
     * @param vertexFile METIS only: where the keys go (line i = key of vertex i)
     * @param table      SCHISM only: the table name written in the first column
     */
    public static long write(LookupTable lookup, MapFormat format, Path file, Path vertexFile, String table) throws IOException {
        if (format == MapFormat.SNAPSHOT) {
            Snapshots.write(lookup, file);
            return lookup.size();
        }
        if (format == MapFormat.METIS && vertexFile == null) {
            throw new IllegalArgumentException("writing METIS needs a vertex file for the keys");
        }
        try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 20);
             Writer keys = format == MapFormat.METIS ? Files.newBufferedWriter(vertexFile, StandardCharsets.UTF_8) : Writer.nullWriter()) {
            long[] count = {0};
            lookup.forEach(new EntryVisitor() {
                @Override
                public void visit(long key, PartitionSet partitions) {
                    line(Long.toString(key), partitions);
                }

                @Override
                public void visit(String key, PartitionSet partitions) {
                    line(quoted(key), partitions);
                }

                private void line(String key, PartitionSet partitions) {
                    try {
                        switch (format) {
                            case CSV -> out.write(key + "," + join(partitions) + "\n");
                            case SCHISM -> {
                                for (int i = 0; i < partitions.size(); i++) {
                                    out.write(table + "," + key + "," + partitions.get(i) + "\n");
                                }
                            }
                            case METIS -> {
                                if (partitions.size() != 1) {
                                    throw new IllegalArgumentException("METIS holds one partition per vertex; key " + key + " has " + partitions);
                                }
                                out.write(partitions.first() + "\n");
                                keys.write(key + "\n");
                            }
                            default -> throw new IllegalStateException();
                        }
                        count[0]++;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
            return count[0];
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * The key as a map line's field: quoted when it holds a comma, a quote or a line break, is empty, or would
     * make the line a comment (its first character other than spaces and tabs is {@code #}).
     */
    public static String quoted(String key) {
        boolean quote = key.isEmpty() || key.contains(",") || key.contains("\"") || key.contains("\n") || key.contains("\r")
                || key.replaceFirst("^[ \t]*", "").startsWith("#");
        return quote ? '"' + key.replace("\"", "\"\"") + '"' : key;
    }

    private static String join(PartitionSet partitions) {
        var sb = new StringBuilder();
        for (int i = 0; i < partitions.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(partitions.get(i));
        }
        return sb.toString();
    }
}
