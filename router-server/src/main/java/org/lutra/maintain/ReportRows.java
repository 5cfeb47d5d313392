package org.lutra.maintain;

import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** A small result set the router answers itself (SHOW MOVES, LOAD LOOKUP TABLE's plan): text and BIGINT columns. */
public final class ReportRows {
    private final List<Column> columns = new ArrayList<>();
    private final List<Row> rows = new ArrayList<>();

    public ReportRows text(String name) {
        columns.add(Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.VARCHAR).setTypeName("VARCHAR")
                .setPrecision(1024).setDisplaySize(1024).setNullable(true).build());
        return this;
    }

    public ReportRows number(String name) {
        columns.add(Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.BIGINT).setTypeName("BIGINT")
                .setPrecision(20).setDisplaySize(20).setSigned(true).setNullable(true).build());
        return this;
    }

    /** One row: String, Long/Integer or null per column. */
    public void add(Object... values) {
        var b = Row.newBuilder();
        for (Object v : values) {
            b.addValues(switch (v) {
                case null -> Value.newBuilder().setIsNull(true).build();
                case String s -> Value.newBuilder().setStringValue(s).build();
                case Number n -> Value.newBuilder().setIntValue(n.longValue()).build();
                default -> throw new IllegalArgumentException("not a report value: " + v.getClass());
            });
        }
        rows.add(b.build());
    }

    public RowSource rows() {
        return new ListRows(columns, rows);
    }
}
