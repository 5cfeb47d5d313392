package org.lutra.backend;

import com.mysql.cj.conf.PropertySet;
import com.mysql.cj.protocol.StandardSocketFactory;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Connector/J's socket factory for the backend pools, with sockets that stay in blocking mode.
 *
 * <p>Why: the JDK's socket switches to non-blocking mode for good the first time anything on it
 * waits with a time limit (a connect timeout, the login timeout HikariCP sets during the
 * handshake, an SO_TIMEOUT). From then on every read of a result is three system calls instead of
 * one: a read that finds nothing yet ({@code EAGAIN}), a {@code poll}, and the read again. On the
 * router's hottest path, a point select, that was 7 system calls where 5 do (read the request,
 * Connector/J's {@code available()} check, write to the shard, read its answer, write the reply).
 *
 * <p>How time limits still hold: a connect or a read that must end within a time is guarded by a
 * timer that closes the socket when the time is up, which ends a blocking call at once; the caller
 * then gets a {@link SocketTimeoutException}, and Connector/J, as with any socket timeout, drops the
 * connection. Reads with no time limit (pooled connections, the common case) arm nothing.
 */
public final class BlockingSocketFactory extends StandardSocketFactory {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lutra-socket-timer");
        t.setDaemon(true);
        return t;
    });

    @Override
    protected Socket createSocket(PropertySet props) {
        return new BlockingSocket();
    }

    /** The same sockets for MariaDB Connector/J, which takes a {@link javax.net.SocketFactory} and connects the socket itself. */
    public static final class Plain extends javax.net.SocketFactory {
        @Override
        public Socket createSocket() {
            return new BlockingSocket();
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return connected(new java.net.InetSocketAddress(host, port), null);
        }

        @Override
        public Socket createSocket(String host, int port, java.net.InetAddress localHost, int localPort) throws IOException {
            return connected(new java.net.InetSocketAddress(host, port), new java.net.InetSocketAddress(localHost, localPort));
        }

        @Override
        public Socket createSocket(java.net.InetAddress host, int port) throws IOException {
            return connected(new java.net.InetSocketAddress(host, port), null);
        }

        @Override
        public Socket createSocket(java.net.InetAddress address, int port, java.net.InetAddress localAddress, int localPort) throws IOException {
            return connected(new java.net.InetSocketAddress(address, port), new java.net.InetSocketAddress(localAddress, localPort));
        }

        private static Socket connected(SocketAddress to, SocketAddress from) throws IOException {
            Socket s = new BlockingSocket();
            if (from != null) s.bind(from);
            s.connect(to, 0);
            return s;
        }
    }

    /** A socket whose time limits are timers that close it, so that it never leaves blocking mode. */
    static final class BlockingSocket extends Socket {
        private volatile int readTimeoutMillis;
        private volatile InputStream in;

        @Override
        public void connect(SocketAddress endpoint, int timeoutMillis) throws IOException {
            Guard guard = Guard.arm(this, timeoutMillis);
            try {
                super.connect(endpoint, 0); // untimed: a timed connect would make the socket non-blocking
            } catch (IOException e) {
                throw guard.explain(e, "connect timed out");
            } finally {
                guard.disarm();
            }
        }

        @Override
        public void setSoTimeout(int timeoutMillis) {
            readTimeoutMillis = timeoutMillis; // kept here: the JDK's SO_TIMEOUT would make the socket non-blocking
        }

        @Override
        public int getSoTimeout() {
            return readTimeoutMillis;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            InputStream s = in;
            if (s == null) {
                s = new TimedInput(super.getInputStream(), this);
                in = s;
            }
            return s;
        }
    }

    /** Reads within the socket's read time limit, if it has one. */
    private static final class TimedInput extends FilterInputStream {
        private final BlockingSocket socket;

        TimedInput(InputStream in, BlockingSocket socket) {
            super(in);
            this.socket = socket;
        }

        @Override
        public int read() throws IOException {
            int timeout = socket.readTimeoutMillis;
            if (timeout <= 0) return in.read();
            Guard guard = Guard.arm(socket, timeout);
            try {
                return in.read();
            } catch (IOException e) {
                throw guard.explain(e, "Read timed out");
            } finally {
                guard.disarm();
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int timeout = socket.readTimeoutMillis;
            if (timeout <= 0) return in.read(b, off, len);
            Guard guard = Guard.arm(socket, timeout);
            try {
                return in.read(b, off, len);
            } catch (IOException e) {
                throw guard.explain(e, "Read timed out");
            } finally {
                guard.disarm();
            }
        }

        /**
         * The socket's own answer (an {@code ioctl}): Connector/J asks before every command whether stale
         * bytes wait, and that is how it finds a connection the server killed or reset while it sat in the
         * pool before it sends a command on it (answering 0 here made an XA COMMIT go out on a killed
         * connection, where it fails with its outcome unknown: TwoPhaseWindowsIT).
         */
        @Override
        public int available() throws IOException {
            return in.available();
        }
    }

    /** A timer that closes a socket unless disarmed first. */
    private static final class Guard {
        private static final Guard NONE = new Guard();
        private final ScheduledFuture<?> timer;
        private final AtomicBoolean fired = new AtomicBoolean();

        private Guard() {
            timer = null;
        }

        private Guard(Socket socket, int millis) {
            timer = TIMER.schedule(() -> {
                fired.set(true);
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing is all the timer does
                }
            }, millis, TimeUnit.MILLISECONDS);
        }

        static Guard arm(Socket socket, int millis) {
            return millis > 0 ? new Guard(socket, millis) : NONE;
        }

        void disarm() {
            if (timer != null) timer.cancel(false);
        }

        /** {@code e}, or a timeout in its place if this timer closed the socket under the call. */
        IOException explain(IOException e, String message) {
            if (!fired.get()) return e;
            var timeout = new SocketTimeoutException(message);
            timeout.initCause(e);
            return timeout;
        }
    }
}
