package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plaintext connection's socket used by its worker thread itself while the client keeps it busy. Through Netty
 * alone a statement wakes three threads in turn: the event loop reads the command and wakes a worker, the worker
 * runs it and wakes the event loop again to write the answer. Here the worker writes the answer on the socket
 * itself, and after a command keeps reading the connection for {@link #LINGER_MILLIS}, so that a client's next
 * command wakes the worker directly: a statement costs the wake-ups of a Lutra session's thread.
 *
 * <p>Who reads: the event loop, until {@link #take} (run on the loop: it stops reading there, and only when its
 * decoder holds no part of a packet); then the worker, until {@link #giveBack} (the bytes of a packet not whole yet
 * go back through the loop's decoder before it reads again). Who writes: the worker directly while nothing it
 * handed to Netty is unwritten; what the socket does not take at once goes to Netty, and so do later answers until
 * Netty has written it all, which keeps the order and the backpressure of the outbound buffer's high-water mark.
 * TLS connections never come here: their bytes go through Netty's {@link io.netty.handler.ssl.SslHandler}.
 */
final class DirectSocket {
    /** How long a worker keeps reading a connection whose client sends nothing before it gives it back to the event loop. */
    static final long LINGER_MILLIS = 10;
    private static final int READ_BYTES = 16 << 10;

    /** What {@link #read} found. */
    enum Read { PACKETS, IDLE, GONE }

    private final ClientSockets.Client channel;
    private final PacketDecoder decoder;
    /** Writes handed to Netty and not yet written to the socket. */
    private final AtomicInteger queuedWrites = new AtomicInteger();
    /** The worker's selector while it reads the connection; null while the event loop does. */
    private volatile Selector selector;
    /** Bytes read by the worker and not yet cut into packets (the start of a packet), or null. */
    private ByteBuf received;
    /**
     * The last read's buffer, all cut into packets: read into again once those are released (the pooled allocator's
     * magazines are shared by the workers), else released. Null if none.
     */
    private ByteBuf spare;

    DirectSocket(ClientSockets.Client channel, PacketDecoder decoder) {
        this.channel = channel;
        this.decoder = decoder;
    }

    /**
     * Writes {@code b}. True when it went to the socket whole here and is the caller's again (to reuse or release);
     * false when it is released or Netty's to write and release.
     */
    boolean write(ByteBuf b) {
        if (queuedWrites.get() == 0 && b.nioBufferCount() == 1) {
            try {
                ByteBuffer bytes = b.nioBuffer();
                int written = 0;
                while (bytes.hasRemaining()) {
                    int n = channel.socket().write(bytes);
                    if (n <= 0) break; // the socket's buffer is full: Netty writes the rest when it drains
                    written += n;
                }
                if (!bytes.hasRemaining()) return true;
                b.skipBytes(written);
            } catch (IOException e) { // the client is gone: the loop closes the channel and the connection finishes
                b.release();
                channel.close();
                return false;
            }
        }
        queuedWrites.incrementAndGet();
        channel.writeAndFlush(b).addListener(f -> queuedWrites.decrementAndGet());
        return false;
    }

    boolean reading() {
        return selector != null;
    }

    /** Takes reading over from the event loop; false when it cannot now (part of a packet buffered there, the channel closed). */
    boolean take() {
        boolean taken;
        try {
            taken = channel.eventLoop().submit(() -> {
                if (!channel.isActive() || decoder.holdsBytes()) return false;
                channel.config().setAutoRead(false); // on the loop: no read of its own follows
                return true;
            }).get();
        } catch (ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (!taken) return false;
        try {
            var s = Selector.open();
            channel.socket().register(s, SelectionKey.OP_READ);
            selector = s;
            return true;
        } catch (IOException e) { // no selector, or the channel closed meanwhile: the loop reads again
            closeSelector();
            giveBack();
            return false;
        }
    }

    /**
     * Waits up to {@link #LINGER_MILLIS} for the client's next packets and adds them to {@code into}. Returns early,
     * with nothing read, when {@code into} gets something from the loop (the channel closed). GONE: the client hung up
     * or the socket failed; the channel is closed.
     */
    Read read(Queue<Object> into, ConnectionLimits limits) {
        var s = selector;
        long end = System.nanoTime() + LINGER_MILLIS * 1_000_000L;
        try {
            while (into.isEmpty()) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) return Read.IDLE;
                if (s.select(IGNORED, left) == 0) continue;
                if (received == null) received = readBuffer();
                received.ensureWritable(READ_BYTES >> 2);
                int n = received.writeBytes(channel.socket(), received.writableBytes());
                if (n < 0) {
                    gone();
                    return Read.GONE;
                }
                if (n == 0) continue;
                List<Object> packets = new ArrayList<>(2);
                decoder.cut(channel.alloc(), received, packets);
                keepUnread();
                if (packets.isEmpty()) continue;
                if (!limits.accept(packets)) return Read.PACKETS;
                into.addAll(packets);
                return Read.PACKETS;
            }
            return Read.PACKETS;
        } catch (IOException e) {
            gone();
            return Read.GONE;
        }
    }

    /** The selector's keys are not collected: there is one, this connection's, and a ready key means read. */
    private static final java.util.function.Consumer<SelectionKey> IGNORED = k -> { };

    /** An empty buffer to read into: the spare one if the packets cut from it are all released, else a new one. */
    private ByteBuf readBuffer() {
        ByteBuf b = spare;
        spare = null;
        if (b != null && b.refCnt() == 1) return b.clear();
        if (b != null) b.release();
        return channel.alloc().ioBuffer(READ_BYTES);
    }

    /** Whether the caller may keep the packets just read: the connection's own check (the idle sweep's claim). */
    interface ConnectionLimits {
        boolean accept(List<Object> packets);
    }

    /** Wakes the worker waiting in {@link #read} (something was queued for it by the loop). */
    void wakeup() {
        var s = selector;
        if (s != null) s.wakeup();
    }

    /** Gives reading back to the event loop, with the bytes of a packet not whole yet. */
    void giveBack() {
        closeSelector();
        releaseSpare();
        ByteBuf unread = received;
        received = null;
        channel.eventLoop().execute(() -> {
            if (unread != null) {
                if (channel.isActive()) {
                    channel.pipeline().fireChannelRead(unread);
                    channel.pipeline().fireChannelReadComplete();
                } else {
                    unread.release();
                }
            }
            channel.config().setAutoRead(true);
        });
    }

    /** The worker's end: reading is not given back (the channel is closed or closing). */
    void release() {
        closeSelector();
        releaseSpare();
        if (received != null) {
            received.release();
            received = null;
        }
    }

    private void gone() {
        release();
        channel.close();
    }

    /** Keeps the start of a packet read in a buffer of its own: the packets cut from {@code received} share its memory. */
    private void keepUnread() {
        if (!received.isReadable()) {
            releaseSpare();
            spare = received;
            received = null;
            return;
        }
        ByteBuf rest = channel.alloc().ioBuffer(Math.max(READ_BYTES, received.readableBytes()));
        rest.writeBytes(received);
        received.release();
        received = rest;
    }

    private void releaseSpare() {
        if (spare != null) {
            spare.release();
            spare = null;
        }
    }

    private void closeSelector() {
        var s = selector;
        selector = null;
        if (s == null) return;
        try {
            s.close(); // deregisters the channel from it: a close by the loop then releases the descriptor
        } catch (IOException ignored) {
            // nothing held
        }
    }
}
