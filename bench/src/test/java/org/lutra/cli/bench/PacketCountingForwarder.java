package org.lutra.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.TreeMap;

/**
 * A byte-copying proxy for one MySQL-protocol connection that cuts what it copies into packets and counts, per
 * command the client sent and per direction, the packets, their bytes and the reads it took (a read is a segment the
 * peer wrote, or more coalesced); and, of the server's answers, the status flags and warnings of each closing OK/EOF.
 * Counting starts at the client's first command after the login (the first packet with sequence id 0 after the
 * server's answer to the handshake response) so both sides' logins, which differ by design, are left out.
 */
final class PacketCountingForwarder implements AutoCloseable {
    private final ServerSocket server;
    private final Map<String, Long> counts = new TreeMap<>(); // guarded by this
    private int command = -1; // guarded by this: the command whose answer comes now, -1 during the login
    private boolean loggedIn; // guarded by this

    PacketCountingForwarder(String targetHost, int targetPort) throws IOException {
        server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("counting-accept").start(() -> {
            try (Socket client = server.accept(); Socket target = new Socket(targetHost, targetPort)) {
                client.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                var down = Thread.ofPlatform().daemon().name("counting-down").start(() -> copy(target, client, false));
                copy(client, target, true);
                down.join();
            } catch (IOException | InterruptedException e) {
                // closed
            }
        });
    }

    int port() {
        return server.getLocalPort();
    }

    /** What was counted so far: "up|down COMMAND packets|bytes|reads", "commands COMMAND", "down COMMAND end status 0x.. warnings n". */
    synchronized Map<String, Long> counts() {
        return new TreeMap<>(counts);
    }

    long count(String key) {
        return counts().getOrDefault(key, 0L);
    }

    private void copy(Socket from, Socket to, boolean up) {
        byte[] buf = new byte[64 << 10];
        byte[] pending = new byte[1 << 20];
        int held = 0;
        try (from; to) {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buf)) > 0; ) {
                System.arraycopy(buf, 0, pending, held, n);
                held += n;
                int at = 0;
                synchronized (this) {
                    boolean counting = loggedIn;
                    while (held - at >= 4) {
                        int length = (pending[at] & 0xff) | (pending[at + 1] & 0xff) << 8 | (pending[at + 2] & 0xff) << 16;
                        if (held - at < 4 + length) break;
                        packet(up, pending[at + 3] & 0xff, pending, at + 4, length);
                        at += 4 + length;
                    }
                    if (counting) add(up, "reads", 1); // after the packets: a client's read is counted with the command it sent
                }
                System.arraycopy(pending, at, pending, 0, held - at);
                held -= at;
                out.write(buf, 0, n); // after counting: the peer's reply to these bytes is counted after them
            }
        } catch (IOException e) {
            // one side closed: both close
        }
    }

    /** One whole packet of {@code length} bytes at {@code p[at]}; called under the lock. */
    private void packet(boolean up, int sequence, byte[] p, int at, int length) {
        if (!loggedIn) {
            // the login ends with the server's OK (or ERR) after the handshake response (and any auth switch or exchange)
            boolean ok = length > 0 && p[at] == 0, err = length > 0 && (p[at] & 0xff) == 0xff;
            if (!up && sequence >= 2 && (ok || err)) loggedIn = true;
            return;
        }
        if (up && sequence == 0) {
            command = length == 0 ? -1 : p[at] & 0xff;
            counts.merge("commands " + name(command), 1L, Long::sum);
        }
        add(up, "packets", 1);
        add(up, "bytes", 4 + length);
        if (!up && length >= 7 && length < 16 && (p[at] & 0xff) == 0xfe) {
            // the OK packet closing a result set (CLIENT_DEPRECATE_EOF; a row never starts with 0xFE): lenenc affected rows
            // and insert id, both one byte for the small values here, then status flags and warnings
            int status = (p[at + 3] & 0xff) | (p[at + 4] & 0xff) << 8;
            int warnings = (p[at + 5] & 0xff) | (p[at + 6] & 0xff) << 8;
            if ((p[at + 1] & 0xff) < 0xfb && (p[at + 2] & 0xff) < 0xfb) {
                counts.merge("down " + name(command) + " end status 0x" + Integer.toHexString(status) + " warnings " + warnings, 1L, Long::sum);
            }
        }
    }

    private void add(boolean up, String what, long n) {
        counts.merge((up ? "up " : "down ") + name(command) + " " + what, n, Long::sum);
    }

    static String name(int command) {
        return switch (command) {
            case -1 -> "login";
            case 0x01 -> "COM_QUIT";
            case 0x03 -> "COM_QUERY";
            case 0x0e -> "COM_PING";
            case 0x16 -> "COM_STMT_PREPARE";
            case 0x17 -> "COM_STMT_EXECUTE";
            case 0x19 -> "COM_STMT_CLOSE";
            case 0x1a -> "COM_STMT_RESET";
            case 0x1c -> "COM_STMT_FETCH";
            default -> "command 0x" + Integer.toHexString(command);
        };
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
