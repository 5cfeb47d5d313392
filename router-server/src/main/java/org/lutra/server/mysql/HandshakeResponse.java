package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * The client's Protocol::HandshakeResponse41: its capabilities, character set, user, auth
 * response, database and auth plugin (connection attributes are skipped). Clients older than
 * protocol 4.1 are refused by the caller.
 */
record HandshakeResponse(int capabilities, int maxPacket, int collation, String user, byte[] authResponse, String database, String plugin) {

    static HandshakeResponse parse(ByteBuf in) {
        if (in.readableBytes() < 32) throw new IllegalArgumentException("a handshake response of " + in.readableBytes() + " bytes");
        int capabilities = in.readIntLE();
        int maxPacket = in.readIntLE();
        int collation = in.readUnsignedByte();
        in.skipBytes(23);
        String user = new String(MysqlWire.readNulBytes(in), StandardCharsets.UTF_8);
        byte[] auth;
        if ((capabilities & MysqlWire.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) != 0) {
            auth = MysqlWire.readLenEncBytes(in);
        } else if ((capabilities & MysqlWire.CLIENT_SECURE_CONNECTION) != 0) {
            int n = in.readUnsignedByte();
            if (n > in.readableBytes()) throw new IllegalArgumentException("an auth response of " + n + " bytes in " + in.readableBytes());
            auth = new byte[n];
            in.readBytes(auth);
        } else {
            auth = MysqlWire.readNulBytes(in);
        }
        String database = "";
        if ((capabilities & MysqlWire.CLIENT_CONNECT_WITH_DB) != 0 && in.isReadable()) {
            database = new String(MysqlWire.readNulBytes(in), StandardCharsets.UTF_8);
        }
        String plugin = "";
        if ((capabilities & MysqlWire.CLIENT_PLUGIN_AUTH) != 0 && in.isReadable()) {
            plugin = new String(MysqlWire.readNulBytes(in), StandardCharsets.US_ASCII);
        }
        return new HandshakeResponse(capabilities, maxPacket, collation, user, auth, database, plugin);
    }
}
