package org.lutra.it;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several routers written at once: one thread per router runs {@code statements} random writes, each made by the
 * workload from the thread's own {@link Random} (seeded {@code seed + i}, so a failure replays). A duplicate key
 * (1062) and a lost race (40001) are answers a client expects under such contention; any other error fails the test.
 */
final class RandomWritesThroughRouters {
    private RandomWritesThroughRouters() {}

    static void run(List<TestRouter> routers, long seed, int statements, Function<Random, String> write) throws Exception {
        var pool = Executors.newFixedThreadPool(routers.size());
        var errors = new ConcurrentLinkedQueue<String>();
        try {
            var futures = new ArrayList<Future<?>>();
            for (int t = 0; t < routers.size(); t++) {
                TestRouter r = routers.get(t);
                var random = new Random(seed + t);
                futures.add(pool.submit(() -> {
                    try (Connection lutra = r.connect(); var st = lutra.createStatement()) {
                        for (int op = 0; op < statements; op++) {
                            String sql = write.apply(random);
                            try {
                                st.executeUpdate(sql);
                            } catch (SQLException e) {
                                if (e.getErrorCode() != 1062 && !"40001".equals(e.getSQLState())) errors.add(sql + ": " + e.getErrorCode() + " " + e.getMessage());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (var f : futures) f.get();
        } finally {
            pool.shutdownNow();
        }
        assertTrue(errors.isEmpty(), String.join("\n", errors));
    }
}
