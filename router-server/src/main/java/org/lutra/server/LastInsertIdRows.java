package org.lutra.server;

import org.lutra.merge.ListRows;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.Types;
import java.util.List;

/** The answer to {@code SELECT LAST_INSERT_ID()}: one BIGINT UNSIGNED column, as MySQL types it. */
final class LastInsertIdRows {
    private LastInsertIdRows() {}

    static ListRows of(String label, long id) {
        var column = Column.newBuilder().setName(label).setLabel(label).setJdbcType(Types.BIGINT).setTypeName("BIGINT UNSIGNED")
                .setPrecision(20).setDisplaySize(20).setNullable(false).setSigned(false).build();
        return new ListRows(List.of(column), List.of(Row.newBuilder().addValues(Value.newBuilder().setIntValue(id)).build()));
    }
}
