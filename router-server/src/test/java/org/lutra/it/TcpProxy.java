package org.lutra.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 that a test can take down (every connection through it cut, and every new one closed
 * as soon as it is accepted, as when a server or its network goes away) and bring up again.
 *
 * <p>The port stays bound while the proxy is down: a port given back to the system could be taken in the meantime
 * (it is in the ephemeral range, so even a client's own connect to it can bind it as its source port and connect
 * to itself), and the proxy could then not have it back.
 */
final class TcpProxy implements AutoCloseable {
    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger forwarded = new AtomicInteger();
    private volatile boolean up = true;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("proxy-accept-" + listener.getLocalPort()).start(this::accept);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Connections are forwarded again. */
    void up() {
        up = true;
    }

    /** Cuts every connection through the proxy; new ones are closed once accepted until {@link #up}. */
    synchronized void down() throws IOException {
        up = false;
        for (var s : open) s.close();
        open.clear();
    }

    /** What the proxy saw, for a failing test's message. */
    @Override
    public String toString() {
        return "proxy :" + port() + " -> :" + targetPort + (up ? " up" : " down") + ", " + accepted + " connections accepted, " + forwarded + " forwarded";
    }

    private void accept() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue; // closed (the loop ends), or one accept failed
            }
            accepted.incrementAndGet();
            try {
                if (!up) throw new IOException("down");
                var server = new Socket("127.0.0.1", targetPort);
                open.add(client);
                open.add(server);
                forwarded.incrementAndGet();
                pump(client.getInputStream(), server.getOutputStream(), client, server);
                pump(server.getInputStream(), client.getOutputStream(), client, server);
            } catch (IOException e) {
                closeQuietly(client); // down, or the target refused: the client sees its connection end
            }
        }
    }
    private void pump(InputStream in, OutputStream out, Socket a, Socket b) {
        Thread.ofPlatform().daemon().name("proxy-pump").start(() -> {
            byte[] buffer = new byte[16384];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away
            } finally {
                try {
                    a.close();
                    b.close();
                } catch (IOException ignored) {
                    // closing
                }
                open.remove(a);
                open.remove(b);
            }
        });
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        down();
        listener.close();
    }
}
