package org.lutra.paper;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TargetsTest {
    private static RunResult run(String workload, String scheme, int backends, String variant, double throughput, double messages, Map<Integer, Long> partitions) {
        long total = partitions.values().stream().mapToLong(Long::longValue).sum();
        long multi = partitions.entrySet().stream().filter(e -> e.getKey() > 1).mapToLong(Map.Entry::getValue).sum();
        return new RunResult(workload + "-" + scheme + "-" + backends + variant, workload, scheme, backends, variant, 8, 5, 10, (long) (throughput * 10),
                throughput, 1, 2, 3, 1, 0, List.of(), new Aborts.Counts(0, 0, 0, 0, 0), "transactions", partitions,
                total == 0 ? Double.NaN : (double) multi / total, 0, 0, Map.of(), 0, messages, messages, messages, 0, RunResult.Deadlocks.NONE,
                List.of(new RunResult.ShardLoad(0, 100, 900, 0.9, 100, 0.1, 0)), 0.3, 100, 0, 0.2, 0.1, 0.5, 0.4, 1, "the shards", true, List.of(), "");
    }

    private static Targets.Target named(List<Targets.Target> targets, String prefix) {
        return targets.stream().filter(t -> t.name().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Test
    void computesEachRatioFromItsRuns() {
        var one = Map.of(1, 100L);
        var runs = List.of(
                run("micro", "range", 1, "share=0", 100, 1, one),
                run("micro", "range", 8, "share=0.00 participants=2", 760, 1, one),
                run("micro", "range", 4, "share=1.00 participants=2", 300, 2, Map.of(2, 100L)),
                run("micro", "range", 4, "share=1.00 participants=4", 200, 4, Map.of(4, 100L)),
                run("wikipedia", BaselineTarget.ONE_MACHINE, 1, "", 100, 4, Map.of()),
                run("wikipedia", "hash1", 8, "", 150, 12, Map.of(8, 100L)),
                run("wikipedia", "hash2", 8, "", 200, 11, Map.of(8, 100L)),
                run("wikipedia", "lookup", 1, "", 90, 5, one),
                run("wikipedia", "lookup", 8, "", 650, 5.1, one),
                run("twitter", "hash", 8, "", 100, 9, Map.of(3, 100L)),
                run("twitter", "lookup", 8, "", 260, 6, Map.of(1, 95L, 2, 5L)),
                run("twitter", "onehop", 8, "", 240, 6, one),
                run("tpce", "range", 8, "", 100, 9, Map.of(1, 50L, 2, 50L)),
                run("tpce", "lookup", 8, "", 280, 6, Map.of(1, 999L, 2, 1L)));
        var targets = Targets.evaluate(runs);
        assertEquals(760 / 800.0, named(targets, "micro, 0%").measured(), 1e-9);
        assertTrue(named(targets, "micro, 0%").met());
        assertEquals(1.5, named(targets, "micro, 100%").measured(), 1e-9);
        assertEquals(6.5, named(targets, "wikipedia lookup, 8").measured(), 1e-9);
        assertEquals(3.25, named(targets, "wikipedia lookup vs hash").measured(), 1e-9, "against the better hash");
        assertTrue(named(targets, "wikipedia lookup messages").met(), "5.0 and 5.1 are constant");
        assertEquals(2.6, named(targets, "twitter best lookup scheme (lookup)").measured(), 1e-9);
        assertTrue(named(targets, "twitter").met());
        assertEquals(2.8, named(targets, "tpce").measured(), 1e-9);
        assertTrue(named(targets, "tpce").met());
        var partitions = named(targets, "partitions per transaction");
        assertEquals(0.95, partitions.measured(), 1e-9, "the lowest: twitter's lookup");
        assertFalse(partitions.met());
        assertFalse(partitions.why().isEmpty());
    }

    @Test
    void aTargetWithoutItsRunsIsNotMeasured() {
        var targets = Targets.evaluate(List.of());
        assertEquals(8, targets.size());
        for (var t : targets) {
            assertNull(t.measured(), t.name());
            assertNull(t.met(), t.name());
        }
    }
}
