package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.protocol.Column;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A result's columns as the MySQL listener sends them: each {@link MysqlColumn} with its definition
 * packet's payload, encoded once. {@code columnsId} is the session core's id for the list
 * ({@code ResultSet.columns_id}): a prepared statement run again is told "the same columns" and
 * sends these again without describing them anew.
 */
record ResultColumns(long columnsId, MysqlColumn[] columns, byte[][] payloads) {

    static ResultColumns of(long columnsId, List<Column> list, String database, ClientCharset client) {
        var columns = new MysqlColumn[list.size()];
        var payloads = new byte[list.size()][];
        ByteBuf scratch = io.netty.buffer.Unpooled.buffer(128);
        try {
            for (int i = 0; i < columns.length; i++) {
                columns[i] = MysqlColumn.of(list.get(i), database, client);
                scratch.clear();
                columns[i].write(scratch, client.charset());
                payloads[i] = new byte[scratch.readableBytes()];
                scratch.readBytes(payloads[i]);
            }
        } finally {
            scratch.release();
        }
        return new ResultColumns(columnsId, columns, payloads);
    }

    /** Whether a column is described as MySQL's NULL type, to be typed by the first rows' values. */
    boolean untyped() {
        for (MysqlColumn c : columns) if (c.type() == MysqlWire.TYPE_NULL) return true;
        return false;
    }

    /** The column count packet, then a definition packet per column. */
    void write(PacketWriter out) {
        MysqlWire.writeLenEnc(out.begin(), columns.length);
        out.end();
        for (byte[] payload : payloads) {
            out.begin().writeBytes(payload);
            out.end();
        }
    }

    /** The last few column lists a connection's text statements produced, by the list's identity (the core hands a statement's list again). */
    static final class Recent {
        private static final int KEPT = 32;
        private final Map<List<Column>, ResultColumns> byList = new IdentityHashMap<>();

        ResultColumns get(List<Column> list, String database, ClientCharset client) {
            var known = byList.get(list);
            if (known != null) return known;
            var made = of(0, list, database, client);
            if (byList.size() >= KEPT) byList.clear();
            byList.put(list, made);
            return made;
        }
    }

}
