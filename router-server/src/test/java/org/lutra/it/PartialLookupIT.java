package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A router that keeps 1% of a table's keys (lookups: mode partial) answers a random workload as one
 * plain MariaDB does, with a quarter of the keys living away from their home partition; its misses
 * go home and the home rows correct them (never a broadcast), and the hit ratio it reports is the
 * one an independent LRU model of the same capacity gives for the same key sequence.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PartialLookupIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            """;
    static final int USERS = 2000;
    static final int CAPACITY = USERS / 100;
    static final int HOT = CAPACITY / 2;
    static final long SEED = Long.getLong("lutra.partial.seed", System.nanoTime());

    Differential differential;
    TestRouter partial;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "partial", SCHEMA);
        for (int from = 1; from <= USERS; from += 200) {
            var users = new StringBuilder();
            var followers = new StringBuilder();
            for (int id = from; id < from + 200; id++) {
                users.append(users.isEmpty() ? "" : ", ").append("(").append(id).append(", 'user").append(id).append("', 0)");
                followers.append(followers.isEmpty() ? "" : ", ").append("(").append(id).append(", ").append(id % USERS + 1).append(")");
            }
            differential.both("INSERT INTO users (id, name, karma) VALUES " + users);
            differential.both("INSERT INTO followers (source, destination) VALUES " + followers);
        }
        try (var st = differential.lutra.createStatement()) { // a quarter of the keys away from home
            st.executeUpdate("ALTER TABLE users SET PARTITION = p2 WHERE id % 4 = 1");
        }
        var a = differential.router;
        partial = new TestRouter(a, TestRouter.configLike(a, "partialP", "127.0.0.1:0",
                List.of(new RouterConfig.LookupSource("users", null, null, "partial", CAPACITY)), RouterConfig.Placement.defaults()));
    }

    @AfterAll
    void stop() throws Exception {
        if (partial != null) partial.stopRouter();
        if (differential != null) differential.close();
    }

    @Test
    void onePercentOfTheKeysAnswersAsOneDatabase() throws Exception {
        var random = new Random(SEED);
        var lru = new LinkedHashMap<Integer, Boolean>(16, 0.75f, true);
        long modelHits = 0;
        long keyed = 0;
        var before = PlacementLogIT.lookupCounters(partial);
        assertEquals(0, before.get("Keys"), "a partial table starts empty");
        int statements = 3000;
        try (Connection lutra = partial.connect()) {
            for (int i = 0; i < statements; i++) {
                // 90% of the statements on 10 hot keys (every one living away from home), the rest uniform
                int k = random.nextInt(10) < 9 ? 1 + 4 * random.nextInt(HOT) : 1 + random.nextInt(USERS);
                String sql = statement(random, k);
                var expected = PlacementDifferentialIT.outcome(differential.reference, sql);
                assertEquals(expected, PlacementDifferentialIT.outcome(lutra, sql), "seed " + SEED + ", statement " + i + ": " + sql);
                keyed++;
                if (lru.get(k) != null) {
                    modelHits++;
                } else {
                    lru.put(k, true);
                    if (lru.size() > CAPACITY) lru.remove(lru.keySet().iterator().next());
                }
            }
        }
        var after = PlacementLogIT.lookupCounters(partial);
        long hits = after.get("Hits") - before.get("Hits");
        long misses = after.get("Misses") - before.get("Misses");
        double reported = (double) hits / (hits + misses);
        double model = (double) modelHits / keyed;
        System.out.printf("PartialLookupIT: seed %d, %d statements, %d keys cached of %d: hits %d, misses %d, ratio %.3f (LRU model %.3f),"
                        + " fallbacks %d, learned %d, broadcasts %d%n", SEED, statements, after.get("Keys"), USERS, hits, misses, reported, model,
                after.get("Fallbacks") - before.get("Fallbacks"), after.get("Learned") - before.get("Learned"),
                after.get("Broadcasts") - before.get("Broadcasts"));
        // one routing key a statement, and again for an insert the placement trigger redirected (its retry routes anew)
        assertTrue(hits + misses >= statements && hits + misses <= statements * 1.02, (hits + misses) + " keys routed");
        assertTrue(after.get("Keys") <= CAPACITY, "the cache keeps at most its capacity: " + after);
        assertEquals(before.get("Broadcasts"), after.get("Broadcasts"), "a miss never broadcasts");
        assertEquals(model, reported, 0.05, "the reported hit ratio follows the workload's key distribution");
        for (String table : List.of("users ORDER BY id", "followers ORDER BY source, destination")) {
            String sql = "SELECT * FROM " + table;
            assertEquals(PlacementDifferentialIT.outcome(differential.reference, sql), PlacementDifferentialIT.outcome(differential.lutra, sql), sql);
        }
    }

    @Test
    void aMapFileForAPartialTableIsRefusedAtStart() throws Exception {
        var csv = java.nio.file.Files.createTempFile("users", ".csv");
        java.nio.file.Files.writeString(csv, "5,p1\n");
        var a = differential.router;
        var config = TestRouter.configLike(a, "partialMap", "127.0.0.1:0", List.of(new RouterConfig.LookupSource("users", null, null, "partial", 10),
                new RouterConfig.LookupSource("users", csv, "csv")), RouterConfig.Placement.defaults());
        var refused = assertThrows(java.io.IOException.class, () -> new TestRouter(a, config));
        assertTrue(refused.getMessage().contains("partial"), refused.getMessage());
    }

    /** A statement on key {@code k} alone: reads, updates, inserts (new and duplicate) and deletes of users and followers. */
    static String statement(Random r, int k) {
        int n = r.nextInt(1000);
        return switch (r.nextInt(8)) {
            case 0 -> "SELECT id, name, karma FROM users WHERE id = " + k;
            case 1 -> "SELECT destination FROM followers WHERE source = " + k + " ORDER BY destination";
            case 2 -> "UPDATE users SET karma = karma + 1 WHERE id = " + k;
            case 3 -> "INSERT INTO followers (source, destination) VALUES (" + k + ", " + (1 + r.nextInt(USERS)) + ")";
            case 4 -> "DELETE FROM followers WHERE source = " + k + " AND destination = " + (1 + r.nextInt(USERS));
            case 5 -> "INSERT INTO users (id, name) VALUES (" + k + ", 'dup" + n + "')";
            case 6 -> "SELECT COUNT(*) FROM followers WHERE source = " + k;
            default -> "UPDATE users SET name = 'n" + n + "' WHERE id = " + k;
        };
    }
}
