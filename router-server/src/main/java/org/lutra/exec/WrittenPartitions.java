package org.lutra.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

/** A statement's connections that note the partitions where its writes changed or matched rows (an UPDATE's, for its secondary entries). */
final class WrittenPartitions implements Connections {
    private final Connections inner;
    private final Set<Integer> written = new ConcurrentSkipListSet<>();

    WrittenPartitions(Connections inner) {
        this.inner = inner;
    }

    Set<Integer> partitions() {
        return written;
    }

    @Override
    public Lease lease(int partition, boolean write) throws SQLException {
        Lease lease = inner.lease(partition, write);
        if (!write) return lease;
        return new ForwardingLease(lease) {
            @Override
            public void changed(long rows) {
                if (rows > 0) written.add(partition);
                lease.changed(rows);
            }
        };
    }

    @Override
    public void atomic() throws SQLException {
        inner.atomic();
    }

    @Override
    public SessionState variables() {
        return inner.variables();
    }

    @Override
    public Warnings warnings() {
        return inner.warnings();
    }

    @Override
    public java.util.function.LongConsumer insertIds() {
        return inner.insertIds();
    }

    @Override
    public Deadline deadline() {
        return inner.deadline();
    }
}
