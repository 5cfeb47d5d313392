package org.lutra.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 that a test can take down (its port closed, every connection through it
 * cut, as when a server or its network goes away) and bring up again on the same port.
 */
final class TcpProxy implements AutoCloseable {
    private final int targetPort;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        try (var probe = new ServerSocket(0)) {
            this.port = probe.getLocalPort();
        }
        up();
    }

    int port() {
        return port;
    }

    synchronized void up() throws IOException {
        var s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress("127.0.0.1", port));
        listener = s;
        Thread.ofPlatform().daemon().name("proxy-accept-" + port).start(() -> accept(s));
    }

    /** Closes the port and cuts every connection through the proxy. */
    synchronized void down() throws IOException {
        listener.close();
        for (var s : open) s.close();
        open.clear();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                var client = s.accept();
                var server = new Socket("127.0.0.1", targetPort);
                open.add(client);
                open.add(server);
                pump(client.getInputStream(), server.getOutputStream(), client, server);
                pump(server.getInputStream(), client.getOutputStream(), client, server);
            } catch (IOException e) {
                // closed, or the target refused: the client sees its connection end
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

    @Override
    public void close() throws IOException {
        down();
    }
}
