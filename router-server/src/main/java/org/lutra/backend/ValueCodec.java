package org.lutra.backend;

import com.google.protobuf.ByteString;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/** Converts between the wire's {@link Value}s and JDBC on the backend side. */
public final class ValueCodec {
    private static final Value NULL = Value.newBuilder().setIsNull(true).build();

    private ValueCodec() {}

    /** A parameter or literal as the Java object routing works with (temporal values stay text). */
    public static Object decode(Value v) {
        return switch (v.getKindCase()) {
            case INT_VALUE -> v.getIntValue();
            case DOUBLE_VALUE -> v.getDoubleValue();
            case FLOAT_VALUE -> v.getFloatValue();
            case DECIMAL_VALUE -> new BigDecimal(v.getDecimalValue());
            case STRING_VALUE -> v.getStringValue();
            case BYTES_VALUE -> v.getBytesValue().toByteArray();
            case BOOL_VALUE -> v.getBoolValue();
            case DATE_VALUE -> v.getDateValue();
            case TIME_VALUE -> v.getTimeValue();
            case TIMESTAMP_VALUE -> v.getTimestampValue();
            case IS_NULL, KIND_NOT_SET -> null;
        };
    }

    /** Binds a client's parameter on a backend statement, as a parameter. Temporal text is bound as text: MySQL parses it exactly, with no time-zone shift. */
    public static void bind(PreparedStatement ps, int index, Value v) throws SQLException {
        switch (v.getKindCase()) {
            case INT_VALUE -> ps.setLong(index, v.getIntValue());
            case DOUBLE_VALUE -> ps.setDouble(index, v.getDoubleValue());
            case FLOAT_VALUE -> ps.setFloat(index, v.getFloatValue());
            case DECIMAL_VALUE -> ps.setBigDecimal(index, decimal(v.getDecimalValue()));
            case STRING_VALUE -> ps.setString(index, v.getStringValue());
            case BYTES_VALUE -> ps.setBytes(index, v.getBytesValue().toByteArray());
            case BOOL_VALUE -> ps.setBoolean(index, v.getBoolValue());
            case DATE_VALUE -> ps.setString(index, v.getDateValue());
            case TIME_VALUE -> ps.setString(index, v.getTimeValue());
            case TIMESTAMP_VALUE -> ps.setString(index, v.getTimestampValue());
            case IS_NULL, KIND_NOT_SET -> ps.setNull(index, Types.NULL);
        }
    }

    /** A client's decimal parameter; text that is no number is MySQL's 1366, not an exception that would leak the lease. */
    private static BigDecimal decimal(String text) throws SQLException {
        try {
            return new BigDecimal(text);
        } catch (NumberFormatException e) {
            String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
            throw new SQLException("Incorrect decimal value: '" + shown + "' for a parameter", "22007", 1366);
        }
    }

    /**
     * Column {@code i} (1-based) as Connector/J describes it, whichever driver read it: applications
     * of the router were written against Connector/J's metadata (MariaDB Connector/J's differs in
     * most fields, so {@link MariaDbColumns} computes Connector/J's from MariaDB's raw definition).
     */
    public static Column column(ResultSetMetaData md, int i) throws SQLException {
        var mariaDb = MariaDbColumns.of(md);
        return described(mariaDb != null ? MariaDbColumns.column(mariaDb, i) : connectorJ(md, i));
    }

    /** Every column of {@code md}, as {@link #column} describes each. */
    public static List<Column> columns(ResultSetMetaData md) throws SQLException {
        var mariaDb = MariaDbColumns.of(md);
        if (mariaDb != null) return MariaDbColumns.columns(mariaDb);
        var columns = new Column[md.getColumnCount()];
        var fields = md.isWrapperFor(com.mysql.cj.jdbc.result.ResultSetMetaData.class)
                ? md.unwrap(com.mysql.cj.jdbc.result.ResultSetMetaData.class).getFields() : null;
        for (int i = 1; i <= columns.length; i++) {
            columns[i - 1] = column(md, i);
            if (fields != null) {
                var f = fields[i - 1];
                columns[i - 1] = MysqlFields.withField(columns[i - 1], f.getMysqlTypeId(), f.getFlags(), f.getLength(), f.getDecimals(),
                        f.getCollationIndex(), f.getOriginalTableName(), f.getOriginalName(), f.getTableName());
            }
        }
        return List.of(columns);
    }

    static Column described(Column.Builder column) {
        // Connector/J's default (yearIsDateType): YEAR is a DATE to applications; the wire carries the year
        if (column.getNativeType().equals("YEAR")) column.setJdbcType(Types.DATE);
        return column.build();
    }

    private static Column.Builder connectorJ(ResultSetMetaData md, int i) throws SQLException {
        var column = Column.newBuilder();
        if (md.isWrapperFor(com.mysql.cj.jdbc.result.ResultSetMetaData.class)) {
            var field = md.unwrap(com.mysql.cj.jdbc.result.ResultSetMetaData.class).getFields()[i - 1];
            // MYSQL_TYPE_BIT is 16; Connector/J also calls TINYINT(1) BIT, but its bytes are the number's text
            column.setNativeType(field.getMysqlTypeId() == 16 ? "BIT" : field.getMysqlTypeId() == 1 ? "TINYINT" : field.getMysqlType().getName());
        }
        return column
                .setName(nonNull(md.getColumnName(i)))
                .setLabel(nonNull(md.getColumnLabel(i)))
                .setTable(nonNull(md.getTableName(i)))
                .setJdbcType(md.getColumnType(i))
                .setTypeName(nonNull(md.getColumnTypeName(i)))
                .setPrecision(md.getPrecision(i))
                .setScale(md.getScale(i))
                .setNullable(md.isNullable(i) != ResultSetMetaData.columnNoNulls)
                .setSigned(md.isSigned(i))
                .setDisplaySize(md.getColumnDisplaySize(i));
    }

    /**
     * A FLOAT/DOUBLE result with a fixed number of decimals (FLOAT(7,4), STD(x), ...): MySQL's text
     * protocol, which Connector/J's plain statements read, sends it rounded to them; the binary
     * protocol the router reads sends every bit. The router passes on what a client of one MySQL
     * would read.
     */
    private static boolean fixedDecimals(Column c) {
        return c.getScale() > 0 && c.getScale() < 31;
    }

    private static double rounded(double v, int decimals) {
        if (!Double.isFinite(v) || v == 0) return v; // zero as it came: MySQL's -0 (ROUND(-0.001, 2)) reads as -0.0
        return new BigDecimal(v).setScale(decimals, java.math.RoundingMode.HALF_EVEN).doubleValue();
    }

    /** Reads the current row of {@code rs}, converting each column by its JDBC type. */
    public static Row row(ResultSet rs, List<Column> columns) throws SQLException {
        var row = Row.newBuilder();
        var mariaDb = MariaDbColumns.of(rs);
        for (int i = 0; i < columns.size(); i++) {
            row.addValues(value(rs, i + 1, columns.get(i), mariaDb));
        }
        return row.build();
    }

    /** {@code mariaDb}: the column definitions when MariaDB Connector/J reads {@code rs}, else null. */
    private static Value value(ResultSet rs, int i, Column c, org.mariadb.jdbc.client.ColumnDecoder[] mariaDb) throws SQLException {
        var b = Value.newBuilder();
        if (c.getNativeType().equals("YEAR")) {
            long year = rs.getLong(i);
            return rs.wasNull() ? NULL : b.setIntValue(year).build();
        }
        switch (c.getJdbcType()) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER -> {
                long v = rs.getLong(i);
                if (rs.wasNull()) return NULL;
                b.setIntValue(v);
            }
            case Types.BIGINT -> {
                BigDecimal v = rs.getBigDecimal(i); // BIGINT UNSIGNED may exceed a long
                if (v == null) return NULL;
                if (v.scale() == 0 && v.unscaledValue().bitLength() < 64) b.setIntValue(v.longValueExact()); else b.setDecimalValue(v.toPlainString());
            }
            case Types.DECIMAL, Types.NUMERIC -> {
                BigDecimal v = rs.getBigDecimal(i);
                if (v == null) return NULL;
                b.setDecimalValue(v.toPlainString());
            }
            case Types.REAL, Types.FLOAT -> {
                float v = rs.getFloat(i);
                if (rs.wasNull()) return NULL;
                if (mariaDb != null && !Float.isFinite(v)) throw outOfRange(v, "Float");
                b.setFloatValue(fixedDecimals(c) ? (float) rounded(v, c.getScale()) : v);
            }
            case Types.DOUBLE -> {
                double v = rs.getDouble(i);
                if (rs.wasNull()) return NULL;
                if (mariaDb != null && !Double.isFinite(v)) throw outOfRange(v, "Double");
                b.setDoubleValue(fixedDecimals(c) ? rounded(v, c.getScale()) : v);
            }
            case Types.BIT, Types.BOOLEAN -> {
                if (c.getPrecision() > 1) return bytes(rs.getBytes(i));
                // BIT(1), BOOLEAN and TINYINT(1) (which Connector/J reports as BIT): the number itself,
                // so that a TINYINT(1) holding 5 reads back 5 through getInt, true through getObject
                long v = rs.getLong(i);
                if (rs.wasNull()) return NULL;
                b.setIntValue(v);
            }
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> {
                return bytes(rs.getBytes(i));
            }
            case Types.DATE -> {
                String v = mariaDb == null ? rs.getString(i) : MariaDbColumns.temporal(rs, i);
                if (v == null) return NULL;
                b.setDateValue(v);
            }
            case Types.TIME -> {
                String v = mariaDb == null ? rs.getString(i) : MariaDbColumns.temporal(rs, i);
                if (v == null) return NULL;
                b.setTimeValue(v);
            }
            case Types.TIMESTAMP -> {
                String v = mariaDb == null ? rs.getString(i) : MariaDbColumns.temporal(rs, i);
                if (v == null) return NULL;
                b.setTimestampValue(v);
            }
            default -> {
                String v = mariaDb == null ? rs.getString(i) : MariaDbColumns.text(rs, mariaDb, i);
                if (v == null) return NULL;
                b.setStringValue(v);
            }
        }
        return b.build();
    }

    /** Connector/J's error for an infinite or NaN value (which MySQL's binary protocol can carry); MariaDB's driver returns it. */
    private static SQLException outOfRange(double v, String type) {
        String shown = Double.isNaN(v) ? "NaN" : v > 0 ? "\u221E" : "-\u221E";
        return new java.sql.SQLDataException("Value '" + shown + "' is outside of valid range for type java.lang." + type, "22003");
    }

    private static Value bytes(byte[] v) {
        return v == null ? NULL : Value.newBuilder().setBytesValue(ByteString.copyFrom(v)).build();
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}
