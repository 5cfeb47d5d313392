package org.lutra.cli.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A proxy that does nothing but copy bytes, on one thread and a selector for every connection: the
 * event-loop design, which wakes one thread for all the sockets that became ready together
 * instead of one thread per segment. {@code bench point} runs it beside {@link TcpForwarder}
 * (a thread per direction) as the lower of the two yardsticks: the least CPU any proxy in a
 * process of its own spends per statement on this machine, whatever its design.
 *
 * <p>Each connection is two {@link Pipe}s, one per direction, sharing the two channels' keys.
 * A pipe whose write is short stops reading until its target drains, so a slow reader holds its
 * own bytes, never another connection's. Connecting to the target blocks the loop; a benchmark
 * opens its connections before it measures.
 */
final class SelectorForwarder implements Forwarder {
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread loop;
    private final String targetHost;
    private final int targetPort;
    private volatile boolean closed;

    /** One direction of a connection: bytes read from {@code from} are written to {@code to}. */
    private static final class Pipe {
        final SocketChannel from;
        final SocketChannel to;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
        SelectionKey fromKey;
        SelectionKey toKey;
        Pipe reverse;

        Pipe(SocketChannel from, SocketChannel to) {
            this.from = from;
            this.to = to;
        }
    }

    SelectorForwarder(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        server.configureBlocking(false);
        this.selector = Selector.open();
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.loop = Thread.ofPlatform().daemon().name("forwarder-loop").start(this::run);
    }

    @Override
    public int port() {
        return server.socket().getLocalPort();
    }

    /** The loop thread's CPU time: accepting, selecting and copying for every connection. */
    @Override
    public long cpuNanos() {
        return Math.max(0, ManagementFactory.getThreadMXBean().getThreadCpuTime(loop.threadId()));
    }

    private void run() {
        try {
            while (!closed) {
                selector.select();
                var ready = selector.selectedKeys().iterator();
                while (ready.hasNext()) {
                    SelectionKey key = ready.next();
                    ready.remove();
                    if (key.isValid() && key.isAcceptable()) accept();
                    else if (key.isValid()) serve(key);
                }
            }
        } catch (IOException e) {
            if (!closed) System.err.println("forwarder: " + e);
        }
    }

    /** A channel's key carries the pipe that reads from it; the pipe that writes to it is that pipe's reverse. */
    private static void serve(SelectionKey key) {
        Pipe reading = (Pipe) key.attachment();
        try {
            if (key.isReadable()) copy(reading);
            if (key.isValid() && key.isWritable()) drain(reading.reverse);
        } catch (IOException e) {
            Forwarder.closeQuietly(reading.from);
            Forwarder.closeQuietly(reading.to);
        }
    }

    private void accept() throws IOException {
        SocketChannel client = server.accept();
        if (client == null) return;
        SocketChannel target = SocketChannel.open(new InetSocketAddress(targetHost, targetPort));
        for (SocketChannel c : new SocketChannel[] {client, target}) {
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.configureBlocking(false);
        }
        Pipe up = new Pipe(client, target);
        Pipe down = new Pipe(target, client);
        up.reverse = down;
        down.reverse = up;
        up.fromKey = client.register(selector, SelectionKey.OP_READ, up);
        down.fromKey = target.register(selector, SelectionKey.OP_READ, down);
        up.toKey = down.fromKey;
        down.toKey = up.fromKey;
    }

    private static void copy(Pipe p) throws IOException {
        if (p.from.read(p.buffer) < 0) throw new IOException("closed by the peer");
        p.buffer.flip();
        p.to.write(p.buffer);
        if (p.buffer.hasRemaining()) {
            p.fromKey.interestOps(p.fromKey.interestOps() & ~SelectionKey.OP_READ);
            p.toKey.interestOps(p.toKey.interestOps() | SelectionKey.OP_WRITE);
        } else {
            p.buffer.clear();
        }
    }

    private static void drain(Pipe p) throws IOException {
        p.to.write(p.buffer);
        if (p.buffer.hasRemaining()) return;
        p.buffer.clear();
        p.toKey.interestOps(p.toKey.interestOps() & ~SelectionKey.OP_WRITE);
        p.fromKey.interestOps(p.fromKey.interestOps() | SelectionKey.OP_READ);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        server.close();
    }
}
