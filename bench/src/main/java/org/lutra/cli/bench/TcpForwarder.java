package org.lutra.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A proxy that does nothing but copy bytes: each accepted connection gets a connection to the
 * target and two platform threads copying in each direction. {@code bench point} reads the shard
 * through it as the yardstick of what any proxy costs on this machine (the extra hop's system
 * calls, wake-ups and loopback traffic) before a router does any work.
 */
final class TcpForwarder implements AutoCloseable {
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;

    TcpForwarder(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("forwarder-accept").start(this::accept);
    }

    int port() {
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

    private static void copy(Socket from, Socket to) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread.ofPlatform().daemon().name("forwarder-copy").start(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                int n;
                while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
            } catch (IOException e) {
                // the other side closed: close both below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing is all that is left to do
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
