package org.lutra.it;

import org.lutra.shards.EmbeddedShards;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two accounts on two shards of a test class's own (it kills connections and freezes servers):
 * account 1 on p0 (shard 0, the coordinator), account 101 on p1 (shard 1), 100 each. Helpers to
 * look at the shards directly: balances, prepared XA branches, decision rows.
 */
final class TwoShardBank {
    static final String SCHEMA = """
            CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL) PARTITION BY range(id) ON (p0 < 100, p1);
            """;

    final EmbeddedShards shards;
    final String database;

    TwoShardBank(EmbeddedShards shards, String prefix) {
        this.shards = shards;
        this.database = prefix + "_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
    }

    /** A router config file; {@code transactions} is the YAML flow map's body. */
    Path config(String transactions) throws IOException {
        Path dir = Files.createTempDirectory("lutra-bank");
        Files.writeString(dir.resolve("schema.sql"), SCHEMA);
        Path file = dir.resolve("router.yaml");
        Files.writeString(file, """
                listen: 127.0.0.1:0
                database: %s
                schema: schema.sql
                users: [ { name: app, password: secret } ]
                backends:
                  - { name: shard0, url: "%s", pool_size: 4 }
                  - { name: shard1, url: "%s", pool_size: 4 }
                partitions: [ { name: p0, backend: shard0 }, { name: p1, backend: shard1 } ]
                transactions: { %s }
                """.formatted(database, shards.url(0), shards.url(1), transactions));
        return file;
    }

    static Connection connect(int port) throws SQLException {
        return DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + port + "/", "app", "secret");
    }

    static void insertAccounts(Connection c) throws SQLException {
        c.createStatement().executeUpdate("INSERT INTO accounts (id, balance) VALUES (1, 100), (101, 100)");
    }

    /** Moves 10 from account 1 to account 101 inside the caller's transaction. */
    static void transfer(Connection c) throws SQLException {
        assertEquals(1, c.createStatement().executeUpdate("UPDATE accounts SET balance = balance - 10 WHERE id = 1"));
        assertEquals(1, c.createStatement().executeUpdate("UPDATE accounts SET balance = balance + 10 WHERE id = 101"));
    }

    /** Balances of account 1 (p0) and 101 (p1), read on the shards themselves. */
    List<Long> balances() throws SQLException {
        return List.of(balance(0, 1), balance(1, 101));
    }

    long balance(int shard, int id) throws SQLException {
        try (var c = partition(shard); var st = c.createStatement()) {
            st.setQueryTimeout(10);
            try (var rs = st.executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    /** A plain connection to partition {@code shard}'s database (partition i lives on shard i). */
    Connection partition(int shard) throws SQLException {
        return DriverManager.getConnection(shards.url(shard, database + "_p" + shard), shards.user(), shards.password());
    }

    /** Gtrids of this database's prepared XA branches on {@code shard}. */
    List<String> prepared(int shard) throws SQLException {
        var out = new ArrayList<String>();
        try (var c = shards.connect(shard); var rs = c.createStatement().executeQuery("XA RECOVER")) {
            while (rs.next()) {
                byte[] data = rs.getBytes(4);
                int gtridLength = rs.getInt(2);
                if (new String(data, StandardCharsets.ISO_8859_1).endsWith(database + "_p" + shard)) {
                    out.add(new String(data, 0, gtridLength, StandardCharsets.ISO_8859_1));
                }
            }
        }
        return out;
    }

    /** Rows of the decision log on p0: "gtrid=outcome". */
    List<String> decisions() throws SQLException {
        var out = new ArrayList<String>();
        try (var c = partition(0); var rs = c.createStatement().executeQuery("SELECT gtrid, outcome FROM lutra_xa_decisions")) {
            while (rs.next()) out.add(rs.getString(1) + "=" + rs.getString(2));
        }
        return out;
    }

    /**
     * Kills every connection to p{@code shard}'s database on its server (the router's pinned
     * connections among them). A prepared branch survives, detached: from then on any connection
     * may end it — what MySQL 8 does at every XA PREPARE with xa_detach_on_prepare (its default),
     * reproduced here on MariaDB.
     */
    void killConnections(int shard) throws SQLException {
        try (var c = shards.connect(shard); var st = c.createStatement();
             var rs = st.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '" + database + "_p" + shard
                     + "' AND ID <> CONNECTION_ID()")) {
            var ids = new ArrayList<Long>();
            while (rs.next()) ids.add(rs.getLong(1));
            for (long id : ids) {
                try (var kill = c.createStatement()) {
                    kill.execute("KILL CONNECTION " + id);
                } catch (SQLException gone) {
                    // ended meanwhile
                }
            }
            // KILL only flags a connection: until its thread has ended, a prepared branch it held is still
            // attached to it, and XA COMMIT/ROLLBACK from elsewhere answers XAER_NOTA (CI once did)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ids.isEmpty() && System.nanoTime() < deadline) {
                try (var left = st.executeQuery("SELECT ID FROM information_schema.PROCESSLIST")) {
                    var alive = new ArrayList<Long>();
                    while (left.next()) alive.add(left.getLong(1));
                    ids.retainAll(alive);
                }
                if (!ids.isEmpty()) Thread.sleep(20);
            }
            assertTrue(ids.isEmpty(), "killed connections still listed: " + ids);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for killed connections to end", e);
        }
    }

    /** XA COMMIT or XA ROLLBACK of this database's branch of {@code gtrid} on {@code shard}, from outside the router. */
    void endBranch(int shard, String gtrid, boolean commit) throws SQLException {
        String xid = "X'" + java.util.HexFormat.of().formatHex(gtrid.getBytes(StandardCharsets.ISO_8859_1)) + "',X'"
                + java.util.HexFormat.of().formatHex((database + "_p" + shard).getBytes(StandardCharsets.ISO_8859_1)) + "',"
                + org.lutra.txn.Xid.LUTRA_FORMAT;
        try (var c = shards.connect(shard); var st = c.createStatement()) {
            st.execute((commit ? "XA COMMIT " : "XA ROLLBACK ") + xid);
        }
    }

    /** Waits up to {@code seconds} for {@code condition}; returns whether it came true. */
    static boolean await(int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(100);
        }
        return true;
    }

    interface SqlCheck {
        boolean test() throws SQLException;
    }

    static BooleanSupplier sql(SqlCheck check) {
        return () -> {
            try {
                return check.test();
            } catch (SQLException e) {
                return false;
            }
        };
    }
}
