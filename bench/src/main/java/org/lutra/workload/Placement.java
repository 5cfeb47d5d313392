package org.lutra.workload;

import java.nio.file.Path;
import java.util.List;

/**
 * Where a lookup scheme puts its keys: one map file per lookup table, and which partitioner made
 * them.
 *
 * @param maps        the map files (none for hash and range schemes)
 * @param partitioner the partitioner and its settings, for the report ("" when no map)
 * @param notes       what the report should say about the placement (edge cut, balance, replicas)
 * @param statements  placement statements run through the router once the rows are in ({@code ALTER TABLE ... SET PARTITION}:
 *                    it moves rows, so it has none to move before)
 */
public record Placement(List<MapFile> maps, String partitioner, List<String> notes, List<String> statements) {
    public static final Placement NONE = new Placement(List.of(), "", List.of());

    public Placement {
        maps = List.copyOf(maps);
        notes = List.copyOf(notes);
        statements = List.copyOf(statements);
    }

    public Placement(List<MapFile> maps, String partitioner, List<String> notes) {
        this(maps, partitioner, notes, List.of());
    }

    /** The map of {@code table}'s lookup table. */
    public MapFile map(String table) {
        return maps.stream().filter(m -> m.table().equals(table)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no map of " + table + " in " + maps));
    }

    /**
     * One lookup table's map, a csv file ({@code key,partition[,partition...]}) in the router's map directory, loaded
     * with {@code LOAD LOOKUP TABLE table FROM 'file' FORMAT csv} before the first row.
     *
     * @param table      the owner table of the lookup table
     * @param file       the map file
     * @param replicated whether some key names several partitions (its rows are then written on each)
     */
    public record MapFile(String table, Path file, boolean replicated) {}
}
