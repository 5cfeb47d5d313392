package org.lutra.paper;

import org.lutra.cli.bench.Forwarder;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.locks.LockSupport;

/**
 * A proxy in front of one shard that gives it a fixed capacity ({@link Capacity}): the shard
 * of a small server, emulated on a machine whose shards share two cores.
 *
 * <p>Protocol: MySQL packets are a 3-byte little-endian length and a sequence number. A packet
 * with sequence number 0 from the client starts a command (query, prepare, execute, COMMIT, ping,
 * quit); the packets after it (a command longer than 16 MB, the login exchange) pass as they come.
 * Each command is held until the shard's virtual CPU ({@link Bucket}) is free and the network
 * latency has passed, then forwarded whole; the answer's packets are counted as they stream back
 * and charged to the same virtual CPU. So the shard admits a fixed amount of work per second,
 * while a statement that waits inside the server for a lock holds nothing: its cost was charged
 * when it was admitted, and the statements behind it go on being admitted.
 *
 * <p>One virtual thread per direction and connection; waiting is {@link LockSupport#parkNanos}.
 */
final class ShardGate implements AutoCloseable {
    private static final int HEADER = 4;
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final Bucket bucket;

    ShardGate(String targetHost, int targetPort, Capacity capacity) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.bucket = new Bucket(capacity);
        this.server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("gate-accept-" + targetPort).start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    Bucket bucket() {
        return bucket;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                Thread.ofVirtual().start(() -> commands(client, target));
                Thread.ofVirtual().start(() -> answers(target, client));
            } catch (IOException e) {
                if (!server.isClosed()) System.err.println("shard gate: " + e);
            }
        }
    }

    /** Client to shard: each command waits for its turn, then goes whole. */
    private void commands(Socket from, Socket to) {
        try (InputStream in = new BufferedInputStream(from.getInputStream(), 64 * 1024)) {
            OutputStream out = to.getOutputStream();
            byte[] frame = new byte[64 * 1024]; // header and payload, written in one call: one segment, as the sender wrote it
            while (in.readNBytes(frame, 0, HEADER) == HEADER) {
                int length = (frame[0] & 0xff) | (frame[1] & 0xff) << 8 | (frame[2] & 0xff) << 16;
                if (frame.length < HEADER + length) frame = java.util.Arrays.copyOf(frame, Math.max(HEADER + length, frame.length * 2));
                if (in.readNBytes(frame, HEADER, length) != length) break;
                if (frame[3] == 0) waitUntil(bucket.admit(System.nanoTime()));
                out.write(frame, 0, HEADER + length);
            }
        } catch (IOException e) {
            // either side closed: close both below
        } finally {
            Forwarder.closeQuietly(from);
            Forwarder.closeQuietly(to);
        }
    }

    /** Shard to client: bytes pass as they come; the packets in them are charged to the shard. */
    private void answers(Socket from, Socket to) {
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            byte[] buf = new byte[64 * 1024];
            var packets = new PacketCounter();
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
                long counted = packets.feed(buf, n);
                if (counted > 0) bucket.charge(counted);
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            Forwarder.closeQuietly(from);
            Forwarder.closeQuietly(to);
        }
    }

    private static void waitUntil(long dueNanos) {
        for (long left = dueNanos - System.nanoTime(); left > 0; left = dueNanos - System.nanoTime()) LockSupport.parkNanos(left);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    /** Counts whole packets in a byte stream cut anywhere: a header may straddle two reads. */
    static final class PacketCounter {
        private long bodyLeft; // bytes of the current packet's body still to come
        private int headerSeen; // bytes of the next header seen so far
        private int length;

        long feed(byte[] buf, int n) {
            long packets = 0;
            int i = 0;
            while (i < n) {
                if (bodyLeft > 0) {
                    int skip = (int) Math.min(bodyLeft, n - i);
                    bodyLeft -= skip;
                    i += skip;
                    continue;
                }
                if (headerSeen < 3) length |= (buf[i] & 0xff) << (8 * headerSeen);
                headerSeen++;
                i++;
                if (headerSeen == HEADER) {
                    packets++;
                    bodyLeft = length;
                    headerSeen = 0;
                    length = 0;
                }
            }
            return packets;
        }
    }

    /**
     * The shard's virtual CPU: a single server with a FIFO queue on a virtual clock. A command
     * reaches it {@code latency} after it is sent, starts when the server is free, and occupies it
     * for its statement cost; the packets of answers add their cost as they are seen. An idle
     * server saves nothing up: its clock restarts at the next arrival.
     */
    static final class Bucket {
        private final Capacity capacity;
        private final long latencyNanos;
        private final double nanosPerUnit;
        private long freeAt; // guarded by this
        private long commands; // guarded by this
        private long answerPackets; // guarded by this
        private double units; // guarded by this
        private long queuedNanos; // guarded by this: time commands waited for the server, beyond the latency
        private volatile boolean enforcing = true;

        Bucket(Capacity capacity) {
            this.capacity = capacity;
            this.latencyNanos = capacity.latencyMicros() * 1000;
            this.nanosPerUnit = capacity.nanosPerUnit();
        }

        Capacity capacity() {
            return capacity;
        }

        /** The time at which a command sent at {@code now} may go to the server. */
        long admit(long now) {
            return enforcing ? admitted(now) : now;
        }

        private synchronized long admitted(long now) {
            long arrives = now + latencyNanos;
            long start = Math.max(arrives, freeAt);
            queuedNanos += start - arrives;
            freeAt = start + (long) (capacity.statementCost() * nanosPerUnit);
            commands++;
            units += capacity.statementCost();
            return start;
        }

        void charge(long packets) {
            if (enforcing) charged(packets);
        }

        /** Off: commands pass at once and cost nothing (loading data); on: the capacity holds. */
        void enforce(boolean on) {
            enforcing = on;
        }

        private synchronized void charged(long packets) {
            double cost = packets * capacity.rowCost();
            freeAt = Math.max(freeAt, System.nanoTime()) + (long) (cost * nanosPerUnit);
            answerPackets += packets;
            units += cost;
        }

        synchronized Counters counters() {
            return new Counters(commands, answerPackets, units, queuedNanos);
        }
    }

    /** What a gate admitted so far; a run's share is the difference of two readings. */
    record Counters(long commands, long answerPackets, double units, long queuedNanos) {
        Counters minus(Counters o) {
            return new Counters(commands - o.commands, answerPackets - o.answerPackets, units - o.units, queuedNanos - o.queuedNanos);
        }
    }
}
