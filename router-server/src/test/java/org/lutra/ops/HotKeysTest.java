package org.lutra.ops;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;

import java.util.HashMap;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The hot keys against exact counts of a random skewed stream (seeded): the truly hottest keys are
 * the ones reported, each true count within the reported bounds, from several threads at once;
 * and a window rotation keeps the previous window, two forget it.
 */
class HotKeysTest {
    static Partitioning.LookedUp users() throws Exception {
        var catalog = SchemaParser.parse("CREATE TABLE users (id INT PRIMARY KEY) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id);",
                List.of("p0", "p1"));
        return (Partitioning.LookedUp) catalog.table("users").partitioning();
    }

    @Test
    void theHottestKeysOfASkewedStreamAreReportedWithTheirTrueCountsInsideTheBounds() throws Exception {
        var users = users();
        var hot = new HotKeys(5);
        var exact = new HashMap<Long, Long>();
        var random = new SplittableRandom(27);
        long[] stream = new long[200_000];
        for (int i = 0; i < stream.length; i++) {
            // five hot keys take ~40% of the routings, the rest spread over 100,000 keys
            stream[i] = random.nextInt(10) < 4 ? 1_000_000L + random.nextInt(5) * 7 : random.nextInt(100_000);
            exact.merge(stream[i], 1L, Long::sum);
        }
        var pool = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            int from = t * stream.length / 4, to = (t + 1) * stream.length / 4;
            pool.execute(() -> {
                for (int i = from; i < to; i++) hot.record(users, stream[i]);
            });
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        var top = hot.top();
        assertEquals(5, top.size());
        var truth = exact.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(5).map(e -> String.valueOf(e.getKey()))
                .sorted().toList();
        assertEquals(truth, top.stream().map(k -> k.key()).sorted().toList(), "the five hottest keys");
        for (var k : top) {
            long real = exact.get(Long.parseLong(k.key()));
            assertTrue(k.countLow() <= real && real <= k.countHigh(), k + " vs the true count " + real);
            assertEquals("users", k.table());
        }
        for (int i = 1; i < top.size(); i++) assertTrue(top.get(i - 1).count() >= top.get(i).count(), "hottest first");
    }

    @Test
    void aRotationKeepsThePreviousWindowAndTwoForgetIt() throws Exception {
        var users = users();
        var hot = new HotKeys(3);
        for (int i = 0; i < 10; i++) hot.record(users, 42L);
        hot.rotate();
        assertEquals(10, hot.top().getFirst().count(), "the previous window still counts");
        hot.record(users, 7L);
        assertEquals(List.of("42", "7"), hot.top().stream().map(k -> k.key()).toList());
        hot.rotate();
        hot.rotate();
        assertTrue(hot.top().isEmpty(), "two windows later nothing is left");
    }

    @Test
    void noneAreCountedWhenNoneAreAsked() throws Exception {
        var hot = new HotKeys(0);
        hot.record(users(), 1L);
        assertTrue(hot.top().isEmpty());
    }
}
