package org.lutra.jdbc;

import org.lutra.protocol.Column;
import org.lutra.protocol.ResultSet;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.ServerMessage;
import org.lutra.protocol.Value;

import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * A result the scripted server streams: rows "id, name" = (i, "row-i") for i in 1..count, cut
 * into batches of the fetch size the client asked for, as a router cursor would.
 */
final class Rows {
    static final long CURSOR_ID = 77;
    private final int count;
    private int next = 1;
    private int fetchSize;

    Rows(int count) {
        this.count = count;
    }

    static List<Column> columns() {
        return List.of(
                Column.newBuilder().setName("id").setLabel("id").setTable("items").setJdbcType(Types.INTEGER)
                        .setTypeName("INT").setPrecision(10).setSigned(true).setDisplaySize(11).build(),
                Column.newBuilder().setName("name").setLabel("Name").setTable("items").setJdbcType(Types.VARCHAR)
                        .setTypeName("VARCHAR").setPrecision(64).setNullable(true).setDisplaySize(64).build());
    }

    ServerMessage.Builder first(int requestedFetchSize) {
        fetchSize = requestedFetchSize == 0 ? 100 : requestedFetchSize;
        return ServerMessage.newBuilder().setResultSet(ResultSet.newBuilder()
                .addAllColumns(columns()).setFirstBatch(batch(fetchSize)).setPartitions(2));
    }

    ServerMessage.Builder fetch(int requestedFetchSize) {
        return ServerMessage.newBuilder().setRowBatch(batch(requestedFetchSize == 0 ? fetchSize : requestedFetchSize));
    }

    private RowBatch batch(int size) {
        var rows = new ArrayList<Row>();
        while (rows.size() < size && next <= count) {
            rows.add(Row.newBuilder()
                    .addValues(Value.newBuilder().setIntValue(next))
                    .addValues(Value.newBuilder().setStringValue("row-" + next)).build());
            next++;
        }
        boolean last = next > count;
        return RowBatch.newBuilder().setCursorId(last ? 0 : CURSOR_ID).addAllRows(rows).setLast(last).build();
    }
}
