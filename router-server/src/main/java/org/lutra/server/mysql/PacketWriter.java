package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Builds server packets into one buffer: {@link #begin} reserves the 4-byte header, {@link #end}
 * fills in the payload's length and the next sequence id, splitting a payload of 16 MB or more into
 * pieces as the protocol wants. {@link #take} hands the buffer over for writing.
 */
final class PacketWriter {
    private final ByteBufAllocator alloc;
    private ByteBuf out;
    private int start;
    private int sequence;

    PacketWriter(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** The next packet's sequence id: a command's answer continues the client's numbering. */
    void sequence(int next) {
        this.sequence = next & 0xFF;
    }

    int sequence() {
        return sequence;
    }

    /** A new packet: its payload is written to the returned buffer, then {@link #end} is called. */
    ByteBuf begin() {
        if (out == null) out = alloc.buffer(256);
        start = out.writerIndex();
        out.writeMediumLE(0).writeByte(0);
        return out;
    }

    void end() {
        int length = out.writerIndex() - start - 4;
        if (length < MysqlWire.MAX_PACKET_PAYLOAD) {
            out.setMediumLE(start, length);
            out.setByte(start + 3, sequence);
            sequence = (sequence + 1) & 0xFF;
            return;
        }
        ByteBuf payload = out.copy(start + 4, length);
        out.writerIndex(start);
        try {
            while (true) {
                int piece = Math.min(payload.readableBytes(), MysqlWire.MAX_PACKET_PAYLOAD);
                out.writeMediumLE(piece).writeByte(sequence);
                sequence = (sequence + 1) & 0xFF;
                out.writeBytes(payload, piece);
                if (piece < MysqlWire.MAX_PACKET_PAYLOAD) break; // a last piece of exactly 0xFFFFFF bytes is followed by an empty one
            }
        } finally {
            payload.release();
        }
    }

    /** Bytes built and not taken yet. */
    int pending() {
        return out == null ? 0 : out.readableBytes();
    }

    /** The packets built so far (null if none); the caller writes and so releases them, or gives the buffer back ({@link #reuse}). */
    ByteBuf take() {
        ByteBuf b = out;
        if (b == null || !b.isReadable()) return null; // an empty buffer given back stays for the next answer
        out = null;
        return b;
    }

    /** The largest buffer kept for the next answer: a large result's is given back to the allocator. */
    private static final int KEPT_BYTES = 16 << 10;

    /**
     * A buffer {@link #take} gave, written out whole: the next answer is built in it rather than in a new one from the
     * pooled allocator (whose magazines a worker thread shares with the others). Released by {@link #discard}.
     */
    void reuse(ByteBuf b) {
        if (out == null && b.capacity() <= KEPT_BYTES) out = b.clear();
        else b.release();
    }

    /** Drops what was built and not taken, and a buffer kept for reuse (the connection is closing, or idle). */
    void discard() {
        if (out != null) {
            out.release();
            out = null;
        }
    }
}
