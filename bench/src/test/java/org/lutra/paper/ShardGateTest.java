package org.lutra.paper;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ShardGateTest {
    /** MySQL packets: 3-byte length, sequence number, payload. */
    private static byte[] packets(int... lengths) {
        int total = 0;
        for (int n : lengths) total += 4 + n;
        byte[] out = new byte[total];
        int at = 0;
        for (int n : lengths) {
            out[at] = (byte) n;
            out[at + 1] = (byte) (n >> 8);
            out[at + 2] = (byte) (n >> 16);
            at += 4 + n;
        }
        return out;
    }

    @Test
    void countsWholePacketsHoweverTheStreamIsCut() {
        byte[] stream = packets(1, 0, 300, 70_000, 5, 2);
        var random = new SplittableRandom(3);
        for (int round = 0; round < 200; round++) {
            var counter = new ShardGate.PacketCounter();
            long counted = 0;
            for (int at = 0; at < stream.length; ) {
                int n = Math.min(stream.length - at, 1 + random.nextInt(round % 2 == 0 ? 7 : 5000));
                byte[] piece = java.util.Arrays.copyOfRange(stream, at, at + n);
                counted += counter.feed(piece, n);
                at += n;
            }
            assertEquals(6, counted, "round " + round);
        }
    }

    @Test
    void admitsCommandsAtTheCapacityAfterTheLatency() {
        var bucket = new ShardGate.Bucket(new Capacity(1000, 1, 0.04, 200)); // a statement takes 1 ms of the virtual server
        long t0 = 1_000_000_000L;
        assertEquals(t0 + 200_000, bucket.admit(t0), "an idle server: the latency only");
        assertEquals(t0 + 1_200_000, bucket.admit(t0), "the second waits for the first's millisecond");
        assertEquals(t0 + 2_200_000, bucket.admit(t0 + 100_000));
        long later = t0 + 10_000_000_000L;
        assertEquals(later + 200_000, bucket.admit(later), "an idle server saves nothing up");
        assertEquals(4, bucket.counters().commands());
        assertEquals(4.0, bucket.counters().units(), 1e-9);
        assertEquals(1_000_000 + 1_900_000, bucket.counters().queuedNanos(), "the second waited 1 ms, the third 1.9 ms");
    }

    @Test
    void letsEverythingThroughWhileNotEnforcing() {
        var bucket = new ShardGate.Bucket(new Capacity(10, 1, 0.04, 5_000));
        bucket.enforce(false);
        assertEquals(42L, bucket.admit(42L));
        bucket.charge(1000);
        assertEquals(0, bucket.counters().commands());
        assertEquals(0.0, bucket.counters().units());
    }
}
