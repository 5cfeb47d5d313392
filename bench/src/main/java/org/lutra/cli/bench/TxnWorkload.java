package org.lutra.cli.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The transactions {@code ./lutra bench txn} compares. The read-write ones move money between
 * accounts (deltas that sum to zero, so the total balance checks atomicity afterwards); the
 * auto-commit ones update a counter and measure what one statement costs through each path.
 */
enum TxnWorkload {
    DIRECT("direct", "direct to 1 shard (Connector/J)", Path.DIRECT, 1, 4),
    ROUTER_1P("1p", "router, 1 partition", Path.ROUTER, 1, 4),
    ROUTER_2P("2p", "router, 2 partitions", Path.ROUTER, 2, 4),
    ROUTER_4P("4p", "router, 4 partitions", Path.ROUTER, 4, 4),
    DIRECT_AUTOCOMMIT("direct-ac", "direct, auto-commit UPDATE", Path.DIRECT, 1, 1),
    ROUTER_AUTOCOMMIT("router-ac", "router, auto-commit UPDATE", Path.ROUTER, 1, 1);

    enum Path { DIRECT, ROUTER }

    /** Where the clients connect. {@code shardUrls} = each partition's database on its shard. */
    record Target(String routerUrl, String routerUser, String routerPassword,
                  List<String> shardUrls, String shardUser, String shardPassword, Accounts accounts) {}

    /**
     * What the router's pools use (org.lutra.backend.Backends), so the direct path runs the same
     * server-side prepared statements and the comparison is only about the router.
     */
    static final String CONNECTOR_OPTIONS = "useServerPrepStmts=true&cachePrepStmts=true&useLocalSessionState=true"
            + "&socketTimeout=" + TxnWorkload.STATEMENT_TIMEOUT_MILLIS;

    /** A statement that hangs fails the transaction after this long instead of stopping the benchmark. */
    static final int STATEMENT_TIMEOUT_MILLIS = 60_000;

    private static final String TRANSFER = "UPDATE accounts SET balance = balance + ? WHERE id = ?";
    private static final String TOUCH = "UPDATE accounts SET touches = touches + 1 WHERE id = ?";

    final String key;
    final String label;
    final Path path;
    final int participants;
    final int statements;

    TxnWorkload(String key, String label, Path path, int participants, int statements) {
        this.key = key;
        this.label = label;
        this.path = path;
        this.participants = participants;
        this.statements = statements;
    }

    /** One statement in auto-commit mode, else an explicit transaction ended by commit(). */
    boolean autocommit() {
        return statements == 1;
    }

    static TxnWorkload byKey(String key) {
        for (TxnWorkload w : values()) if (w.key.equals(key)) return w;
        throw new IllegalArgumentException("unknown workload '" + key + "' (known: "
                + Arrays.stream(values()).map(w -> w.key).toList() + ")");
    }

    ClosedLoop.Client open(Target target) throws SQLException {
        var connections = new ArrayList<Connection>();
        try {
            int partitions = target.accounts().partitions();
            var connectionOf = new Connection[partitions];
            var byPartition = new PreparedStatement[partitions];
            String sql = autocommit() ? TOUCH : TRANSFER;
            if (path == Path.ROUTER) {
                Connection c = DriverManager.getConnection(target.routerUrl(), target.routerUser(), target.routerPassword());
                connections.add(c);
                c.setAutoCommit(autocommit());
                Arrays.fill(connectionOf, c);
                Arrays.fill(byPartition, c.prepareStatement(sql));
            } else {
                for (int p = 0; p < byPartition.length; p++) {
                    String url = target.shardUrls().get(p);
                    Connection c = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + CONNECTOR_OPTIONS,
                            target.shardUser(), target.shardPassword());
                    connections.add(c);
                    c.setAutoCommit(autocommit());
                    connectionOf[p] = c;
                    byPartition[p] = c.prepareStatement(sql);
                }
            }
            return new UpdateClient(this, target.accounts(), connections, connectionOf, byPartition);
        } catch (SQLException | RuntimeException e) {
            for (Connection c : connections) c.close();
            throw e;
        }
    }

    /** Runs this workload's statements on whichever connection holds each id's partition. */
    private static final class UpdateClient implements ClosedLoop.Client {
        private final TxnWorkload workload;
        private final Accounts accounts;
        private final List<Connection> connections;
        private final Connection[] connectionOf;
        private final PreparedStatement[] byPartition;

        UpdateClient(TxnWorkload workload, Accounts accounts, List<Connection> connections, Connection[] connectionOf,
                     PreparedStatement[] byPartition) {
            // A direct client commits on one shard: it has no way to make several atomic.
            if (workload.path == Path.DIRECT && workload.participants != 1) throw new IllegalArgumentException(workload.key);
            this.workload = workload;
            this.accounts = accounts;
            this.connections = connections;
            this.connectionOf = connectionOf;
            this.byPartition = byPartition;
        }

        @Override
        public void transaction(SplittableRandom random) throws SQLException {
            int[] ids = accounts.pick(random, workload.participants, workload.statements);
            Connection first = connectionOf[Accounts.partitionOf(ids[0])]; // the only one, or the router's
            try {
                long amount = 0;
                for (int s = 0; s < ids.length; s++) {
                    PreparedStatement ps = byPartition[Accounts.partitionOf(ids[s])];
                    if (workload.autocommit()) {
                        ps.setInt(1, ids[s]);
                    } else {
                        // +a, -a, +b, -b: the transfers of one transaction sum to zero
                        if (s % 2 == 0) amount = 1 + random.nextInt(1000);
                        ps.setLong(1, s % 2 == 0 ? amount : -amount);
                        ps.setInt(2, ids[s]);
                    }
                    int changed = ps.executeUpdate();
                    if (changed != 1) throw new SQLException("UPDATE of account " + ids[s] + " changed " + changed + " rows, expected 1");
                }
                if (!workload.autocommit()) first.commit();
            } catch (SQLException | RuntimeException e) {
                if (!workload.autocommit()) {
                    try {
                        first.rollback();
                    } catch (SQLException ignored) {
                        e.addSuppressed(ignored);
                    }
                }
                throw e;
            }
        }

        @Override
        public void close() throws SQLException {
            SQLException failure = null;
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException e) {
                    if (failure == null) failure = e; else failure.addSuppressed(e);
                }
            }
            if (failure != null) throw failure;
        }
    }
}
