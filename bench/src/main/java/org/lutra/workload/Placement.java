package org.lutra.workload;

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

    /**
     * One lookup table's map in csv form: lines {@code key,partition[,partition...]}.
     *
     * @param table      the owner table of the lookup table
     * @param lines      the csv lines
     * @param replicated whether some key names several partitions (loaded with LOAD LOOKUP TABLE,
     *                   which writes a replicated key's placement; a router's start-up map cannot)
     */
    public record MapFile(String table, List<String> lines, boolean replicated) {
        public MapFile {
            lines = List.copyOf(lines);
        }
    }
}
