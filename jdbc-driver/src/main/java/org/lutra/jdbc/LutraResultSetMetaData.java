package org.lutra.jdbc;

import org.lutra.protocol.Column;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/** Column descriptions exactly as the router sent them in the ResultSet header. */
public final class LutraResultSetMetaData implements ResultSetMetaData {
    private final List<Column> columns;

    LutraResultSetMetaData(List<Column> columns) {
        this.columns = columns;
    }

    private Column column(int i) throws SQLException {
        if (i < 1 || i > columns.size()) {
            throw Errors.of("column index " + i + " is out of range 1.." + columns.size(), Errors.INVALID_PARAMETER_INDEX);
        }
        return columns.get(i - 1);
    }

    @Override
    public int getColumnCount() {
        return columns.size();
    }

    @Override
    public String getColumnName(int i) throws SQLException {
        return named(column(i).getName());
    }

    @Override
    public String getColumnLabel(int i) throws SQLException {
        return named(LutraResultSet.label(column(i)));
    }

    /** A column MySQL names with the empty string ({@code SELECT ''}): Connector/J reports its name and label as null. */
    private static String named(String name) {
        return name.isEmpty() ? null : name;
    }

    @Override
    public int getColumnType(int i) throws SQLException {
        return column(i).getJdbcType();
    }

    @Override
    public String getColumnTypeName(int i) throws SQLException {
        return column(i).getTypeName();
    }

    @Override
    public String getColumnClassName(int i) throws SQLException {
        return Conversions.className(column(i));
    }

    @Override
    public int getPrecision(int i) throws SQLException {
        return column(i).getPrecision();
    }

    @Override
    public int getScale(int i) throws SQLException {
        return column(i).getScale();
    }

    @Override
    public int isNullable(int i) throws SQLException {
        return column(i).getNullable() ? columnNullable : columnNoNulls;
    }

    @Override
    public boolean isSigned(int i) throws SQLException {
        return column(i).getSigned();
    }

    @Override
    public int getColumnDisplaySize(int i) throws SQLException {
        Column c = column(i);
        return c.getDisplaySize() > 0 ? c.getDisplaySize() : c.getPrecision();
    }

    @Override
    public String getTableName(int i) throws SQLException {
        return column(i).getTable();
    }

    @Override
    public String getSchemaName(int i) throws SQLException {
        column(i);
        return "";
    }

    @Override
    public String getCatalogName(int i) throws SQLException {
        column(i);
        return "";
    }

    @Override
    public boolean isAutoIncrement(int i) throws SQLException {
        column(i);
        return false; // the protocol does not say
    }

    /** Text compares case-insensitively under MySQL's default collations; binary data does not. */
    @Override
    public boolean isCaseSensitive(int i) throws SQLException {
        return switch (column(i).getJdbcType()) {
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> true;
            default -> false;
        };
    }

    @Override
    public boolean isSearchable(int i) throws SQLException {
        column(i);
        return true;
    }

    @Override
    public boolean isCurrency(int i) throws SQLException {
        column(i);
        return false;
    }

    /** A column of a table may be written (through an UPDATE, or an updatable result); a computed one not. */
    @Override
    public boolean isReadOnly(int i) throws SQLException {
        return column(i).getTable().isEmpty();
    }

    @Override
    public boolean isWritable(int i) throws SQLException {
        return !isReadOnly(i);
    }

    @Override
    public boolean isDefinitelyWritable(int i) throws SQLException {
        column(i);
        return false;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return Wrappers.isWrapperFor(this, iface);
    }
}
