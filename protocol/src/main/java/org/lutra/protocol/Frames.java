package org.lutra.protocol;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Length-prefixed framing: a 4-byte big-endian length, then that many bytes of one protobuf
 * message. The reader checks the length against a limit before allocating, and allocates as
 * the bytes arrive, so a hostile or broken peer cannot make us hold more than it sent.
 */
public final class Frames {
    /** Default largest frame either side accepts: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 << 20;

    private Frames() {}

    /** Writes one frame and flushes. Not thread-safe: callers serialize writes per stream. */
    public static void write(OutputStream out, MessageLite message) throws IOException {
        byte[] frame = serialize(message, null);
        out.write(frame, 0, 4 + message.getSerializedSize());
        out.flush();
    }

    /** {@code message} as a frame, in {@code reuse} if it fits there, else in a new array; the frame is its first 4 + size bytes. */
    static byte[] serialize(MessageLite message, byte[] reuse) throws IOException {
        int size = message.getSerializedSize();
        byte[] frame = reuse != null && 4L + size <= reuse.length ? reuse : new byte[4 + size];
        frame[0] = (byte) (size >>> 24);
        frame[1] = (byte) (size >>> 16);
        frame[2] = (byte) (size >>> 8);
        frame[3] = (byte) size;
        message.writeTo(com.google.protobuf.CodedOutputStream.newInstance(frame, 4, size));
        return frame;
    }

    /**
     * Reads one frame. Returns null on a clean end of stream before the first length byte.
     *
     * @throws FrameException the frame is larger than {@code maxBytes}, truncated, or not a valid message
     */
    public static <T extends MessageLite> T read(InputStream in, Parser<T> parser, int maxBytes) throws IOException {
        var data = new DataInputStream(in);
        int first = data.read();
        if (first < 0) {
            return null;
        }
        int size;
        try {
            size = (first << 24) | (data.readUnsignedByte() << 16) | (data.readUnsignedByte() << 8) | data.readUnsignedByte();
        } catch (EOFException e) {
            throw new FrameException("connection closed inside a frame header");
        }
        if (size < 0 || size > maxBytes) {
            throw new FrameException("frame of " + Integer.toUnsignedLong(size) + " bytes exceeds the limit of " + maxBytes + " bytes");
        }
        byte[] body = readBody(data, size);
        try {
            return parser.parseFrom(body);
        } catch (InvalidProtocolBufferException e) {
            throw new FrameException("malformed message in a frame of " + size + " bytes: " + e.getMessage());
        }
    }

    /** Bodies up to this size are allocated at once; larger ones grow as their bytes arrive. */
    static final int FIRST_CHUNK = 64 << 10;

    /**
     * The body, allocated as it arrives: a peer that announces 16 MiB and sends one byte has us
     * hold 64 KiB, not 16 MiB (80 such sockets once took a 1 GB heap). The buffer doubles, so a
     * large frame is copied at most about twice over.
     */
    private static byte[] readBody(DataInputStream data, int size) throws IOException {
        byte[] body = new byte[Math.min(size, FIRST_CHUNK)];
        int filled = 0;
        try {
            while (true) {
                data.readFully(body, filled, body.length - filled);
                filled = body.length;
                if (filled == size) return body;
                body = java.util.Arrays.copyOf(body, (int) Math.min(size, 2L * filled));
            }
        } catch (EOFException e) {
            throw new FrameException("connection closed inside a frame of " + size + " bytes");
        }
    }

    /** A frame that breaks the protocol. The session that sent it cannot continue. */
    public static final class FrameException extends IOException {
        public FrameException(String message) {
            super(message);
        }
    }
}
