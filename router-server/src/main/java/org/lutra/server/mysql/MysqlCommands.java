package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Execute;
import org.lutra.protocol.Frames;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;
import org.lutra.server.SessionCore;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;

/**
 * The command phase: each client command (COM_*) turned into the session core's requests, and its
 * answer into MySQL packets ({@link ResultWriter}). Statements run exactly as the Lutra driver's
 * do; what only MySQL's protocol has is handled here: multi-statement text, prepared statements
 * and their cursors, the connection-level commands.
 */
final class MysqlCommands {
    private final MysqlConnection connection;
    private final HandshakeResponse hello;
    private final ClientCharset charset;
    private final ResultWriter results;
    private final PreparedStatements statements = new PreparedStatements();
    private final PrepareDescriber describer;
    private boolean multiStatements;
    private long nextRequest = 1;

    MysqlCommands(MysqlConnection connection, HandshakeResponse hello, ClientCharset charset) {
        this.connection = connection;
        this.hello = hello;
        this.charset = charset;
        this.multiStatements = (hello.capabilities() & MysqlWire.CLIENT_MULTI_STATEMENTS) != 0;
        this.describer = new PrepareDescriber(connection);
        this.results = new ResultWriter(connection, charset, (hello.capabilities() & connectionCapabilities() & MysqlWire.CLIENT_DEPRECATE_EOF) != 0);
    }

    private static int connectionCapabilities() {
        return MysqlListener.SERVER_CAPABILITIES;
    }

    /** Runs one command; false when the connection is to close (COM_QUIT). */
    boolean handle(ByteBuf packet) {
        if (!packet.isReadable()) throw new MysqlConnection.MalformedPacket("an empty command packet");
        int command = packet.readUnsignedByte();
        PacketWriter out = connection.out();
        try {
            switch (command) {
                case MysqlWire.COM_QUIT -> {
                    return false;
                }
                case MysqlWire.COM_QUERY -> query(text(packet));
                case MysqlWire.COM_PING -> ok();
                case MysqlWire.COM_INIT_DB -> {
                    String db = text(packet);
                    var wrong = connection.server().loginGate().checkDatabase(db);
                    if (wrong != null) Packets.error(out, wrong.getVendorCode(), wrong.getSqlState(), wrong.getMessage());
                    else ok();
                }
                case MysqlWire.COM_STMT_PREPARE -> prepare(text(packet));
                case MysqlWire.COM_STMT_EXECUTE -> execute(packet);
                case MysqlWire.COM_STMT_FETCH -> {
                    var statement = statements.get(packet.readUnsignedIntLE());
                    results.fetch(statement, packet.readUnsignedIntLE());
                }
                case MysqlWire.COM_STMT_SEND_LONG_DATA -> {
                    long id = packet.readUnsignedIntLE();
                    int param = packet.readUnsignedShortLE();
                    byte[] data = new byte[packet.readableBytes()];
                    packet.readBytes(data);
                    var statement = statements.get(id);
                    if (statement.longDataBytes() + data.length > connection.server().config().maxFrameBytes()) {
                        throw new SQLException("Parameter " + param + " of prepared statement " + id + " is longer than max_frame_bytes", "HY000", 1153);
                    }
                    statement.appendLongData(param, data);
                    out.discard(); // no answer, as MySQL gives none
                }
                case MysqlWire.COM_STMT_CLOSE -> {
                    var statement = statements.remove(packet.readUnsignedIntLE());
                    if (statement != null) results.closeCursor(statement);
                    out.discard();
                }
                case MysqlWire.COM_STMT_RESET -> {
                    var statement = statements.get(packet.readUnsignedIntLE());
                    statement.clearLongData();
                    results.closeCursor(statement);
                    ok();
                }
                case MysqlWire.COM_SET_OPTION -> {
                    int option = packet.readUnsignedShortLE();
                    if (option > 1) throw new SQLException("Unknown command", "08S01", 1047);
                    multiStatements = option == 0;
                    Packets.eof(out, ResultWriter.status(connection.core().status()), 0);
                }
                case MysqlWire.COM_RESET_CONNECTION -> {
                    closeStatements();
                    connection.resetSession();
                    multiStatements = (hello.capabilities() & MysqlWire.CLIENT_MULTI_STATEMENTS) != 0;
                    ok();
                }
                case MysqlWire.COM_PROCESS_KILL -> query("KILL " + packet.readUnsignedIntLE());
                case MysqlWire.COM_STATISTICS -> {
                    out.begin().writeBytes(("Threads: " + connection.server().openSessions() + "  Lutra router").getBytes(StandardCharsets.US_ASCII));
                    out.end();
                }
                case MysqlWire.COM_CHANGE_USER -> Packets.error(out, 1235, "42000", "This version of Lutra doesn't yet support 'COM_CHANGE_USER'"
                        + " (changing the user of an open connection): open a new connection as the other user");
                case MysqlWire.COM_FIELD_LIST -> Packets.error(out, 1235, "42000", "This version of Lutra doesn't yet support 'COM_FIELD_LIST'"
                        + " (deprecated since MySQL 5.7): use SHOW COLUMNS FROM the table");
                default -> Packets.error(out, 1047, "08S01", "Unknown command");
            }
        } catch (SQLException e) {
            out.discard();
            Packets.error(out, e.getErrorCode(), e.getSQLState(), e.getMessage());
        }
        return true;
    }

    private String text(ByteBuf packet) {
        return packet.readCharSequence(packet.readableBytes(), charset.charset()).toString();
    }

    private void ok() {
        Packets.ok(connection.out(), 0, 0, ResultWriter.status(connection.core().status()), 0, "");
    }

    /** COM_QUERY: one statement, or with multi-statements each in turn until one fails, each its own result. */
    private void query(String sql) {
        List<String> parts = multiStatements ? StatementText.split(sql) : List.of(sql);
        for (int i = 0; i < parts.size(); i++) {
            boolean more = i + 1 < parts.size();
            var reply = ask(Execute.newBuilder().setSql(parts.get(i)).setFetchSize(ResultWriter.FETCH_ROWS).setKnownColumns(results.knownTextColumns()));
            if (!results.write(reply, more, null, false) || !connection.open()) return; // an error ends the text; a client gone, too
            if (more && connection.out().pending() > ResultWriter.FLUSH_BYTES) connection.sendAndWait();
        }
    }

    /**
     * COM_STMT_PREPARE: the statement's id, its parameters and the columns it will return. The router plans a
     * statement at its first execution; the columns a SELECT will return are learnt by running it once with NULL
     * parameters in a session of its own ({@link PrepareDescriber}): Connector/J takes the column flags of the
     * prepare answer for every execution, and libmysqlclient (sysbench) decides by it whether rows come back.
     */
    private void prepare(String sql) throws SQLException {
        int params = StatementText.paramCount(sql);
        if (params > 65_535) throw new SQLException("Prepared statement contains too many placeholders", "HY000", 1390);
        var columns = describer.describe(sql, params);
        var statement = statements.prepare(sql, params);
        PacketWriter out = connection.out();
        ByteBuf b = out.begin();
        b.writeByte(0).writeIntLE((int) statement.id).writeShortLE(columns.size()).writeShortLE(params).writeByte(0).writeShortLE(0);
        out.end();
        int status = ResultWriter.status(connection.core().status());
        if (params > 0) {
            var param = new MysqlColumn("", "", "", "?", "", MysqlWire.BINARY_COLLATION, 0, MysqlWire.TYPE_VAR_STRING, MysqlWire.BINARY_FLAG, 0);
            for (int i = 0; i < params; i++) {
                param.write(out.begin(), charset.charset());
                out.end();
            }
            if (!results.deprecateEof()) Packets.eof(out, status, 0);
        }
        if (!columns.isEmpty()) {
            var defs = ResultColumns.of(0, columns, connection.database(), charset);
            for (byte[] payload : defs.payloads()) {
                out.begin().writeBytes(payload);
                out.end();
            }
            if (!results.deprecateEof()) Packets.eof(out, status, 0);
        }
    }

    /** COM_STMT_EXECUTE: the statement with its parameters; rows in the binary protocol, or held as a cursor for COM_STMT_FETCH. */
    private void execute(ByteBuf packet) throws SQLException {
        var statement = statements.get(packet.readUnsignedIntLE());
        int flags = packet.readUnsignedByte();
        packet.skipBytes(4); // iteration count, always 1
        List<Value> params = BinaryParams.read(packet, statement, charset.charset());
        statement.clearLongData();
        results.closeCursor(statement);
        boolean cursor = (flags & 0x01) != 0; // CURSOR_TYPE_READ_ONLY
        var request = Execute.newBuilder().setSql(statement.sql).addAllParams(params).setFetchSize(ResultWriter.FETCH_ROWS);
        if (statement.columns != null) request.setKnownColumns(statement.columns.columnsId());
        results.write(ask(request), false, statement, cursor);
    }

    private ServerMessage.Builder ask(Execute.Builder execute) {
        return ask(ClientMessage.newBuilder().setRequestId(nextRequest++).setExecute(execute).build());
    }

    private ServerMessage.Builder ask(ClientMessage request) {
        try {
            return connection.core().answer(request);
        } catch (Frames.FrameException e) {
            throw new IllegalStateException(e);
        }
    }

    private void closeStatements() {
        for (var s : statements.all()) results.closeCursor(s);
        statements.clear();
    }

    void close() {
        statements.clear(); // the core closes the cursors with the session
        describer.close();
    }

    SessionCore core() {
        return connection.core();
    }
}
