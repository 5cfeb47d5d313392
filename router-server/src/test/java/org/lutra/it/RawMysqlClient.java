package org.lutra.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A MySQL client written from the protocol's documentation, packet by packet, for tests that must send what no driver
 * would: it logs in with mysql_native_password (protocol 4.1, EOF packets, no multi-statements) and then writes any
 * command packet and reads packets as they come.
 */
final class RawMysqlClient implements AutoCloseable {
    static final int COM_QUERY = 0x03;
    static final int COM_STMT_PREPARE = 0x16;

    private static final int CAPABILITIES = 0x1 /* LONG_PASSWORD */ | 0x8 /* CONNECT_WITH_DB */ | 0x200 /* PROTOCOL_41 */
            | 0x2000 /* TRANSACTIONS */ | 0x8000 /* SECURE_CONNECTION */ | 0x80000 /* PLUGIN_AUTH */;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    /** The connection id the greeting named. */
    long connectionId;

    /** Connects; {@code receiveBuffer} > 0 makes the socket's receive buffer that small (a client that reads little). */
    RawMysqlClient(int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) socket.setReceiveBufferSize(receiveBuffer);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(60_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Reads the greeting and logs in; the OK packet's payload, or the ERR's. */
    byte[] login(String user, String password, String database) throws IOException {
        byte[] greeting = readPacket();
        if (greeting == null || greeting[0] != 10) throw new IOException("no protocol 10 greeting");
        int p = 1;
        while (greeting[p] != 0) p++; // the server version
        connectionId = (greeting[p + 1] & 0xFFL) | (greeting[p + 2] & 0xFFL) << 8 | (greeting[p + 3] & 0xFFL) << 16 | (greeting[p + 4] & 0xFFL) << 24;
        p += 1 + 4; // its NUL, the connection id
        byte[] scramble = new byte[20];
        System.arraycopy(greeting, p, scramble, 0, 8);
        p += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10; // part 1, filler, capabilities, charset, status, capabilities, auth length, reserved
        System.arraycopy(greeting, p, scramble, 8, 12);
        var b = new ByteArrayOutputStream();
        writeIntLE(b, CAPABILITIES);
        writeIntLE(b, 1 << 24);
        b.write(45); // utf8mb4_general_ci
        b.writeBytes(new byte[23]);
        b.writeBytes(user.getBytes(StandardCharsets.UTF_8));
        b.write(0);
        byte[] auth = nativeResponse(password, scramble);
        b.write(auth.length);
        b.writeBytes(auth);
        b.writeBytes(database.getBytes(StandardCharsets.UTF_8));
        b.write(0);
        b.writeBytes("mysql_native_password".getBytes(StandardCharsets.US_ASCII));
        b.write(0);
        send(1, b.toByteArray());
        return readPacket();
    }

    /** A command packet: the command byte, then {@code payload}; sequence id 0, as every command starts. */
    void command(int command, byte[] payload) throws IOException {
        byte[] p = new byte[1 + payload.length];
        p[0] = (byte) command;
        System.arraycopy(payload, 0, p, 1, payload.length);
        send(0, p);
    }

    void send(int sequence, byte[] payload) throws IOException {
        out.write(frame(sequence, payload));
        out.flush();
    }

    /** Writes bytes as they are: a frame of one's own making. */
    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    static byte[] frame(int sequence, byte[] payload) {
        byte[] p = new byte[4 + payload.length];
        p[0] = (byte) payload.length;
        p[1] = (byte) (payload.length >> 8);
        p[2] = (byte) (payload.length >> 16);
        p[3] = (byte) sequence;
        System.arraycopy(payload, 0, p, 4, payload.length);
        return p;
    }

    /** Bytes the server sent that are in this socket's receive buffer now, unread. */
    int available() throws IOException {
        return in.available();
    }

    /** One packet's payload, or null at the end of the stream. */
    byte[] readPacket() throws IOException {
        byte[] header = in.readNBytes(4);
        if (header.length < 4) return null;
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        byte[] payload = in.readNBytes(length);
        return payload.length < length ? null : payload;
    }

    /** COM_STMT_PREPARE: the statement id, after reading the whole answer (parameters, columns, their EOF packets). */
    long prepare(String sql) throws IOException {
        command(COM_STMT_PREPARE, sql.getBytes(StandardCharsets.UTF_8));
        byte[] ok = readPacket();
        if (ok == null || ok[0] != 0) throw new IOException("prepare refused: " + (ok == null ? "closed" : new String(ok, StandardCharsets.UTF_8)));
        long id = (ok[1] & 0xFFL) | (ok[2] & 0xFFL) << 8 | (ok[3] & 0xFFL) << 16 | (ok[4] & 0xFFL) << 24;
        int columns = (ok[5] & 0xFF) | (ok[6] & 0xFF) << 8;
        int params = (ok[7] & 0xFF) | (ok[8] & 0xFF) << 8;
        int more = params + (params > 0 ? 1 : 0) + columns + (columns > 0 ? 1 : 0);
        for (int i = 0; i < more; i++) readPacket();
        return id;
    }

    /**
     * Reads a text result set's rows (column count, definitions, EOF, rows, EOF): each row's first column as text, or
     * null if the answer was an OK or ERR packet or the stream ended.
     */
    java.util.List<byte[]> rows() throws IOException {
        byte[] first = readPacket();
        if (first == null || first[0] == 0 || (first[0] & 0xFF) == 0xFF) return null;
        int columns = first[0] & 0xFF;
        for (int i = 0; i < columns + 1; i++) readPacket();
        var rows = new java.util.ArrayList<byte[]>();
        while (true) {
            byte[] row = readPacket();
            if (row == null) return null;
            if ((row[0] & 0xFF) == 0xFE && row.length < 9) return rows;
            rows.add(row);
        }
    }

    /** Reads until {@code marker} has come by (true) or the stream ends (false). */
    boolean readUntil(String marker) throws IOException {
        byte[] wanted = marker.getBytes(StandardCharsets.UTF_8);
        var seen = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) > 0) {
            seen.write(buffer, 0, n);
            byte[] all = seen.toByteArray();
            for (int i = 0; i + wanted.length <= all.length; i++) {
                if (Arrays.equals(all, i, i + wanted.length, wanted, 0, wanted.length)) return true;
            }
        }
        return false;
    }

    /** mysql_native_password: SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password))). */
    private static byte[] nativeResponse(String password, byte[] scramble) {
        try {
            var sha1 = MessageDigest.getInstance("SHA-1");
            byte[] h1 = sha1.digest(password.getBytes(StandardCharsets.UTF_8));
            byte[] h2 = sha1.digest(h1);
            sha1.update(scramble);
            byte[] h3 = sha1.digest(h2);
            for (int i = 0; i < h1.length; i++) h1[i] ^= h3[i];
            return h1;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void writeIntLE(ByteArrayOutputStream b, int v) {
        b.write(v);
        b.write(v >> 8);
        b.write(v >> 16);
        b.write(v >> 24);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
