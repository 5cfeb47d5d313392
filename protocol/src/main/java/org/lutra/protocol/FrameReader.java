package org.lutra.protocol;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Reads {@link Frames} from one socket through a buffer of its own: no stream wrappers, and no
 * allocation per frame up to the buffer's size.
 *
 * <p>Why not {@code BufferedInputStream} over the socket's stream: every read of a socket stream
 * into a byte array goes through a temporary direct buffer the JDK looks up per call, and the
 * stream wrappers lock per call. On a point select at 16 clients this took the driver's framing
 * and socket reads from 24.9 % to 21.1 % of its samples, the router's framing from 7.6 % to about
 * 7.3 % (./lutra bench point with async-profiler attached). Over a plain TCP socket opened as a
 * {@link SocketChannel} this reader reads the channel into a direct buffer. Over TLS, and while the
 * socket has a read timeout (the channel itself has none), it reads the socket's stream, which
 * applies the timeout; both read into the same buffer, so switching loses nothing.
 *
 * <p>Limits hold as in {@link Frames#read}: the length is checked before anything is allocated, and
 * a body larger than the buffer is allocated as its bytes arrive. Not thread-safe: one reader per
 * socket, used by one thread at a time.
 */
public final class FrameReader {
    /** The buffer's size: frames up to this size (less the header) are parsed in place. */
    static final int BUFFER_BYTES = 32 << 10;

    private final Socket socket;
    private final SocketChannel channel;
    private final InputStream stream;
    /** Bytes read and not yet consumed, between position and limit. */
    private final ByteBuffer buffer;
    /** A direct buffer's frame copied for parsing, and a stream's reads into a direct buffer; allocated at first use. */
    private byte[] scratch;

    public FrameReader(Socket socket) throws IOException {
        this.socket = socket;
        this.channel = plainChannel(socket);
        this.stream = socket.getInputStream();
        this.buffer = (channel != null ? ByteBuffer.allocateDirect(BUFFER_BYTES) : ByteBuffer.allocate(BUFFER_BYTES)).flip();
    }

    /**
     * The channel under a plain TCP socket; null for a TLS socket, whose bytes on the channel are
     * TLS records (a TLS socket layered over a channel's socket answers getChannel() with that channel).
     */
    static SocketChannel plainChannel(Socket socket) {
        return socket instanceof javax.net.ssl.SSLSocket ? null : socket.getChannel();
    }

    /**
     * Reads one frame. Returns null on a clean end of stream before the first length byte.
     *
     * @throws Frames.FrameException the frame is larger than {@code maxBytes}, truncated, or not a valid message
     */
    public <T extends MessageLite> T read(Parser<T> parser, int maxBytes) throws IOException {
        if (!buffer.hasRemaining() && fill() < 0) return null;
        while (buffer.remaining() < 4) {
            if (fill() < 0) throw new Frames.FrameException("connection closed inside a frame header");
        }
        int size = buffer.getInt();
        if (size < 0 || size > maxBytes) {
            throw new Frames.FrameException("frame of " + Integer.toUnsignedLong(size) + " bytes exceeds the limit of " + maxBytes + " bytes");
        }
        try {
            if (size > buffer.capacity()) return parser.parseFrom(largeBody(size));
            while (buffer.remaining() < size) {
                if (fill() < 0) throw new Frames.FrameException("connection closed inside a frame of " + size + " bytes");
            }
            // parsed from an array, protobuf's fastest decoder (one over a direct buffer costs more to set up than the copy)
            if (buffer.hasArray()) {
                int at = buffer.position();
                buffer.position(at + size);
                return parser.parseFrom(buffer.array(), buffer.arrayOffset() + at, size);
            }
            if (scratch == null) scratch = new byte[BUFFER_BYTES];
            buffer.get(scratch, 0, size);
            return parser.parseFrom(scratch, 0, size);
        } catch (InvalidProtocolBufferException e) {
            throw new Frames.FrameException("malformed message in a frame of " + size + " bytes: " + e.getMessage());
        }
    }

    /**
     * Whether bytes of a next frame have arrived, waiting for them at most as long as the socket's
     * read timeout says; false at the end of the stream. A timeout throws the stream's
     * {@link java.net.SocketTimeoutException} and consumes nothing.
     */
    public boolean awaitBytes() throws IOException {
        return buffer.hasRemaining() || fill() > 0;
    }

    /**
     * A body larger than the buffer, allocated as it arrives: a peer that announces 16 MiB and
     * sends one byte has us hold 64 KiB, not 16 MiB. The array doubles, so a large frame is copied
     * at most about twice over.
     */
    private byte[] largeBody(int size) throws IOException {
        byte[] body = new byte[Math.min(size, Frames.FIRST_CHUNK)];
        int filled = 0;
        while (filled < size) {
            if (!buffer.hasRemaining() && fill() < 0) throw new Frames.FrameException("connection closed inside a frame of " + size + " bytes");
            if (filled == body.length) body = java.util.Arrays.copyOf(body, (int) Math.min(size, 2L * filled));
            int n = Math.min(buffer.remaining(), body.length - filled);
            buffer.get(body, filled, n);
            filled += n;
        }
        return body;
    }

    /** Reads what has arrived (at least one byte, blocking) behind the unread bytes; -1 at the end of the stream. */
    private int fill() throws IOException {
        buffer.compact();
        try {
            if (!buffer.hasRemaining()) throw new IllegalStateException("fill() on a full buffer");
            if (channel != null && socket.getSoTimeout() == 0) return channel.read(buffer);
            if (buffer.hasArray()) {
                int n = stream.read(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
                if (n > 0) buffer.position(buffer.position() + n);
                return n;
            }
            if (scratch == null) scratch = new byte[BUFFER_BYTES];
            int n = stream.read(scratch, 0, Math.min(scratch.length, buffer.remaining()));
            if (n > 0) buffer.put(scratch, 0, n);
            return n;
        } catch (EOFException e) {
            return -1;
        } finally {
            buffer.flip();
        }
    }
}
