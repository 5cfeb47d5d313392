package org.lutra.jdbc;

import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.SQLException;

/**
 * The updaters of a ResultSet (CONCUR_UPDATABLE), by index and by label: each turns its Java value
 * into a protocol {@link Value} as the matching PreparedStatement setter does and hands it to
 * {@link #update(int, Value)}. Streams are read whole at once, as parameters are.
 */
abstract class ResultSetUpdaters extends ResultSetGetters {
    /** Records the new value of a 1-based column of the current row, or of the insert row. */
    abstract void update(int column, Value value) throws SQLException;

    /** updateObject(column, x, scaleOrLength): a decimal is rounded to that scale, as setObject does. */
    private static Value scaled(Value v, int scale) {
        return v.hasDecimalValue() ? Values.ofDecimal(new BigDecimal(v.getDecimalValue()).setScale(scale, java.math.RoundingMode.HALF_UP)) : v;
    }

    @Override
    public void updateAsciiStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        updateAsciiStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateAsciiStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        updateAsciiStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateAsciiStream(String a0, java.io.InputStream a1) throws SQLException {
        updateAsciiStream(findColumn(a0), a1);
    }

    @Override
    public void updateAsciiStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(new String(LutraPreparedStatement.readAll(a1, a2), java.nio.charset.StandardCharsets.US_ASCII)));
    }

    @Override
    public void updateAsciiStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(new String(LutraPreparedStatement.readAll(a1, a2), java.nio.charset.StandardCharsets.US_ASCII)));
    }

    @Override
    public void updateAsciiStream(int a0, java.io.InputStream a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(new String(LutraPreparedStatement.readAll(a1, -1), java.nio.charset.StandardCharsets.US_ASCII)));
    }

    @Override
    public void updateBigDecimal(String a0, java.math.BigDecimal a1) throws SQLException {
        updateBigDecimal(findColumn(a0), a1);
    }

    @Override
    public void updateBigDecimal(int a0, java.math.BigDecimal a1) throws SQLException {
        update(a0, Values.ofDecimal(a1));
    }

    @Override
    public void updateBinaryStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        updateBinaryStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateBinaryStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        updateBinaryStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateBinaryStream(String a0, java.io.InputStream a1) throws SQLException {
        updateBinaryStream(findColumn(a0), a1);
    }

    @Override
    public void updateBinaryStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofBytes(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateBinaryStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofBytes(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateBinaryStream(int a0, java.io.InputStream a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofBytes(LutraPreparedStatement.readAll(a1, -1)));
    }

    @Override
    public void updateBlob(String a0, java.io.InputStream a1, long a2) throws SQLException {
        updateBlob(findColumn(a0), a1, a2);
    }

    @Override
    public void updateBlob(String a0, java.io.InputStream a1) throws SQLException {
        updateBlob(findColumn(a0), a1);
    }

    @Override
    public void updateBlob(String a0, java.sql.Blob a1) throws SQLException {
        updateBlob(findColumn(a0), a1);
    }

    @Override
    public void updateBlob(int a0, java.io.InputStream a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofBytes(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateBlob(int a0, java.io.InputStream a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofBytes(LutraPreparedStatement.readAll(a1, -1)));
    }

    @Override
    public void updateBlob(int a0, java.sql.Blob a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofBytes(a1.getBytes(1, Math.toIntExact(a1.length()))));
    }

    @Override
    public void updateBoolean(String a0, boolean a1) throws SQLException {
        updateBoolean(findColumn(a0), a1);
    }

    @Override
    public void updateBoolean(int a0, boolean a1) throws SQLException {
        update(a0, Values.ofBoolean(a1));
    }

    @Override
    public void updateByte(String a0, byte a1) throws SQLException {
        updateByte(findColumn(a0), a1);
    }

    @Override
    public void updateByte(int a0, byte a1) throws SQLException {
        update(a0, Values.ofLong(a1));
    }

    @Override
    public void updateBytes(String a0, byte[] a1) throws SQLException {
        updateBytes(findColumn(a0), a1);
    }

    @Override
    public void updateBytes(int a0, byte[] a1) throws SQLException {
        update(a0, Values.ofBytes(a1));
    }

    @Override
    public void updateCharacterStream(String a0, java.io.Reader a1, int a2) throws SQLException {
        updateCharacterStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        updateCharacterStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        updateCharacterStream(findColumn(a0), a1);
    }

    @Override
    public void updateCharacterStream(int a0, java.io.Reader a1, int a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, -1)));
    }

    @Override
    public void updateClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        updateClob(findColumn(a0), a1, a2);
    }

    @Override
    public void updateClob(String a0, java.io.Reader a1) throws SQLException {
        updateClob(findColumn(a0), a1);
    }

    @Override
    public void updateClob(String a0, java.sql.Clob a1) throws SQLException {
        updateClob(findColumn(a0), a1);
    }

    @Override
    public void updateClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateClob(int a0, java.io.Reader a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, -1)));
    }

    @Override
    public void updateClob(int a0, java.sql.Clob a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(a1.getSubString(1, Math.toIntExact(a1.length()))));
    }

    @Override
    public void updateDate(String a0, java.sql.Date a1) throws SQLException {
        updateDate(findColumn(a0), a1);
    }

    @Override
    public void updateDate(int a0, java.sql.Date a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofDate(a1, null));
    }

    @Override
    public void updateDouble(String a0, double a1) throws SQLException {
        updateDouble(findColumn(a0), a1);
    }

    @Override
    public void updateDouble(int a0, double a1) throws SQLException {
        update(a0, Values.ofDouble(a1));
    }

    @Override
    public void updateFloat(String a0, float a1) throws SQLException {
        updateFloat(findColumn(a0), a1);
    }

    @Override
    public void updateFloat(int a0, float a1) throws SQLException {
        update(a0, Values.ofFloat(a1));
    }

    @Override
    public void updateInt(String a0, int a1) throws SQLException {
        updateInt(findColumn(a0), a1);
    }

    @Override
    public void updateInt(int a0, int a1) throws SQLException {
        update(a0, Values.ofLong(a1));
    }

    @Override
    public void updateLong(String a0, long a1) throws SQLException {
        updateLong(findColumn(a0), a1);
    }

    @Override
    public void updateLong(int a0, long a1) throws SQLException {
        update(a0, Values.ofLong(a1));
    }

    @Override
    public void updateNCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        updateNCharacterStream(findColumn(a0), a1, a2);
    }

    @Override
    public void updateNCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        updateNCharacterStream(findColumn(a0), a1);
    }

    @Override
    public void updateNCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateNCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, -1)));
    }

    @Override
    public void updateNClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        updateNClob(findColumn(a0), a1, a2);
    }

    @Override
    public void updateNClob(String a0, java.io.Reader a1) throws SQLException {
        updateNClob(findColumn(a0), a1);
    }

    @Override
    public void updateNClob(String a0, java.sql.NClob a1) throws SQLException {
        updateNClob(findColumn(a0), a1);
    }

    @Override
    public void updateNClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, a2)));
    }

    @Override
    public void updateNClob(int a0, java.io.Reader a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(LutraPreparedStatement.readAll(a1, -1)));
    }

    @Override
    public void updateNClob(int a0, java.sql.NClob a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofString(a1.getSubString(1, Math.toIntExact(a1.length()))));
    }

    @Override
    public void updateNString(String a0, String a1) throws SQLException {
        updateNString(findColumn(a0), a1);
    }

    @Override
    public void updateNString(int a0, String a1) throws SQLException {
        update(a0, Values.ofString(a1));
    }

    @Override
    public void updateNull(String a0) throws SQLException {
        updateNull(findColumn(a0));
    }

    @Override
    public void updateNull(int a0) throws SQLException {
        update(a0, Values.NULL);
    }

    @Override
    public void updateObject(String a0, Object a1, int a2) throws SQLException {
        updateObject(findColumn(a0), a1, a2);
    }

    @Override
    public void updateObject(String a0, Object a1) throws SQLException {
        updateObject(findColumn(a0), a1);
    }

    @Override
    public void updateObject(int a0, Object a1, int a2) throws SQLException {
        update(a0, scaled(Values.ofObject(a1), a2));
    }

    @Override
    public void updateObject(int a0, Object a1) throws SQLException {
        update(a0, Values.ofObject(a1));
    }

    @Override
    public void updateShort(String a0, short a1) throws SQLException {
        updateShort(findColumn(a0), a1);
    }

    @Override
    public void updateShort(int a0, short a1) throws SQLException {
        update(a0, Values.ofLong(a1));
    }

    @Override
    public void updateString(String a0, String a1) throws SQLException {
        updateString(findColumn(a0), a1);
    }

    @Override
    public void updateString(int a0, String a1) throws SQLException {
        update(a0, Values.ofString(a1));
    }

    @Override
    public void updateTime(String a0, java.sql.Time a1) throws SQLException {
        updateTime(findColumn(a0), a1);
    }

    @Override
    public void updateTime(int a0, java.sql.Time a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofTime(a1, null));
    }

    @Override
    public void updateTimestamp(String a0, java.sql.Timestamp a1) throws SQLException {
        updateTimestamp(findColumn(a0), a1);
    }

    @Override
    public void updateTimestamp(int a0, java.sql.Timestamp a1) throws SQLException {
        update(a0, a1 == null ? Values.NULL : Values.ofTimestamp(a1, null));
    }
}
