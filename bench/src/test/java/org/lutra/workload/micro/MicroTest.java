package org.lutra.workload.micro;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MicroTest {
    @Test
    void eachQueryReadsEightyDistinctIdsFromAsManyPartitionsAsAsked() {
        for (int participants : new int[] {2, 3, 4}) {
            var micro = new Micro(1, 5, 4, 1.0, participants);
            var mix = micro.mix(0, 1, micro.newRun());
            var random = new SplittableRandom(participants);
            for (int i = 0; i < 200; i++) {
                var select = (Micro.Select) mix.next(random);
                var ids = new HashSet<Integer>();
                var partitions = new HashSet<Integer>();
                for (int id : select.ids()) {
                    ids.add(id);
                    partitions.add(id / (micro.rows() / 4));
                    assertTrue(id >= 0 && id < micro.rows());
                }
                assertEquals(Micro.IDS_PER_QUERY, ids.size());
                assertEquals(participants, partitions.size());
            }
        }
    }

    @Test
    void localQueriesReadOnePartitionAndTheShareIsKept() {
        var micro = new Micro(1, 5, 8, 0.25, 2);
        var mix = micro.mix(0, 1, micro.newRun());
        var random = new SplittableRandom(9);
        int distributed = 0;
        for (int i = 0; i < 4000; i++) {
            var partitions = new HashSet<Integer>();
            for (int id : ((Micro.Select) mix.next(random)).ids()) partitions.add(id / (micro.rows() / 8));
            assertTrue(partitions.size() == 1 || partitions.size() == 2);
            if (partitions.size() == 2) distributed++;
        }
        assertTrue(Math.abs(distributed / 4000.0 - 0.25) < 0.03, distributed + " of 4000 distributed");
    }

    @Test
    void theSchemaSplitsTheIdsEvenly() {
        var micro = new Micro(1, 5, 4, 0, 2);
        assertEquals("CREATE TABLE micro (id INT PRIMARY KEY, data VARCHAR(200))\n  PARTITION BY range(id) ON (p0 < 5000, p1 < 10000, p2 < 15000, p3);\n",
                micro.schema(micro.schemes().getFirst(), 4));
    }
}
