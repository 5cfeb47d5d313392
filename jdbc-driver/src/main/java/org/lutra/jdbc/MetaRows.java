package org.lutra.jdbc;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.RowBatch;
import org.lutra.protocol.Value;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rows of a DatabaseMetaData answer, built in the driver and handed out as an ordinary
 * {@link LutraResultSet} (complete, no router cursor behind it). Column types are those
 * Connector/J gives the same answers, so code that reads them by type works the same.
 */
final class MetaRows {
    private final List<Column> columns = new ArrayList<>();
    private final List<Object[]> rows = new ArrayList<>();

    MetaRows text(String... names) {
        for (String n : names) add(n, Types.CHAR, "CHAR");
        return this;
    }

    MetaRows varchar(String... names) {
        for (String n : names) add(n, Types.VARCHAR, "VARCHAR");
        return this;
    }

    MetaRows integer(String... names) {
        for (String n : names) add(n, Types.INTEGER, "INT");
        return this;
    }

    MetaRows smallint(String... names) {
        for (String n : names) add(n, Types.SMALLINT, "SMALLINT");
        return this;
    }

    MetaRows bigint(String... names) {
        for (String n : names) add(n, Types.BIGINT, "BIGINT");
        return this;
    }

    MetaRows bool(String... names) {
        for (String n : names) add(n, Types.BOOLEAN, "BOOLEAN");
        return this;
    }

    private void add(String name, int type, String typeName) {
        columns.add(Column.newBuilder().setName(name).setLabel(name).setJdbcType(type).setTypeName(typeName)
                .setNullable(true).setSigned(true).setPrecision(type == Types.CHAR || type == Types.VARCHAR ? 255 : 20).build());
    }

    /** A row: String, Integer, Long, Boolean or null per column, in column order. */
    void row(Object... values) {
        if (values.length != columns.size()) {
            throw new IllegalArgumentException(values.length + " values for " + columns.size() + " columns");
        }
        rows.add(values);
    }

    int size() {
        return rows.size();
    }

    /** Sorts by the given columns (1-based), nulls first, as MySQL orders. */
    MetaRows orderBy(int... keys) {
        Comparator<Object[]> order = (a, b) -> 0;
        for (int k : keys) {
            order = order.thenComparing(r -> (Comparable<Object>) comparable(r[k - 1]), Comparator.nullsFirst(Comparator.naturalOrder()));
        }
        rows.sort(order);
        return this;
    }

    @SuppressWarnings("unchecked")
    private static Comparable<Object> comparable(Object o) {
        return (Comparable<Object>) o;
    }

    ResultSet toResultSet(LutraConnection connection) throws SQLException {
        var batch = RowBatch.newBuilder().setLast(true);
        for (Object[] r : rows) {
            var row = Row.newBuilder();
            for (Object v : r) row.addValues(value(v));
            batch.addRows(row);
        }
        var header = org.lutra.protocol.ResultSet.newBuilder().addAllColumns(columns).setFirstBatch(batch).build();
        var statement = new LutraStatement(connection, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, ResultSet.HOLD_CURSORS_OVER_COMMIT);
        return new LutraResultSet(statement, header);
    }

    private static Value value(Object v) {
        var b = Value.newBuilder();
        return switch (v) {
            case null -> b.setIsNull(true).build();
            case String s -> b.setStringValue(s).build();
            case Integer i -> b.setIntValue(i).build();
            case Long l -> b.setIntValue(l).build();
            case Boolean bo -> b.setBoolValue(bo).build();
            default -> throw new IllegalArgumentException("no metadata value of " + v.getClass());
        };
    }
}
