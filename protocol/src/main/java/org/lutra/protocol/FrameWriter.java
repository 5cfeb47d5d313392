package org.lutra.protocol;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Writes {@link Frames} to one socket: each frame serialized into a buffer of its own and sent
 * in one write, over a plain TCP socket opened as a {@link SocketChannel} from a direct buffer
 * (the JDK copies a byte array through a temporary direct buffer per write), over TLS to the
 * socket's stream. A frame larger than the buffer is serialized once and sent in buffer-sized
 * pieces, so no large direct buffer is ever made. Writes of several threads are serialized.
 */
public final class FrameWriter {
    private final SocketChannel channel;
    private final OutputStream stream;
    private final ByteBuffer buffer;

    public FrameWriter(Socket socket) throws IOException {
        this.channel = FrameReader.plainChannel(socket);
        this.stream = socket.getOutputStream();
        this.buffer = channel != null ? ByteBuffer.allocateDirect(FrameReader.BUFFER_BYTES) : ByteBuffer.allocate(FrameReader.BUFFER_BYTES);
    }

    /** Writes one frame; it has left when this returns. */
    public synchronized void write(MessageLite message) throws IOException {
        int size = message.getSerializedSize();
        buffer.clear();
        if (4L + size <= buffer.capacity()) {
            buffer.putInt(size);
            var out = CodedOutputStream.newInstance(buffer);
            message.writeTo(out);
            out.flush(); // moves the buffer's position past the message
            send(buffer.flip());
            return;
        }
        byte[] frame = new byte[4 + size];
        ByteBuffer.wrap(frame).putInt(size);
        message.writeTo(CodedOutputStream.newInstance(frame, 4, size));
        if (channel == null) {
            stream.write(frame);
            stream.flush();
            return;
        }
        for (int at = 0; at < frame.length; at += buffer.capacity()) {
            buffer.clear();
            buffer.put(frame, at, Math.min(buffer.capacity(), frame.length - at));
            send(buffer.flip());
        }
    }

    private void send(ByteBuffer bytes) throws IOException {
        if (channel == null) {
            stream.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            stream.flush();
            return;
        }
        while (bytes.hasRemaining()) channel.write(bytes);
    }
}
