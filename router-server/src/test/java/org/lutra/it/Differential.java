package org.lutra.it;

import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A router over the shared shards and, next to it, one plain database on shard 0 holding the
 * same tables (the schema's DDL without Lutra's placement clauses): the reference every answer
 * through Lutra is compared with.
 */
final class Differential implements AutoCloseable {
    final TestRouter router;
    final Connection lutra;
    final Connection reference;
    private final Shards shards;
    private final String referenceDatabase;

    Differential(Shards shards, String prefix, String schema) throws Exception {
        this.shards = shards;
        this.router = new TestRouter(shards, prefix, schema);
        this.lutra = router.connect();
        this.referenceDatabase = router.database + "_ref";
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("CREATE DATABASE `" + referenceDatabase + "`");
        }
        this.reference = DriverManager.getConnection(shards.url(0, referenceDatabase), shards.user(), shards.password());
        for (var t : router.server.catalog().tablesInSchemaOrder()) {
            try (var st = reference.createStatement()) {
                st.execute(t.ddl());
            }
        }
    }

    /** A new session on the reference database (a session of its own: LAST_INSERT_ID() 0). */
    Connection newReference() throws SQLException {
        return DriverManager.getConnection(shards.url(0, referenceDatabase), shards.user(), shards.password());
    }

    /** Runs a write on both sides; the update counts must agree. */
    void both(String sql) throws SQLException {
        try (var l = lutra.createStatement(); var r = reference.createStatement()) {
            assertEquals(r.executeUpdate(sql), l.executeUpdate(sql), sql);
        }
    }

    @Override
    public void close() throws Exception {
        lutra.close();
        reference.close();
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS `" + referenceDatabase + "`");
        }
        router.close();
    }
}
