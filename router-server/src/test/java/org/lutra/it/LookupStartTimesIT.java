package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.catalog.Partitioning;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The three start-up sources on a table large enough for the difference to show
 * ({@code -Dlutra.start.keys}, default 200,000): rows written straight to their home partitions,
 * then a router started from a peer, from its snapshot file and from a backend scan, each timed,
 * and each ending with the same entries as the others (compared whole).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LookupStartTimesIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            """;
    static final int KEYS = Integer.getInteger("lutra.start.keys", 200_000);

    TestRouter a;
    final List<TestRouter> others = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        a = new TestRouter(shards, "starttimes", SCHEMA);
        var users = a.server.catalog().table("users");
        var lookup = (Partitioning.LookedUp) users.partitioning();
        var byHome = new TreeMap<Integer, StringBuilder>();
        for (int id = 1; id <= KEYS; id++) {
            int home = lookup.placeNew(users.key(id));
            var sb = byHome.computeIfAbsent(home, h -> new StringBuilder());
            sb.append(sb.isEmpty() ? "" : ",").append('(').append(id).append(",'u").append(id).append("')");
            if (sb.length() > 200_000) flush(home, sb);
        }
        for (var e : byHome.entrySet()) flush(e.getKey(), e.getValue());
        try (Connection c = a.connect(); var st = c.createStatement()) { // some keys away from home, through moves (home rows, log)
            st.executeUpdate("ALTER TABLE users SET PARTITION = p3 WHERE id <= 500");
        }
    }

    void flush(int partition, StringBuilder values) throws Exception {
        if (values.isEmpty()) return;
        try (Connection c = a.partition(partition); var st = c.createStatement()) {
            st.executeUpdate("INSERT INTO users (id, name) VALUES " + values);
        }
        values.setLength(0);
    }

    @AfterAll
    void stop() throws Exception {
        for (TestRouter r : others) r.stopRouter();
        if (a != null) a.close();
    }

    TestRouter router(String name, Path snapshot, List<String> peers) throws Exception {
        var placement = new RouterConfig.Placement(100, 0, snapshot, -1, peers, TestRouter.USER, TestRouter.PASSWORD); // a peer answers only its peer_user
        var r = new TestRouter(a, TestRouter.configLike(a, name, "127.0.0.1:0", List.of(), placement));
        others.add(r);
        return r;
    }

    /** Every entry of {@code r}'s users table, "key=partition", sorted (read in the router's process: SHOW LOOKUP SNAPSHOT is binary). */
    static List<String> entries(TestRouter r) {
        var out = new ArrayList<String>();
        var table = ((Partitioning.LookedUp) r.server.catalog().table("users").partitioning()).table();
        table.forEach(new org.lutra.lookup.EntryVisitor() {
            @Override
            public void visit(long key, org.lutra.lookup.PartitionSet partitions) {
                out.add(key + "=" + partitions.first());
            }

            @Override
            public void visit(String key, org.lutra.lookup.PartitionSet partitions) {
                out.add(key + "=" + partitions.first());
            }
        });
        out.sort(null);
        return out;
    }

    @Test
    void peerFileAndScanGiveTheSameTablesAtTheirCost() throws Exception {
        Path snapshot = Files.createTempDirectory("lutra-snap").resolve("lookups.snap");
        String nobody = "127.0.0.1:" + PlacementLogIT.freePort();
        TestRouter scanned = router("timesScan", null, List.of(nobody));
        assertEquals("backend scan", scanned.server.started().source());
        long scan = scanned.server.started().millis();
        var expected = entries(scanned);
        assertEquals(KEYS, expected.size());

        TestRouter fromPeer = router("timesPeer", snapshot, List.of("127.0.0.1:" + scanned.server.port()));
        assertEquals("peer 127.0.0.1:" + scanned.server.port(), fromPeer.server.started().source());
        long peer = fromPeer.server.started().millis();
        assertEquals(expected, entries(fromPeer));
        long saveStart = System.nanoTime();
        fromPeer.stopRouter(); // writes the snapshot file
        long save = (System.nanoTime() - saveStart) / 1_000_000;

        TestRouter fromFile = router("timesPeer", snapshot, List.of(nobody));
        assertEquals("snapshot file " + snapshot, fromFile.server.started().source());
        long file = fromFile.server.started().millis();
        assertEquals(expected, entries(fromFile));
        System.out.printf("LookupStartTimesIT: %,d keys (%s): peer %d ms, snapshot file %d ms (%,d bytes; closing with the save %d ms),"
                        + " backend scan %d ms%n", KEYS, fromFile.server.loaded().getFirst().representation(), peer, file, Files.size(snapshot),
                save, scan);
    }
}
