package org.lutra.protocol;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FrameReader and FrameWriter over real TCP sockets, both kinds: a channel's socket (read and
 * written through the channel) and a plain socket (through its streams), against what
 * {@link Frames} writes and reads.
 */
class FrameReaderWriterTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var c : open) c.close();
    }

    /** A connected pair: [0] the client side, [1] the accepted side; channels' sockets or plain ones. */
    private Socket[] pair(boolean channels) throws IOException {
        var loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        ServerSocket server = channels ? ServerSocketChannel.open().socket() : new ServerSocket();
        open.add(server);
        server.bind(loopback);
        Socket client = channels ? SocketChannel.open().socket() : new Socket();
        open.add(client);
        client.connect(server.getLocalSocketAddress());
        Socket accepted = server.accept();
        open.add(accepted);
        assertEquals(channels, accepted.getChannel() != null);
        return new Socket[] {client, accepted};
    }

    private static ClientMessage message(long id, int sqlChars, Random random) {
        var sql = new StringBuilder(sqlChars);
        for (int i = 0; i < sqlChars; i++) sql.append((char) ('a' + random.nextInt(26)));
        return ClientMessage.newBuilder().setRequestId(id).setExecute(Execute.newBuilder().setSql(sql.toString())).build();
    }

    @Test
    void framesOfEverySizeArriveWholeAndInOrderOverChannelsAndStreams() throws Exception {
        for (boolean channels : new boolean[] {true, false}) {
            Socket[] s = pair(channels);
            var random = new Random(7);
            var sent = new ArrayList<ClientMessage>();
            // around the buffer's size, far beyond it, empty, and many small ones sent back to back (several per read)
            int[] sizes = {0, 1, 10, FrameReader.BUFFER_BYTES - 20, FrameReader.BUFFER_BYTES - 4, FrameReader.BUFFER_BYTES, FrameReader.BUFFER_BYTES + 1,
                    3 * FrameReader.BUFFER_BYTES + 5, 300_000, 5, 7};
            for (int i = 0; i < sizes.length; i++) sent.add(message(i, sizes[i], random));
            for (int i = 0; i < 500; i++) sent.add(message(100 + i, random.nextInt(200), random));
            var writer = new FrameWriter(s[0]);
            var writing = CompletableFuture.runAsync(() -> {
                try {
                    for (var m : sent) writer.write(m);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            var reader = new FrameReader(s[1]);
            for (var m : sent) assertEquals(m, reader.read(ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES), "channels " + channels);
            writing.get();
            s[0].shutdownOutput();
            assertNull(reader.read(ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES), "a clean end between frames");
        }
    }

    @Test
    void framesSplitAnywhereByTheNetworkAreReassembled() throws Exception {
        Socket[] s = pair(true);
        var random = new Random(11);
        var sent = new ArrayList<ClientMessage>();
        for (int i = 0; i < 40; i++) sent.add(message(i, random.nextInt(i % 10 == 0 ? 100_000 : 300), random));
        var bytes = new java.io.ByteArrayOutputStream();
        for (var m : sent) Frames.write(bytes, m);
        byte[] all = bytes.toByteArray();
        var writing = CompletableFuture.runAsync(() -> {
            try {
                OutputStream out = s[0].getOutputStream();
                for (int at = 0; at < all.length; ) {
                    int n = Math.min(all.length - at, 1 + random.nextInt(at % 3 == 0 ? 3 : 5_000));
                    out.write(all, at, n);
                    out.flush();
                    at += n;
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        var reader = new FrameReader(s[1]);
        for (var m : sent) assertEquals(m, reader.read(ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES));
        writing.get();
    }

    @Test
    void whatFrameWriterSendsFramesReads() throws Exception {
        for (boolean channels : new boolean[] {true, false}) {
            Socket[] s = pair(channels);
            var random = new Random(3);
            var m = message(1, 2 * FrameReader.BUFFER_BYTES, random);
            var small = message(2, 30, random);
            var writer = new FrameWriter(s[1]);
            writer.write(m);
            writer.write(small);
            var in = s[0].getInputStream();
            assertEquals(m, Frames.read(in, ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES));
            assertEquals(small, Frames.read(in, ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES));
        }
    }

    @Test
    void brokenFramesAreProtocolErrorsSayingWhatWasWrong() throws Exception {
        byte[][] inputs = {
                {0, 0},                              // header cut short
                {0, 0, 0, 9, 1, 2},                  // body cut short
                {0, 1, 0, 0, 1},                     // 65,536 announced (over the limit below)
                {(byte) 0x80, 0, 0, 0},              // negative length
                {0, 0, 0, 2, (byte) 0xff, (byte) 0xff}, // not a message
                {0, 0, (byte) 0x80, 0, 1, 2, 3},     // a large body cut short
        };
        String[] said = {"inside a frame header", "inside a frame of 9 bytes", "exceeds the limit of 40000 bytes", "exceeds the limit",
                "malformed message in a frame of 2 bytes", "inside a frame of 32768 bytes"};
        for (int i = 0; i < inputs.length; i++) {
            Socket[] s = pair(i % 2 == 0);
            s[0].getOutputStream().write(inputs[i]);
            s[0].shutdownOutput();
            var reader = new FrameReader(s[1]);
            int limit = i == 5 ? Frames.DEFAULT_MAX_FRAME_BYTES : 40_000;
            var e = assertThrows(Frames.FrameException.class, () -> reader.read(ClientMessage.parser(), limit), "input " + i);
            assertTrue(e.getMessage().contains(said[i]), e.getMessage());
        }
    }

    @Test
    void aTimedWaitThatEndsLosesNothing() throws Exception {
        Socket[] s = pair(true);
        var reader = new FrameReader(s[1]);
        s[1].setSoTimeout(50);
        assertThrows(SocketTimeoutException.class, reader::awaitBytes);
        var m = message(5, 100, new Random(1));
        new FrameWriter(s[0]).write(m);
        assertTrue(reader.awaitBytes());
        assertTrue(reader.awaitBytes(), "asking again consumes nothing");
        s[1].setSoTimeout(0); // and the untimed read takes it from the channel, after the stream's read
        assertEquals(m, reader.read(ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES));
        s[0].close();
        assertFalse(reader.awaitBytes(), "the end of the stream");
    }

    /**
     * Differential: random byte streams (valid frames, frames with garbage bodies, lengths over the limit, streams cut
     * anywhere), read by FrameReader over a socket and by {@link Frames} over the same bytes in memory, give the same
     * messages and fail at the same frame with the same message.
     */
    @Test
    void randomStreamsReadAsFramesReadsThem() throws Exception {
        var random = new Random(2026);
        int limit = 50_000;
        for (int run = 0; run < 60; run++) {
            var bytes = new java.io.ByteArrayOutputStream();
            int frames = 1 + random.nextInt(30);
            for (int f = 0; f < frames; f++) {
                switch (random.nextInt(10)) {
                    case 0 -> { // garbage body of a plausible length
                        int n = random.nextInt(200);
                        byte[] body = new byte[n];
                        random.nextBytes(body);
                        bytes.write(java.nio.ByteBuffer.allocate(4).putInt(n).array());
                        bytes.write(body);
                    }
                    case 1 -> { // a length at the limit (then whatever follows is its body), just over it, or far over it
                        int n = random.nextBoolean() ? limit - 1 + random.nextInt(3) : limit + 1 + random.nextInt(Integer.MAX_VALUE - limit - 1);
                        bytes.write(java.nio.ByteBuffer.allocate(4).putInt(random.nextInt(20) == 0 ? -n : n).array());
                    }
                    default -> Frames.write(bytes, message(f, random.nextInt(random.nextBoolean() ? 100 : 60_000) % limit, random));
                }
            }
            byte[] all = bytes.toByteArray();
            byte[] stream = random.nextInt(3) == 0 ? java.util.Arrays.copyOf(all, random.nextInt(all.length + 1)) : all;
            Socket[] s = pair(random.nextBoolean());
            var writing = CompletableFuture.runAsync(() -> {
                try {
                    s[0].getOutputStream().write(stream);
                    s[0].shutdownOutput();
                } catch (IOException e) {
                    // the reader stopped at a broken frame and its side may be closed: what it read is compared
                }
            });
            var expected = new java.io.ByteArrayInputStream(stream);
            var reader = new FrameReader(s[1]);
            for (int f = 0; ; f++) {
                Object want;
                try {
                    want = Frames.read(expected, ClientMessage.parser(), limit);
                } catch (Frames.FrameException e) {
                    want = e.getMessage();
                }
                Object got;
                try {
                    got = reader.read(ClientMessage.parser(), limit);
                } catch (Frames.FrameException e) {
                    got = e.getMessage();
                }
                assertEquals(want, got, "run " + run + ", frame " + f);
                if (!(want instanceof ClientMessage)) break; // the end, or a broken frame after which nothing can be trusted
            }
            s[1].close();
            writing.get();
        }
    }
}
