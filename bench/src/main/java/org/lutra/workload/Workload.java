package org.lutra.workload;

import org.lutra.trace.TraceLine;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * One of the paper's workloads: its tables per placement scheme, its rows (generated from a
 * scale and a seed), its transaction mix, and the checks its rows must pass at the end of a run.
 * The statements are those an application sends: prepared, through whatever driver the runner
 * connects with (the Lutra driver, or Connector/J for the one-machine baseline).
 */
public interface Workload {
    String name();

    /** One paragraph for the report: scale, rows, the mix. */
    String describe();

    /** The placement schemes, in the order of the report. */
    List<Scheme> schemes();

    default Scheme scheme(String name) {
        return schemes().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(name() + " has no scheme '" + name + "'; it has "
                        + schemes().stream().map(Scheme::name).toList()));
    }

    /** The router's schema file for {@code scheme} over partitions {@code p0 .. p(partitions-1)}. */
    String schema(Scheme scheme, int partitions);

    /** The same tables as one MariaDB holds them (the baseline): plain DDL statements. */
    List<String> plainSchema();

    /** Every row to load, table by table, in load order. */
    List<TableData> data();

    /**
     * The trace a lookup scheme is placed by ({@code ./lutra partition} turns it into the scheme's maps), or null for a
     * scheme without a lookup table to fill.
     */
    default PartitionTrace partitionTrace(Scheme scheme) {
        return null;
    }

    /**
     * A lookup scheme's placement on {@code partitions} partitions from the maps {@code ./lutra partition} wrote for its
     * trace ({@code partitioned}): those maps as they are, unless the scheme derives others from them (replicas, primaries).
     */
    default Placement placement(Scheme scheme, int partitions, Placement partitioned) {
        return partitioned;
    }

    /** Statements run through the router once the rows are loaded (a scheme's secondary lookups, and the indexes they need). */
    default List<String> afterLoad(Scheme scheme) {
        return List.of();
    }

    /** Requests recorded elsewhere that a run replays instead of the mix (a WikiBench trace's), or null. */
    default List<TraceLine> recordedRequests() {
        return null;
    }

    /** The state one run's clients share. */
    default RunState newRun() {
        return RunState.NONE;
    }

    /** Client {@code client}'s (of {@code clients}) transaction source, in a run whose shared state is {@code state}. */
    Mix mix(int client, int clients, RunState state);

    /** The transaction of a trace line this workload wrote, to run again ({@code --replay}). */
    Txn replay(TraceLine line);

    /**
     * Checks the rows on the shards themselves once a run is over: {@code databases} are
     * connections to every database holding the workload's tables (one per partition, or the
     * baseline's one). Returns what is wrong, nothing when all holds.
     */
    List<String> check(RunState state, List<Connection> databases) throws SQLException;
}
