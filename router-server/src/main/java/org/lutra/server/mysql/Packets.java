package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/** The server's generic packets: OK, ERR, EOF, and the greeting (Protocol::HandshakeV10). */
final class Packets {
    private Packets() {}

    static void ok(PacketWriter w, long affectedRows, long insertId, int status, int warnings, String info) {
        ok(w, 0x00, affectedRows, insertId, status, warnings, info);
    }

    /**
     * The end of a result set: an EOF packet, or with CLIENT_DEPRECATE_EOF an OK packet with the 0xFE header
     * (Protocol::OK_Packet's "EOF" form).
     */
    static void endOfRows(PacketWriter w, boolean deprecateEof, int status, int warnings) {
        if (deprecateEof) ok(w, 0xFE, 0, 0, status, warnings, "");
        else eof(w, status, warnings);
    }

    private static void ok(PacketWriter w, int header, long affectedRows, long insertId, int status, int warnings, String info) {
        ByteBuf b = w.begin();
        b.writeByte(header);
        MysqlWire.writeLenEnc(b, affectedRows);
        MysqlWire.writeLenEnc(b, insertId);
        b.writeShortLE(status);
        b.writeShortLE(Math.min(warnings, 0xFFFF));
        if (!info.isEmpty()) b.writeBytes(info.getBytes(StandardCharsets.UTF_8));
        w.end();
    }

    static void eof(PacketWriter w, int status, int warnings) {
        ByteBuf b = w.begin();
        b.writeByte(0xFE).writeShortLE(Math.min(warnings, 0xFFFF)).writeShortLE(status);
        w.end();
    }

    /** MySQL's ER_UNKNOWN_ERROR: what an error the router numbers 0 is sent as. */
    static final int UNKNOWN_ERROR = 1105;

    /**
     * ERR_Packet with its SQLState (the client speaks protocol 4.1, or is told before the greeting). Errors the router raises
     * without a MySQL number (0 through the Lutra driver: a transaction to be rolled back first, an internal error) are sent
     * as 1105, MySQL's unknown error: libmariadb drops the message and SQLState of an error numbered 0 ("Server returned an
     * error packet without further information").
     */
    static void error(PacketWriter w, int code, String sqlState, String message) {
        ByteBuf b = w.begin();
        b.writeByte(0xFF).writeShortLE(code == 0 ? UNKNOWN_ERROR : code);
        String state = sqlState == null || sqlState.length() != 5 ? "HY000" : sqlState;
        b.writeByte('#').writeBytes(state.getBytes(StandardCharsets.US_ASCII));
        b.writeBytes((message == null ? "" : message).getBytes(StandardCharsets.UTF_8));
        w.end();
    }

    /** The greeting: protocol 10, the server version, the connection id, the 20-byte scramble and the default plugin. */
    static void greeting(PacketWriter w, String serverVersion, long connectionId, byte[] scramble, int capabilities, int status, String plugin) {
        ByteBuf b = w.begin();
        b.writeByte(10);
        MysqlWire.writeNulString(b, serverVersion.getBytes(StandardCharsets.UTF_8));
        b.writeIntLE((int) connectionId);
        b.writeBytes(scramble, 0, 8).writeByte(0);
        b.writeShortLE(capabilities & 0xFFFF);
        b.writeByte(MysqlWire.UTF8MB4_GENERAL_CI);
        b.writeShortLE(status);
        b.writeShortLE(capabilities >>> 16);
        b.writeByte(scramble.length + 1);
        b.writeZero(10);
        b.writeBytes(scramble, 8, scramble.length - 8).writeByte(0);
        MysqlWire.writeNulString(b, plugin.getBytes(StandardCharsets.US_ASCII));
        w.end();
    }

    /** AuthSwitchRequest: the client answers with {@code plugin}'s response to {@code scramble}. */
    static void authSwitch(PacketWriter w, String plugin, byte[] scramble) {
        ByteBuf b = w.begin();
        b.writeByte(0xFE);
        MysqlWire.writeNulString(b, plugin.getBytes(StandardCharsets.US_ASCII));
        MysqlWire.writeNulString(b, scramble);
        w.end();
    }

    /** AuthMoreData: 0x01 and the plugin's data (caching_sha2_password's 0x03 / 0x04, or the PEM public key). */
    static void authMoreData(PacketWriter w, byte[] data) {
        ByteBuf b = w.begin();
        b.writeByte(0x01).writeBytes(data);
        w.end();
    }
}
