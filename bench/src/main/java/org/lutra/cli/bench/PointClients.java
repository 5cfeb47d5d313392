package org.lutra.cli.bench;

import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.SplittableRandom;

/** The clients of {@code ./lutra bench point}: its table, its rows, and the two prepared statements it runs in a loop. */
final class PointClients {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL, karma INT NOT NULL) PARTITION BY hash(id) ON (p0);
            """;
    static final String SELECT = "SELECT id, name FROM users WHERE id = ?";
    static final String UPDATE = "UPDATE users SET karma = karma + 1 WHERE id = ?";

    private PointClients() {}

    /** A client on its own connection to {@code url} running {@code workload} ("point select" or "single-row update") over ids below {@code rows}. */
    static ClosedLoop.Client open(String url, String user, String password, String workload, int rows) throws SQLException {
        Connection c = DriverManager.getConnection(url, user, password);
        boolean select = workload.equals("point select");
        PreparedStatement ps = c.prepareStatement(select ? SELECT : UPDATE);
        return new ClosedLoop.Client() {
            @Override
            public void transaction(SplittableRandom random) throws Exception {
                ps.setInt(1, random.nextInt(rows));
                if (select) {
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) { /* read every row */ }
                    }
                } else if (ps.executeUpdate() != 1) {
                    throw new SQLException("the update changed no row");
                }
            }

            @Override
            public void close() throws SQLException {
                ps.close();
                c.close();
            }
        };
    }

    /** Inserts ids 0..rows-1 into {@code users} over {@code c}, then closes it. */
    static void load(Connection c, int rows) throws SQLException {
        try (c) {
            final int batch = 1000;
            for (int from = 0; from < rows; from += batch) {
                int n = Math.min(batch, rows - from);
                String sql = "INSERT INTO users (id, name, karma) VALUES " + String.join(", ", Collections.nCopies(n, "(?, ?, 0)"));
                try (var ps = c.prepareStatement(sql)) {
                    for (int i = 0; i < n; i++) {
                        ps.setInt(2 * i + 1, from + i);
                        ps.setString(2 * i + 2, "user " + Integer.toString((from + i) * 7919 % 1_000_003, 36));
                    }
                    ps.executeUpdate();
                }
            }
        }
    }

    static String serverVersion(String url, Shards shards) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, shards.user(), shards.password());
             var rs = c.createStatement().executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
