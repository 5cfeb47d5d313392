package org.lutra.backend;

import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

/** A statement's connections that note the partitions where its writes changed or matched rows (an UPDATE's, for its secondary entries). */
public final class WrittenPartitions extends Connections.Forwarding {
    private final Set<Integer> written = new ConcurrentSkipListSet<>();

    public WrittenPartitions(Connections inner) {
        super(inner);
    }

    public Set<Integer> partitions() {
        return written;
    }

    @Override
    public Lease lease(int partition, Use use) throws SQLException {
        Lease lease = inner.lease(partition, use);
        if (use != Use.WRITE) return lease;
        return new ForwardingLease(lease) {
            @Override
            public void changed(long rows) {
                if (rows > 0) written.add(partition);
                lease.changed(rows);
            }
        };
    }
}
