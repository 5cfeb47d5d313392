package org.lutra.backend;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The backend sockets keep their time limits although they never use the JDK's (which would make them non-blocking). */
class BlockingSocketFactoryTest {
    @Test
    void aReadWithATimeLimitEndsWithATimeoutWhenNothingComes() throws IOException {
        try (var server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket socket = new BlockingSocketFactory.BlockingSocket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 2_000);
            try (Socket silent = server.accept()) {
                socket.setSoTimeout(300);
                assertEquals(300, socket.getSoTimeout());
                long start = System.nanoTime();
                var e = assertThrows(SocketTimeoutException.class, () -> socket.getInputStream().read(new byte[16]));
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis >= 250 && millis < 5_000, "timed out after " + millis + " ms");
                assertEquals("Read timed out", e.getMessage());
                assertTrue(socket.isClosed(), "the timer closes the socket, as Connector/J drops a connection after a socket timeout");
            }
        }
    }

    @Test
    void readsWithoutATimeLimitWaitForTheBytesAndAvailableIsTheSockets() throws Exception {
        try (var server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket socket = new BlockingSocketFactory.BlockingSocket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 2_000);
            try (Socket peer = server.accept()) {
                peer.getOutputStream().write(new byte[] {1, 2, 3});
                Thread.sleep(50);
                assertEquals(3, socket.getInputStream().available(), "the socket's own count: Connector/J finds dead connections by it");
                var buf = new byte[8];
                assertEquals(3, socket.getInputStream().read(buf));
                socket.setSoTimeout(1_000);
                peer.getOutputStream().write(4);
                assertEquals(4, socket.getInputStream().read(), "a read within its time limit returns the byte");
                socket.setSoTimeout(0);
                var late = Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(400);
                        peer.getOutputStream().write(5);
                    } catch (Exception ignored) {
                        // the assertion below fails then
                    }
                });
                assertEquals(5, socket.getInputStream().read(), "an unlimited read outlasts an earlier limit");
                late.join();
                assertTrue(!socket.isClosed());
            }
        }
    }

    @Test
    void aRefusedConnectIsTheConnectError() throws IOException {
        int port;
        try (var probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        try (Socket socket = new BlockingSocketFactory.BlockingSocket()) {
            var e = assertThrows(IOException.class, () -> socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000));
            assertTrue(!(e instanceof SocketTimeoutException), e.toString());
        }
    }
}
