package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits the client's bytes into MySQL packets: a 3-byte little-endian payload length, a sequence
 * id, the payload; a payload of 0xFFFFFF bytes continues in the next packet, and the pieces make one
 * {@link Packet}. A packet is passed on only once all its bytes are in: bytes are buffered as they
 * arrive, so a header announcing 16 MB costs nothing until they come. A payload longer than
 * {@link #maxPayload} (the login's bound before login, {@code max_frame_bytes} after) is refused
 * as soon as its header says so: a {@link TooLarge} goes down the pipeline instead.
 */
final class PacketDecoder extends ByteToMessageDecoder {
    /** One whole client packet (its pieces joined); the receiver releases {@code payload}. */
    record Packet(int sequence, ByteBuf payload) {}

    /** A packet over the bound: the connection answers it with an error and closes. */
    record TooLarge(long announced, int max) {}

    /** A packet announcing a TLS upgrade (Protocol::SSLRequest): TLS is in the pipeline before the next byte is read. */
    record TlsRequested(int sequence, int capabilities) {}

    /** Protocol::SSLRequest: capabilities, max packet size, character set and 23 bytes of filler. */
    private static final int SSL_REQUEST_LENGTH = 32;

    private volatile int maxPayload;
    /** Makes the TLS handler for a client's SSLRequest, or null when the router has no certificate. */
    private final java.util.function.Supplier<io.netty.handler.ssl.SslHandler> tls;
    /** Whether the next packet is the client's first (its handshake response, or an SSLRequest). */
    private boolean first = true;
    /** Pieces of a packet longer than 0xFFFFFF bytes read so far, or null. */
    private ByteBuf pending;
    private boolean refused;

    PacketDecoder(int maxPayload, java.util.function.Supplier<io.netty.handler.ssl.SslHandler> tls) {
        this.maxPayload = maxPayload;
        this.tls = tls;
    }

    void maxPayload(int max) {
        this.maxPayload = max;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decode(ctx, ctx.alloc(), in, out);
    }

    /**
     * The same cutting for bytes a connection's worker read from the socket itself ({@link DirectSocket}), after the
     * login: the event loop does not read meanwhile, so this decoder's state passes between the two with the socket.
     */
    void cut(io.netty.buffer.ByteBufAllocator alloc, ByteBuf in, List<Object> out) {
        if (first) throw new IllegalStateException("the first packet is cut on the event loop");
        decode(null, alloc, in, out);
    }

    /** Whether bytes of a packet not whole yet wait in this decoder's buffer (read on the event loop only). */
    boolean holdsBytes() {
        return internalBuffer().isReadable();
    }

    private void decode(ChannelHandlerContext ctx, io.netty.buffer.ByteBufAllocator alloc, ByteBuf in, List<Object> out) {
        while (!refused && in.readableBytes() >= 4) {
            int length = in.getUnsignedMediumLE(in.readerIndex());
            int sequence = in.getUnsignedByte(in.readerIndex() + 3);
            long total = (pending == null ? 0 : pending.readableBytes()) + (long) length;
            if (total > maxPayload) {
                refused = true; // nothing more is read from this client
                in.skipBytes(in.readableBytes());
                release();
                out.add(new TooLarge(total, maxPayload));
                return;
            }
            if (in.readableBytes() < 4 + length) return;
            in.skipBytes(4);
            ByteBuf piece = in.readRetainedSlice(length);
            if (length == MysqlWire.MAX_PACKET_PAYLOAD) {
                if (pending == null) pending = alloc.compositeBuffer(Integer.MAX_VALUE);
                ((io.netty.buffer.CompositeByteBuf) pending).addComponent(true, piece);
                continue;
            }
            if (pending != null) {
                ((io.netty.buffer.CompositeByteBuf) pending).addComponent(true, piece);
                piece = pending;
                pending = null;
            }
            if (first && ctx != null && tls != null && length == SSL_REQUEST_LENGTH && (piece.getIntLE(piece.readerIndex()) & MysqlWire.CLIENT_SSL) != 0) {
                // The client's next bytes are its TLS ClientHello, possibly read already: TLS goes in before this decoder,
                // and whatever was read after the request goes through it, before any later read can.
                first = false;
                int capabilities = piece.getIntLE(piece.readerIndex());
                piece.release();
                out.add(new TlsRequested(sequence, capabilities));
                ctx.pipeline().addBefore(ctx.name(), "tls", tls.get());
                if (in.isReadable()) ctx.pipeline().fireChannelRead(in.readRetainedSlice(in.readableBytes()));
                return;
            }
            first = false;
            out.add(new Packet(sequence, piece));
        }
        if (refused) in.skipBytes(in.readableBytes());
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        release();
    }

    private void release() {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }
}
