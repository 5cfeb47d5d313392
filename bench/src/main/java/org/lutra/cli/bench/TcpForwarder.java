package org.lutra.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A proxy that does nothing but copy bytes: each accepted connection gets a connection to the
 * target and two platform threads copying in each direction, the router's own design (a blocking
 * thread per socket, woken per segment). {@code bench point} reads the shard through it to show
 * what the extra hop's system calls, wake-ups and loopback traffic cost before a router does any
 * work; {@link SelectorForwarder} shows the same for an event loop. {@link #cpuNanos()} is the
 * CPU time its copying threads used.
 */
final class TcpForwarder implements Forwarder {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private final ServerSocket server;
    private final Set<Thread> copying = ConcurrentHashMap.newKeySet();
    private long finishedCpuNanos; // guarded by this
    private final String targetHost;
    private final int targetPort;

    TcpForwarder(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("forwarder-accept").start(this::accept);
    }

    @Override
    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                copy(client, target);
                copy(target, client);
            } catch (IOException e) {
                if (!server.isClosed()) System.err.println("forwarder: " + e);
            }
        }
    }

    /** CPU time of the copying threads so far, those that ended included. */
    @Override
    public synchronized long cpuNanos() {
        long total = finishedCpuNanos;
        for (Thread t : copying) total += Math.max(0, THREADS.getThreadCpuTime(t.threadId()));
        return total;
    }

    /** A copying thread's last act: its CPU time moves from the live threads to the finished ones in one step. */
    private synchronized void finished(Thread thread, long cpuNanos) {
        finishedCpuNanos += cpuNanos;
        copying.remove(thread);
    }

    private void copy(Socket from, Socket to) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread thread = Thread.ofPlatform().daemon().name("forwarder-copy").unstarted(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                int n;
                while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
            } catch (IOException e) {
                // the other side closed: close both below
            } finally {
                Forwarder.closeQuietly(from);
                Forwarder.closeQuietly(to);
                finished(Thread.currentThread(), THREADS.getCurrentThreadCpuTime());
            }
        });
        copying.add(thread);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
