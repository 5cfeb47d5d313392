package org.lutra.placement;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.backend.Backends;
import org.lutra.backend.ShardQuery;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

/**
 * The shards as a statement's operators see them ({@link Shards}), over its connections: the pool's, or
 * its transaction's pinned ones. Scans of a lookup group go through the move fence here
 * (docs/architecture.md, "Scans and the move fence").
 */
public final class StatementShards implements Shards {
    private final FanOut fanOut;
    private final Backends backends;
    private final Connections connections;

    public StatementShards(FanOut fanOut, Backends backends, Connections connections) {
        this.fanOut = fanOut;
        this.backends = backends;
        this.connections = connections;
    }

    @Override
    public List<RowSource> query(List<ShardQuery> queries) throws SQLException {
        return fanOut.query(queries, connections);
    }

    @Override
    public List<RowSource> scan(String group, List<ShardQuery> queries, ReplicaScans.Copies copies, MoveFence.Held held) throws SQLException {
        if (held == null && queries.size() < 2) return query(ReplicaScans.filter(this, copies, queries));
        if (connections.transactional()) return TransactionScan.query(fanOut, backends, connections, this, group, queries, copies, held);
        return FencedScan.query(fanOut, backends, connections, group, queries, copies, held);
    }

    @Override
    public boolean transactional() {
        return connections.transactional();
    }

    @Override
    public boolean mariaDb() throws SQLException {
        return backends.mariaDb();
    }

    @Override
    public boolean begun(int partition) {
        return connections.begun(partition);
    }

    @Override
    public int isolation() {
        return connections.isolation();
    }

    @Override
    public List<RowSource> committedAndOwn(List<ShardQuery> queries) throws SQLException {
        if (!connections.transactional()) return query(queries);
        var own = queries.stream().filter(q -> connections.begun(q.partition())).toList();
        var inTransaction = own.isEmpty() ? List.<RowSource>of() : fanOut.query(own, connections);
        var out = new java.util.ArrayList<RowSource>(queries.size());
        int next = 0;
        for (ShardQuery q : queries) {
            var rows = new java.util.ArrayList<org.lutra.protocol.Row>();
            List<org.lutra.protocol.Column> columns;
            try (var latest = new ScratchConnection(backends.placement(q.partition()), connections.deadline(), connections.variables());
                 RowSource committed = latest.query(q.sql(), q.params())) {
                columns = committed.columns();
                for (var row = committed.next(); row != null; row = committed.next()) rows.add(row);
            }
            if (connections.begun(q.partition())) {
                try (RowSource mine = inTransaction.get(next++)) {
                    for (var row = mine.next(); row != null; row = mine.next()) rows.add(row);
                }
            }
            out.add(new org.lutra.merge.ListRows(columns, rows));
        }
        return out;
    }

    @Override
    public org.lutra.trace.KeyTrace trace() {
        return connections.trace();
    }

    @Override
    public boolean noReplicatedKeys(String owner) {
        return backends.noReplicatedKeys(owner);
    }

    @Override
    public MoveFence.Held holdFence(String group, int at) throws SQLException {
        return MoveFence.shared(backends.placement(at), group, connections.deadline(), connections.variables());
    }

    @Override
    public MoveFence.Held holdLockingFence(String group, int at) throws SQLException {
        return MoveFence.locking(backends.placement(at), group, connections.deadline(), connections.variables());
    }

    @Override
    public boolean everyReadLocks() {
        return connections.transactional() && connections.isolation() == java.sql.Connection.TRANSACTION_SERIALIZABLE;
    }

    @Override
    public List<RowSource> lockingScan(List<ShardQuery> queries, ReplicaScans.Copies copies) throws SQLException {
        return LockingScan.query(fanOut, backends, connections, queries, copies);
    }

    @Override
    public void noMoveSinceSnapshot(String group, java.util.Collection<Integer> partitions) throws SQLException {
        if (!connections.transactional() || connections.isolation() != java.sql.Connection.TRANSACTION_REPEATABLE_READ) return;
        var earlier = partitions.stream().filter(connections::begun).map(p -> new ShardQuery(p, "", List.of())).toList();
        if (!earlier.isEmpty()) fanOut.each(earlier, connections, p -> TransactionScan.sameBatches(backends.placement(p), connections, group), x -> {});
    }

    @Override
    public java.util.OptionalLong snapshotBatches(int partition, String group) {
        return connections.snapshotBatches(partition, MoveFence.group(group));
    }

    @Override
    public void snapshotBatches(int partition, String group, java.util.OptionalLong moves) {
        if (connections.transactional() && connections.isolation() == java.sql.Connection.TRANSACTION_REPEATABLE_READ) {
            connections.snapshotBatches(partition, MoveFence.group(group), moves);
        }
    }

    @Override
    public boolean onlySnapshotOf(int partition) {
        return connections.transactional() && connections.isolation() == java.sql.Connection.TRANSACTION_REPEATABLE_READ
                && connections.onlySnapshotOf(partition);
    }

    @Override
    public boolean consistentReadsOnly() {
        return connections.consistentReadsOnly();
    }

    @Override
    public MovesSince movesSinceSnapshot(String group, java.util.Collection<Integer> partitions) throws SQLException {
        if (!connections.transactional() || connections.isolation() != java.sql.Connection.TRANSACTION_REPEATABLE_READ) return null;
        // a snapshot that is all the transaction has seen needs no check: whatever moved since, what it answers is what one
        // database's snapshot taken at the same time answers (docs/architecture.md, "The validation protocol")
        List<Integer> earlier = partitions.stream().distinct().filter(connections::begun).filter(p -> !connections.onlySnapshotOf(p)).toList();
        if (earlier.isEmpty()) return null;
        // the counts in the snapshots, read now (before the read's rows stream on those connections) where not remembered
        var unread = earlier.stream().filter(p -> connections.snapshotBatches(p, MoveFence.group(group)) == null)
                .map(p -> new ShardQuery(p, "", List.of())).toList();
        if (!unread.isEmpty()) fanOut.each(unread, connections, p -> TransactionScan.seenBatches(backends.placement(p), connections, group), x -> {});
        var seen = new java.util.ArrayList<java.util.OptionalLong>();
        for (int p : earlier) seen.add(TransactionScan.seenBatches(backends.placement(p), connections, group)); // remembered now
        return () -> {
            // the latest counts, read once the read was sent (in parallel, outside the transaction)
            var latest = earlier.stream().map(p -> TransactionScan.latestBatches(backends.placement(p), group)).toList();
            boolean moved = false;
            for (int i = 0; i < earlier.size(); i++) {
                if (!seen.get(i).equals(TransactionScan.await(latest.get(i), backends.placement(earlier.get(i))))) moved = true;
            }
            return moved;
        };
    }

    @Override
    public long[] update(List<ShardQuery> queries) throws SQLException {
        return fanOut.update(queries, connections);
    }

    @Override
    public long[] insert(List<ShardQuery> queries) throws SQLException {
        return fanOut.insert(queries, connections);
    }

    @Override
    public boolean[] exists(List<ShardQuery> queries) throws SQLException {
        return fanOut.exists(queries, connections);
    }

    @Override
    public void atomic() throws SQLException {
        connections.atomic();
    }

    @Override
    public Scratch scratch(int partition) throws SQLException {
        return new ScratchConnection(backends.placement(partition), connections.deadline(), connections.variables());
    }

    @Override
    public Scratch locking(int partition) throws SQLException {
        if (connections.transactional() && connections.isolation() >= java.sql.Connection.TRANSACTION_REPEATABLE_READ) {
            return new InTransaction(partition, connections);
        }
        return ScratchConnection.transaction(backends.placement(partition), connections.deadline(), connections.variables());
    }

    @Override
    public Aside aside(int partition) throws SQLException {
        if (!backends.mariaDb()) return null; // the one-second wait is MariaDB's SET STATEMENT
        return ScratchConnection.aside(backends.placement(partition), connections.deadline(), connections.variables());
    }

    @Override
    public Scratch inTransaction(int partition) throws SQLException {
        if (!connections.transactional()) throw new IllegalStateException("locks until the transaction ends, outside a transaction");
        return new InTransaction(partition, connections);
    }

    @Override
    public String partitionName(int id) {
        return backends.catalog().partition(id).name();
    }

    @Override
    public int partitionNamed(String name) throws SQLException {
        try {
            return backends.catalog().partitionNamed(name).id();
        } catch (IllegalArgumentException e) {
            throw new SQLException("a placement row names partition '" + name + "', which this router does not have", "HY000", 0);
        }
    }

    /** Statements of the router's own in the statement's transaction: what they lock stays locked until it ends. */
    private final class InTransaction implements Shards.Scratch {
        private final int partition;
        private final Connections connections;

        InTransaction(int partition, Connections connections) {
            this.partition = partition;
            this.connections = connections;
        }

        @Override
        public void execute(String sql, List<Value> params) throws SQLException {
            fanOut.update(List.of(new ShardQuery(partition, sql, params)), connections);
        }

        @Override
        public RowSource query(String sql, List<Value> params) throws SQLException {
            return fanOut.query(List.of(new ShardQuery(partition, sql, params)), connections).getFirst();
        }

        @Override
        public void close() {}
    }
}
