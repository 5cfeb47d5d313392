package org.lutra.exec;

import org.lutra.merge.RowSource;

/** What executing a plan gives back: an update count or rows; {@code partitions} it ran on. */
public sealed interface Result {
    int partitions();

    record Count(long count, int partitions) implements Result {}

    record Rows(RowSource rows, int partitions) implements Result {}
}
