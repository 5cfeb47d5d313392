package org.lutra.maintain;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.catalog.Partitioning;
import org.lutra.config.RouterConfig;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.io.MapFormatException;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * RouterLoader against real shards: rows written through one router are profiled and scanned by
 * the next one, a csv map moves some of them, and the chooser's pick serves the lookups.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterLoaderIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;

    @TempDir
    Path dir;
    Shards shards;
    String database;

    @BeforeAll
    void start(Shards shards) {
        this.shards = shards;
        this.database = ("loaderit_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36)).toLowerCase();
    }

    @AfterAll
    void stop() throws Exception {
        for (int i = 0; i < shards.size(); i++) {
            try (var c = shards.connect(i); var st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS `" + database + "_p" + i + "`");
            }
        }
    }

    RouterConfig config(List<RouterConfig.LookupSource> maps) throws Exception {
        Path schema = Files.writeString(dir.resolve("schema.sql"), SCHEMA);
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < shards.size(); i++) {
            backends.add(new RouterConfig.Backend("shard" + i, shards.url(i), shards.user(), shards.password(), 4));
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, null));
        }
        var config = new RouterConfig("127.0.0.1:0", database, schema, List.of(new RouterConfig.User("app", "pw", null)),
                backends, partitions, maps, 1 << 20, 100, null);
        config.validate();
        return config;
    }

    @Test
    void rowsAndAMapFileFillTheChosenTableAndAnswersStayRight() throws Exception {
        try (var router = RouterServer.start(config(List.of()))) {
            try (var c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + router.port() + "/" + database, "app", "pw");
                 var ps = c.prepareStatement("INSERT INTO users (id, name) VALUES (?, ?)")) {
                for (int id = 1; id <= 400; id++) {
                    ps.setInt(1, id);
                    ps.setString(2, "user" + id);
                    ps.executeUpdate();
                }
            }
        }
        // A partitioner moved users 1..40 to p0 (moved on the shards by hand), and says so in a map.
        var map = new StringBuilder();
        for (int id = 1; id <= 40; id++) {
            int from = id % 4;
            if (from != 0) {
                try (var src = DriverManager.getConnection(shards.url(from, database + "_p" + from), shards.user(), shards.password());
                     var dst = DriverManager.getConnection(shards.url(0, database + "_p0"), shards.user(), shards.password())) {
                    dst.createStatement().executeUpdate("INSERT INTO users (id, name) VALUES (" + id + ", 'user" + id + "')");
                    src.createStatement().executeUpdate("DELETE FROM users WHERE id = " + id);
                }
            }
            map.append(id).append(",p0\n");
        }
        Path csv = Files.writeString(dir.resolve("users.csv"), map);
        try (var router = RouterServer.start(config(List.of(new RouterConfig.LookupSource("users", csv, "csv"))))) {
            var loaded = router.loaded().getFirst();
            assertEquals("users", loaded.table());
            assertEquals(400, loaded.keys());
            assertEquals("DenseArrayLookupTable", loaded.representation(), loaded.reason());
            assertTrue(loaded.reason().contains("density 100.0%"), loaded.reason());
            var table = (AdaptiveLookupTable) ((Partitioning.LookedUp) router.catalog().table("users").partitioning()).table();
            assertInstanceOf(DenseArrayLookupTable.class, table.current());
            for (int id = 1; id <= 400; id++) {
                assertEquals(id <= 40 ? 0 : id % 4, table.get((long) id), "user " + id);
            }
            try (var c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + router.port() + "/" + database, "app", "pw");
                 var ps = c.prepareStatement("SELECT name FROM users WHERE id = ?")) {
                for (int id : new int[] {1, 3, 40, 41, 400}) {
                    ps.setInt(1, id);
                    try (var rs = ps.executeQuery()) {
                        assertTrue(rs.next(), "user " + id);
                        assertEquals("user" + id, rs.getString(1));
                    }
                }
            }
        }
    }

    @Test
    void aBadMapLineStopsTheRouterNamingFileAndLine() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.csv"), "1,p0\n2,p9\n");
        var e = assertThrows(MapFormatException.class,
                () -> RouterServer.start(config(List.of(new RouterConfig.LookupSource("users", bad, "csv")))).close());
        assertEquals(2, e.line());
        assertTrue(e.getMessage().contains("bad.csv:2"), e.getMessage());
    }
}
