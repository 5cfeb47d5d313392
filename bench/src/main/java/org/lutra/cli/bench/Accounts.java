package org.lutra.cli.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Where the benchmark's accounts live: partition {@code p} holds ids {@code p * STRIDE} to
 * {@code p * STRIDE + perPartition - 1}, placed there by the range clause of {@link #SCHEMA}, so a
 * transaction's participants are exactly the partitions of the ids it picks.
 */
record Accounts(int partitions, int perPartition) {
    static final int STRIDE = 100_000;
    static final int PARTITIONS = 4;

    static final String SCHEMA = """
            CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL, touches BIGINT NOT NULL DEFAULT 0)
              PARTITION BY range(id) ON (p0 < 100000, p1 < 200000, p2 < 300000, p3);
            """;

    Accounts {
        if (perPartition < 4 || perPartition > STRIDE) {
            throw new IllegalArgumentException("--accounts must be between 4 and " + STRIDE + " (per partition), was " + perPartition);
        }
    }

    static int partitionOf(int id) {
        return id / STRIDE;
    }

    int id(int partition, int index) {
        return partition * STRIDE + index;
    }

    int total() {
        return partitions * perPartition;
    }

    /**
     * {@code statements} distinct ids spread round-robin over {@code participants} distinct random
     * partitions, in ascending order: every transaction then locks rows in one global order, so
     * the clients cannot deadlock (neither on one shard nor across shards).
     */
    int[] pick(SplittableRandom random, int participants, int statements) {
        int[] chosen = new int[participants];
        for (int i = 0; i < participants; i++) {
            int p;
            do {
                p = random.nextInt(partitions);
            } while (contains(chosen, i, p));
            chosen[i] = p;
        }
        int[] ids = new int[statements];
        for (int s = 0; s < statements; s++) {
            int id;
            do {
                id = id(chosen[s % participants], random.nextInt(perPartition));
            } while (contains(ids, s, id));
            ids[s] = id;
        }
        Arrays.sort(ids);
        return ids;
    }

    private static boolean contains(int[] values, int count, int value) {
        for (int i = 0; i < count; i++) if (values[i] == value) return true;
        return false;
    }
}
