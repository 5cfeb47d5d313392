package org.lutra.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class EmbeddedShardsTest {

    @Test
    void twoShardsAreSeparateServers() throws Exception {
        Path work;
        long t0 = System.nanoTime();
        try (var shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(2).withWorkDir(Path.of("target", "lutra-shards-test")))) {
            System.out.printf("started 2 shards in %d ms: %s%n", (System.nanoTime() - t0) / 1_000_000, shards.urls());
            work = shards.workDir();
            assertEquals(2, shards.size());
            assertNotEquals(shards.url(0), shards.url(1));

            String db = shards.createDatabase("iso");
            try (Connection a = shards.connect(0, db); Connection b = shards.connect(1, db)) {
                a.createStatement().execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
                b.createStatement().execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
                a.createStatement().execute("INSERT INTO t VALUES (1, 'a'), (2, 'a')");
                b.createStatement().execute("INSERT INTO t VALUES (1, 'b')");
                assertEquals(2, count(a, "SELECT COUNT(*) FROM t"));
                assertEquals(1, count(b, "SELECT COUNT(*) FROM t"));
                assertNotEquals(count(a, "SELECT @@port"), count(b, "SELECT @@port"));
            }
            shards.dropDatabase(db);
        }
        assertFalse(Files.exists(work), "work dir is deleted on close");
    }

    @Test
    void withDatabaseReplacesThePathAndKeepsParameters() {
        assertEquals("jdbc:mysql://127.0.0.1:3306/db", JdbcUrls.withDatabase("jdbc:mysql://127.0.0.1:3306/", "db"));
        assertEquals("jdbc:mysql://h:1/db", JdbcUrls.withDatabase("jdbc:mysql://h:1", "db"));
        assertEquals("jdbc:mysql://h:1/db?useSSL=false", JdbcUrls.withDatabase("jdbc:mysql://h:1/old?useSSL=false", "db"));
        assertTrue(JdbcUrls.withDatabase("jdbc:lutra://a:1,b:2/x", "y").endsWith("b:2/y"));
    }

    static long count(Connection c, String sql) throws SQLException {
        try (var rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
