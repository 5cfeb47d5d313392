package org.lutra.jdbc;

/**
 * Every method of {@link java.sql.PreparedStatement} (those it declares itself) throwing
 * SQLFeatureNotSupportedException (SQLState 0A000). Generated from the interface by reflection so
 * that the real class only holds what Lutra supports; it overrides the methods it implements.
 */
@SuppressWarnings("unused")
abstract class UnsupportedPreparedStatement extends LutraStatement implements java.sql.PreparedStatement {
    UnsupportedPreparedStatement(LutraConnection connection, int resultSetType, int resultSetConcurrency, int resultSetHoldability) {
        super(connection, resultSetType, resultSetConcurrency, resultSetHoldability);
    }

    @Override
    public void addBatch() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.addBatch");
    }

    @Override
    public void clearParameters() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.clearParameters");
    }

    @Override
    public boolean execute() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.execute");
    }

    @Override
    public java.sql.ResultSet executeQuery() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.executeQuery");
    }

    @Override
    public int executeUpdate() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.executeUpdate");
    }

    @Override
    public java.sql.ResultSetMetaData getMetaData() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.getMetaData");
    }

    @Override
    public java.sql.ParameterMetaData getParameterMetaData() throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.getParameterMetaData");
    }

    @Override
    public void setArray(int a0, java.sql.Array a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setArray");
    }

    @Override
    public void setAsciiStream(int a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setAsciiStream");
    }

    @Override
    public void setAsciiStream(int a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setAsciiStream");
    }

    @Override
    public void setAsciiStream(int a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setAsciiStream");
    }

    @Override
    public void setBigDecimal(int a0, java.math.BigDecimal a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBigDecimal");
    }

    @Override
    public void setBinaryStream(int a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBinaryStream");
    }

    @Override
    public void setBinaryStream(int a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBinaryStream");
    }

    @Override
    public void setBinaryStream(int a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBinaryStream");
    }

    @Override
    public void setBlob(int a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBlob");
    }

    @Override
    public void setBlob(int a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBlob");
    }

    @Override
    public void setBlob(int a0, java.sql.Blob a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBlob");
    }

    @Override
    public void setBoolean(int a0, boolean a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBoolean");
    }

    @Override
    public void setByte(int a0, byte a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setByte");
    }

    @Override
    public void setBytes(int a0, byte[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setBytes");
    }

    @Override
    public void setCharacterStream(int a0, java.io.Reader a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setCharacterStream");
    }

    @Override
    public void setCharacterStream(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setCharacterStream");
    }

    @Override
    public void setCharacterStream(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setCharacterStream");
    }

    @Override
    public void setClob(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setClob");
    }

    @Override
    public void setClob(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setClob");
    }

    @Override
    public void setClob(int a0, java.sql.Clob a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setClob");
    }

    @Override
    public void setDate(int a0, java.sql.Date a1, java.util.Calendar a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setDate");
    }

    @Override
    public void setDate(int a0, java.sql.Date a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setDate");
    }

    @Override
    public void setDouble(int a0, double a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setDouble");
    }

    @Override
    public void setFloat(int a0, float a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setFloat");
    }

    @Override
    public void setInt(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setInt");
    }

    @Override
    public void setLong(int a0, long a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setLong");
    }

    @Override
    public void setNCharacterStream(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNCharacterStream");
    }

    @Override
    public void setNCharacterStream(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNCharacterStream");
    }

    @Override
    public void setNClob(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNClob");
    }

    @Override
    public void setNClob(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNClob");
    }

    @Override
    public void setNClob(int a0, java.sql.NClob a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNClob");
    }

    @Override
    public void setNString(int a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNString");
    }

    @Override
    public void setNull(int a0, int a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNull");
    }

    @Override
    public void setNull(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setNull");
    }

    @Override
    public void setObject(int a0, Object a1, int a2, int a3) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setObject");
    }

    @Override
    public void setObject(int a0, Object a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setObject");
    }

    @Override
    public void setObject(int a0, Object a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setObject");
    }

    @Override
    public void setRef(int a0, java.sql.Ref a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setRef");
    }

    @Override
    public void setRowId(int a0, java.sql.RowId a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setRowId");
    }

    @Override
    public void setSQLXML(int a0, java.sql.SQLXML a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setSQLXML");
    }

    @Override
    public void setShort(int a0, short a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setShort");
    }

    @Override
    public void setString(int a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setString");
    }

    @Override
    public void setTime(int a0, java.sql.Time a1, java.util.Calendar a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setTime");
    }

    @Override
    public void setTime(int a0, java.sql.Time a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setTime");
    }

    @Override
    public void setTimestamp(int a0, java.sql.Timestamp a1, java.util.Calendar a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setTimestamp");
    }

    @Override
    public void setTimestamp(int a0, java.sql.Timestamp a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setTimestamp");
    }

    @Override
    public void setURL(int a0, java.net.URL a1) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setURL");
    }

    @Deprecated
    @Override
    public void setUnicodeStream(int a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("PreparedStatement.setUnicodeStream");
    }
}
