package org.lutra.protocol;

import com.google.protobuf.MessageLite;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Writes {@link Frames} to one socket: each frame serialized into an array of its own and sent in
 * one write, over a plain TCP socket opened as a {@link SocketChannel} from a direct buffer kept
 * for it (a socket stream copies every write through a temporary direct buffer it looks up per
 * call), over TLS to the socket's stream. A frame larger than the buffer is sent in buffer-sized
 * pieces, so no large direct buffer is ever made. Writes of several threads are serialized.
 */
public final class FrameWriter {
    private final SocketChannel channel;
    private final OutputStream stream;
    /** What the channel writes from: a frame's bytes are copied in, as the JDK would copy them into a temporary buffer of its own. */
    private final ByteBuffer buffer;
    /** Where frames up to the buffer's size are serialized. */
    private final byte[] frameBytes = new byte[FrameReader.BUFFER_BYTES];

    public FrameWriter(Socket socket) throws IOException {
        this.channel = FrameReader.plainChannel(socket);
        this.stream = socket.getOutputStream();
        this.buffer = channel != null ? ByteBuffer.allocateDirect(FrameReader.BUFFER_BYTES) : null;
    }

    /** Writes one frame; it has left when this returns. */
    public synchronized void write(MessageLite message) throws IOException {
        // serialized into an array, protobuf's fastest encoder (one over a direct buffer costs more to set up than the copy)
        byte[] frame = Frames.serialize(message, frameBytes);
        int size = message.getSerializedSize(); // memoized by the message
        if (channel == null) {
            stream.write(frame, 0, 4 + size);
            stream.flush();
            return;
        }
        for (int at = 0; at < 4 + size; at += buffer.capacity()) {
            buffer.clear();
            buffer.put(frame, at, Math.min(buffer.capacity(), 4 + size - at));
            buffer.flip();
            while (buffer.hasRemaining()) channel.write(buffer);
        }
    }
}
