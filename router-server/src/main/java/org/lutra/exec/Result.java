package org.lutra.exec;

import org.lutra.merge.RowSource;

import java.util.OptionalLong;

/** What executing a plan gives back: an update count or rows; {@code partitions} it ran on. */
public sealed interface Result {
    int partitions();

    /**
     * @param keys      for an INSERT into a table with an AUTO_INCREMENT column: that column's value in
     *                  each row it inserted, in row order (what getGeneratedKeys reports); else empty
     * @param generated the ids among them the router generated, in row order (LAST_INSERT_ID() is the first)
     * @param insertIdSet what LAST_INSERT_ID(expr) in an UPDATE's SET made the session's LAST_INSERT_ID(), if it ran
     */
    record Count(long count, int partitions, long[] keys, long[] generated, OptionalLong insertIdSet) implements Result {
        private static final long[] NONE = new long[0];

        public Count(long count, int partitions) {
            this(count, partitions, NONE, NONE);
        }

        public Count(long count, int partitions, long[] keys, long[] generated) {
            this(count, partitions, keys, generated, OptionalLong.empty());
        }
    }

    record Rows(RowSource rows, int partitions) implements Result {}
}
