package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.KeyType;
import org.lutra.catalog.Partition;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.lookup.EntryVisitor;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.io.MapFormat;
import org.lutra.lookup.io.MapLoader;
import org.lutra.lookup.io.MapSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Lookup map files (the config's, read at start by {@link RouterLoader}, and LOAD LOOKUP TABLE's, {@link MapPlan}) as the
 * catalog sees them: the lookup library's source for a file, partitions named by name or id, and each entry's key
 * normalized as the key column compares it and its partitions checked against the table's.
 */
final class LookupMapFiles {
    private static final Logger log = LoggerFactory.getLogger(LookupMapFiles.class);

    private LookupMapFiles() {}

    /**
     * The library's view of a configured map file. {@code format} is csv, metis or schism (also
     * snapshot), or guessed from the file name when absent. METIS: {@code file} is the
     * {@code .part.k} file and the keys are in the file next to it named without {@code .part.k}
     * plus {@code .vertices} ({@code maps/users.graph.part.4} → {@code maps/users.graph.vertices}).
     * Schism rows are kept when their first column is the configured table's name.
     */
    static MapSource mapSource(RouterConfig.LookupSource source) throws IOException {
        Path file = source.file();
        MapFormat format;
        try {
            format = source.format() == null || source.format().isBlank()
                    ? MapFormat.guess(file.getFileName().toString())
                    : MapFormat.parse(source.format());
        } catch (IllegalArgumentException e) {
            throw new IOException("lookup map " + file + ": " + e.getMessage());
        }
        return switch (format) {
            case CSV -> MapSource.csv(file);
            case SCHISM -> MapSource.schism(file, source.table());
            case METIS -> MapSource.metis(file, verticesOf(file));
            case SNAPSHOT -> MapSource.snapshot(file);
        };
    }

    static Path verticesOf(Path partFile) {
        String name = partFile.getFileName().toString().replaceFirst("\\.part\\.\\d+$", "");
        return partFile.resolveSibling(name + ".vertices");
    }

    /** Partition names (p2) and catalog ids (2, also with spaces around it) to ids. */
    static MapLoader.PartitionNames partitionNames(Catalog catalog) {
        return name -> {
            for (Partition p : catalog.partitions()) {
                if (p.name().equalsIgnoreCase(name) || String.valueOf(p.id()).equals(name)) {
                    return p.id();
                }
            }
            return -1;
        };
    }

    /** Logs a long map file's progress, naming table {@code t}. */
    static MapLoader.Progress progress(TableDef t) {
        return (lines, bytes, total) -> {
            if (bytes < total) {
                log.info("lookup table {}: map file at line {} ({}%)", t.name(), lines, total == 0 ? 100 : bytes * 100 / total);
            }
        };
    }

    /**
     * A map file's entries as the catalog sees them: keys normalized to the column's type, partitions
     * of the table's ON list. A refusal becomes the loader's line-numbered error.
     */
    record Entries(Catalog catalog, TableDef t, Partitioning.LookedUp lookup, RouterLoader.KeySink sink) implements EntryVisitor {
        @Override
        public void visit(long key, PartitionSet partitions) {
            if (t.keyType() == KeyType.LONG) deliver(key, partitions);
            else visit(Long.toString(key), partitions); // digits in a string column: its collation's key, as any text
        }

        @Override
        public void visit(String key, PartitionSet partitions) {
            Object normalized = t.key(key);
            if (normalized == null) {
                throw new IllegalArgumentException(t.keyType() == KeyType.LONG ? "key '" + key + "' is not an integer, and " + t.name() + "." + lookup.column()
                        + " is an integer column" : "key '" + key + "' is not a value " + t.name() + "." + lookup.column() + " can hold (its character set has no such characters)");
            }
            deliver(normalized, partitions);
        }

        private void deliver(Object key, PartitionSet partitions) {
            if (key instanceof Long value) {
                var column = t.column(t.partitioning().column());
                var range = column == null ? null : org.lutra.catalog.IntegerRange.of(column.typeName());
                if (range != null && !range.holds(value)) {
                    throw new IllegalArgumentException("key " + value + " is out of the range of " + t.name() + "." + lookup.column() + " ("
                            + column.typeName() + "): no row can have it");
                }
            }
            int[] ps = partitions.toArray();
            for (int p : ps) {
                if (Arrays.stream(lookup.partitions()).noneMatch(q -> q == p)) {
                    throw new IllegalArgumentException("partition " + (p < catalog.partitions().size() ? catalog.partition(p).name() : p)
                            + " is not one of the partitions of " + t.name() + " (" + names(lookup.partitions()) + ")");
                }
            }
            sink.accept(key, ps, catalog);
        }

        private String names(int[] ids) {
            return RouterLoader.names(catalog, ids);
        }
    }
}
