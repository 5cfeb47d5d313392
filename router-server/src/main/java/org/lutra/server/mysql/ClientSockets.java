package org.lutra.server.mysql;

import io.netty.channel.Channel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * Netty's NIO channels with the JDK socket reachable, so that a connection's worker thread can read and write it
 * itself while the connection is busy ({@link DirectSocket}). The JDK's {@link SocketChannel} makes that safe where a
 * raw descriptor is not: a close by the event loop waits for a read or write in progress on another thread, and
 * the descriptor is released only once every selector has let the channel go, so a worker can never reach a
 * descriptor number the kernel has handed to a newer connection.
 */
final class ClientSockets {
    private ClientSockets() {}

    /** The listening socket: accepts into {@link Client} channels. */
    static final class Server extends NioServerSocketChannel {
        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            SocketChannel ch = javaChannel().accept();
            if (ch == null) return 0;
            try {
                buf.add(new Client(this, ch));
                return 1;
            } catch (Throwable t) {
                ch.close();
                throw t;
            }
        }
    }

    /** A client connection whose JDK socket its worker may use. */
    static final class Client extends NioSocketChannel {
        Client(Channel parent, SocketChannel socket) {
            super(parent, socket);
        }

        SocketChannel socket() {
            return javaChannel();
        }
    }
}
