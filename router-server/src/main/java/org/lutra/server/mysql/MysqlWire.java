package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;

import java.nio.charset.Charset;

/**
 * MySQL client/server protocol constants and its integer and string encodings (the "Protocol
 * Basics" of the MySQL internals manual): little-endian fixed-width integers, length-encoded
 * integers and strings, NUL-terminated strings.
 */
final class MysqlWire {
    private MysqlWire() {}

    // capability flags
    static final int CLIENT_LONG_PASSWORD = 1;
    static final int CLIENT_FOUND_ROWS = 1 << 1;
    static final int CLIENT_LONG_FLAG = 1 << 2;
    static final int CLIENT_CONNECT_WITH_DB = 1 << 3;
    static final int CLIENT_NO_SCHEMA = 1 << 4;
    static final int CLIENT_ODBC = 1 << 6;
    static final int CLIENT_IGNORE_SPACE = 1 << 8;
    static final int CLIENT_PROTOCOL_41 = 1 << 9;
    static final int CLIENT_INTERACTIVE = 1 << 10;
    static final int CLIENT_SSL = 1 << 11;
    static final int CLIENT_TRANSACTIONS = 1 << 13;
    static final int CLIENT_SECURE_CONNECTION = 1 << 15;
    static final int CLIENT_MULTI_STATEMENTS = 1 << 16;
    static final int CLIENT_MULTI_RESULTS = 1 << 17;
    static final int CLIENT_PS_MULTI_RESULTS = 1 << 18;
    static final int CLIENT_PLUGIN_AUTH = 1 << 19;
    static final int CLIENT_CONNECT_ATTRS = 1 << 20;
    static final int CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21;
    static final int CLIENT_DEPRECATE_EOF = 1 << 24;

    // server status flags
    static final int SERVER_STATUS_IN_TRANS = 1;
    static final int SERVER_STATUS_AUTOCOMMIT = 2;
    static final int SERVER_MORE_RESULTS_EXISTS = 8;
    static final int SERVER_STATUS_CURSOR_EXISTS = 64;
    static final int SERVER_STATUS_LAST_ROW_SENT = 128;

    // commands
    static final int COM_QUIT = 0x01;
    static final int COM_INIT_DB = 0x02;
    static final int COM_QUERY = 0x03;
    static final int COM_FIELD_LIST = 0x04;
    static final int COM_STATISTICS = 0x09;
    static final int COM_PROCESS_KILL = 0x0c;
    static final int COM_PING = 0x0e;
    static final int COM_CHANGE_USER = 0x11;
    static final int COM_STMT_PREPARE = 0x16;
    static final int COM_STMT_EXECUTE = 0x17;
    static final int COM_STMT_SEND_LONG_DATA = 0x18;
    static final int COM_STMT_CLOSE = 0x19;
    static final int COM_STMT_RESET = 0x1a;
    static final int COM_SET_OPTION = 0x1b;
    static final int COM_STMT_FETCH = 0x1c;
    static final int COM_RESET_CONNECTION = 0x1f;

    // column types (MYSQL_TYPE_*)
    static final int TYPE_DECIMAL = 0;
    static final int TYPE_TINY = 1;
    static final int TYPE_SHORT = 2;
    static final int TYPE_LONG = 3;
    static final int TYPE_FLOAT = 4;
    static final int TYPE_DOUBLE = 5;
    static final int TYPE_NULL = 6;
    static final int TYPE_TIMESTAMP = 7;
    static final int TYPE_LONGLONG = 8;
    static final int TYPE_INT24 = 9;
    static final int TYPE_DATE = 10;
    static final int TYPE_TIME = 11;
    static final int TYPE_DATETIME = 12;
    static final int TYPE_YEAR = 13;
    static final int TYPE_NEWDATE = 14;
    static final int TYPE_VARCHAR = 15;
    static final int TYPE_BIT = 16;
    static final int TYPE_JSON = 245;
    static final int TYPE_NEWDECIMAL = 246;
    static final int TYPE_ENUM = 247;
    static final int TYPE_SET = 248;
    static final int TYPE_TINY_BLOB = 249;
    static final int TYPE_MEDIUM_BLOB = 250;
    static final int TYPE_LONG_BLOB = 251;
    static final int TYPE_BLOB = 252;
    static final int TYPE_VAR_STRING = 253;
    static final int TYPE_STRING = 254;
    static final int TYPE_GEOMETRY = 255;

    // column flags
    static final int NOT_NULL_FLAG = 1;
    static final int PRI_KEY_FLAG = 2;
    static final int BLOB_FLAG = 16;
    static final int UNSIGNED_FLAG = 32;
    static final int BINARY_FLAG = 128;
    static final int NUM_FLAG = 32768;

    static final int BINARY_COLLATION = 63;
    /** utf8mb4_general_ci: what the router says it speaks in its greeting, and what a client's unknown collation falls back to. */
    static final int UTF8MB4_GENERAL_CI = 45;

    /** The largest payload of one packet; a longer one continues in the next (a payload of exactly this length announces one). */
    static final int MAX_PACKET_PAYLOAD = 0xFFFFFF;

    static long readLenEnc(ByteBuf in) {
        int first = in.readUnsignedByte();
        return switch (first) {
            case 0xFC -> in.readUnsignedShortLE();
            case 0xFD -> in.readUnsignedMediumLE();
            case 0xFE -> in.readLongLE();
            case 0xFB -> -1; // NULL in a text row
            case 0xFF -> throw new IllegalArgumentException("0xFF is no length-encoded integer");
            default -> first;
        };
    }

    static void writeLenEnc(ByteBuf out, long value) {
        if (value >= 0 && value < 251) {
            out.writeByte((int) value);
        } else if (value >= 0 && value < (1 << 16)) {
            out.writeByte(0xFC).writeShortLE((int) value);
        } else if (value >= 0 && value < (1 << 24)) {
            out.writeByte(0xFD).writeMediumLE((int) value);
        } else {
            out.writeByte(0xFE).writeLongLE(value);
        }
    }

    static void writeLenEncBytes(ByteBuf out, byte[] bytes) {
        writeLenEnc(out, bytes.length);
        out.writeBytes(bytes);
    }

    /** {@code text} as a length-encoded string in {@code charset}, without an intermediate array for ASCII-only UTF-8 text. */
    static void writeLenEncString(ByteBuf out, String text, Charset charset) {
        writeLenEncBytes(out, text.getBytes(charset));
    }

    static byte[] readLenEncBytes(ByteBuf in) {
        long n = readLenEnc(in);
        if (n < 0 || n > in.readableBytes()) throw new IllegalArgumentException("a length-encoded string of " + n + " bytes in " + in.readableBytes());
        byte[] b = new byte[(int) n];
        in.readBytes(b);
        return b;
    }

    /** The bytes up to the next NUL (consumed), or to the end of the packet if there is none. */
    static byte[] readNulBytes(ByteBuf in) {
        int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        int length = (end < 0 ? in.writerIndex() : end) - in.readerIndex();
        byte[] b = new byte[length];
        in.readBytes(b);
        if (end >= 0) in.skipBytes(1);
        return b;
    }

    static void writeNulString(ByteBuf out, byte[] bytes) {
        out.writeBytes(bytes).writeByte(0);
    }
}
