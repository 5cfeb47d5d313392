package org.lutra.it;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two routers insert rows of one unique value at the same moment (a barrier before each executes): exactly one insert
 * succeeds and the other fails with MariaDB's 1062, whatever the order the routers reach the shards in.
 */
final class SameKeyRace {
    private SameKeyRace() {}

    /**
     * Runs {@code sql} through each of {@code routers} on its own thread of {@code pool}, the i-th with {@code params.get(i)}.
     *
     * @param what names the value in a failure's message
     */
    static void exactlyOneWins(ExecutorService pool, List<TestRouter> routers, String sql, List<Object[]> params, String what) throws Exception {
        var barrier = new CyclicBarrier(routers.size());
        var outcomes = new ConcurrentLinkedQueue<String>();
        var futures = new ArrayList<Future<?>>();
        for (int i = 0; i < routers.size(); i++) {
            TestRouter r = routers.get(i);
            Object[] values = params.get(i);
            futures.add(pool.submit(() -> {
                try (Connection lutra = r.connect(); var ps = lutra.prepareStatement(sql)) {
                    for (int p = 0; p < values.length; p++) ps.setObject(p + 1, values[p]);
                    barrier.await();
                    ps.executeUpdate();
                    outcomes.add("ok");
                } catch (SQLException e) {
                    outcomes.add(e.getErrorCode() + " " + e.getMessage());
                }
                return null;
            }));
        }
        for (var f : futures) f.get();
        assertEquals(1, outcomes.stream().filter("ok"::equals).count(), what + ": " + outcomes);
        assertTrue(outcomes.stream().anyMatch(o -> o.startsWith("1062 ")), what + ": " + outcomes);
    }
}
