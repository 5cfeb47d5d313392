package org.lutra.jdbc;

/**
 * Every method of {@link java.sql.ResultSet} throwing
 * SQLFeatureNotSupportedException (SQLState 0A000). Generated from the interface by reflection so
 * that the real class only holds what Lutra supports; it overrides the methods it implements.
 */
@SuppressWarnings("unused")
abstract class UnsupportedResultSet implements java.sql.ResultSet {

    @Override
    public boolean absolute(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.absolute");
    }

    @Override
    public void afterLast() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.afterLast");
    }

    @Override
    public void beforeFirst() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.beforeFirst");
    }

    @Override
    public void cancelRowUpdates() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.cancelRowUpdates");
    }

    @Override
    public void clearWarnings() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.clearWarnings");
    }

    @Override
    public void close() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.close");
    }

    @Override
    public void deleteRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.deleteRow");
    }

    @Override
    public int findColumn(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.findColumn");
    }

    @Override
    public boolean first() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.first");
    }

    @Override
    public java.sql.Array getArray(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getArray");
    }

    @Override
    public java.sql.Array getArray(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getArray");
    }

    @Override
    public java.io.InputStream getAsciiStream(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getAsciiStream");
    }

    @Override
    public java.io.InputStream getAsciiStream(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getAsciiStream");
    }

    @Deprecated
    @Override
    public java.math.BigDecimal getBigDecimal(String a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBigDecimal");
    }

    @Override
    public java.math.BigDecimal getBigDecimal(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBigDecimal");
    }

    @Deprecated
    @Override
    public java.math.BigDecimal getBigDecimal(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBigDecimal");
    }

    @Override
    public java.math.BigDecimal getBigDecimal(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBigDecimal");
    }

    @Override
    public java.io.InputStream getBinaryStream(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBinaryStream");
    }

    @Override
    public java.io.InputStream getBinaryStream(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBinaryStream");
    }

    @Override
    public java.sql.Blob getBlob(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBlob");
    }

    @Override
    public java.sql.Blob getBlob(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBlob");
    }

    @Override
    public boolean getBoolean(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBoolean");
    }

    @Override
    public boolean getBoolean(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBoolean");
    }

    @Override
    public byte getByte(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getByte");
    }

    @Override
    public byte getByte(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getByte");
    }

    @Override
    public byte[] getBytes(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBytes");
    }

    @Override
    public byte[] getBytes(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getBytes");
    }

    @Override
    public java.io.Reader getCharacterStream(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getCharacterStream");
    }

    @Override
    public java.io.Reader getCharacterStream(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getCharacterStream");
    }

    @Override
    public java.sql.Clob getClob(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getClob");
    }

    @Override
    public java.sql.Clob getClob(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getClob");
    }

    @Override
    public int getConcurrency() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getConcurrency");
    }

    @Override
    public String getCursorName() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getCursorName");
    }

    @Override
    public java.sql.Date getDate(String a0, java.util.Calendar a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getDate");
    }

    @Override
    public java.sql.Date getDate(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getDate");
    }

    @Override
    public java.sql.Date getDate(int a0, java.util.Calendar a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getDate");
    }

    @Override
    public java.sql.Date getDate(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getDate");
    }

    @Override
    public double getDouble(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getDouble");
    }

    @Override
    public double getDouble(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getDouble");
    }

    @Override
    public int getFetchDirection() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getFetchDirection");
    }

    @Override
    public int getFetchSize() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getFetchSize");
    }

    @Override
    public float getFloat(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getFloat");
    }

    @Override
    public float getFloat(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getFloat");
    }

    @Override
    public int getHoldability() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getHoldability");
    }

    @Override
    public int getInt(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getInt");
    }

    @Override
    public int getInt(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getInt");
    }

    @Override
    public long getLong(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getLong");
    }

    @Override
    public long getLong(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getLong");
    }

    @Override
    public java.sql.ResultSetMetaData getMetaData() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getMetaData");
    }

    @Override
    public java.io.Reader getNCharacterStream(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getNCharacterStream");
    }

    @Override
    public java.io.Reader getNCharacterStream(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getNCharacterStream");
    }

    @Override
    public java.sql.NClob getNClob(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getNClob");
    }

    @Override
    public java.sql.NClob getNClob(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getNClob");
    }

    @Override
    public String getNString(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getNString");
    }

    @Override
    public String getNString(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getNString");
    }

    @Override
    public <T> T getObject(String a0, Class<T> a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getObject");
    }

    @Override
    public Object getObject(String a0, java.util.Map<String, Class<?>> a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getObject");
    }

    @Override
    public Object getObject(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getObject");
    }

    @Override
    public <T> T getObject(int a0, Class<T> a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getObject");
    }

    @Override
    public Object getObject(int a0, java.util.Map<String, Class<?>> a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getObject");
    }

    @Override
    public Object getObject(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getObject");
    }

    @Override
    public java.sql.Ref getRef(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getRef");
    }

    @Override
    public java.sql.Ref getRef(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getRef");
    }

    @Override
    public int getRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getRow");
    }

    @Override
    public java.sql.RowId getRowId(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getRowId");
    }

    @Override
    public java.sql.RowId getRowId(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getRowId");
    }

    @Override
    public java.sql.SQLXML getSQLXML(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getSQLXML");
    }

    @Override
    public java.sql.SQLXML getSQLXML(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getSQLXML");
    }

    @Override
    public short getShort(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getShort");
    }

    @Override
    public short getShort(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getShort");
    }

    @Override
    public java.sql.Statement getStatement() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getStatement");
    }

    @Override
    public String getString(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getString");
    }

    @Override
    public String getString(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getString");
    }

    @Override
    public java.sql.Time getTime(String a0, java.util.Calendar a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTime");
    }

    @Override
    public java.sql.Time getTime(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTime");
    }

    @Override
    public java.sql.Time getTime(int a0, java.util.Calendar a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTime");
    }

    @Override
    public java.sql.Time getTime(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTime");
    }

    @Override
    public java.sql.Timestamp getTimestamp(String a0, java.util.Calendar a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTimestamp");
    }

    @Override
    public java.sql.Timestamp getTimestamp(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTimestamp");
    }

    @Override
    public java.sql.Timestamp getTimestamp(int a0, java.util.Calendar a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTimestamp");
    }

    @Override
    public java.sql.Timestamp getTimestamp(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getTimestamp");
    }

    @Override
    public int getType() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getType");
    }

    @Override
    public java.net.URL getURL(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getURL");
    }

    @Override
    public java.net.URL getURL(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getURL");
    }

    @Deprecated
    @Override
    public java.io.InputStream getUnicodeStream(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getUnicodeStream");
    }

    @Deprecated
    @Override
    public java.io.InputStream getUnicodeStream(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getUnicodeStream");
    }

    @Override
    public java.sql.SQLWarning getWarnings() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.getWarnings");
    }

    @Override
    public void insertRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.insertRow");
    }

    @Override
    public boolean isAfterLast() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.isAfterLast");
    }

    @Override
    public boolean isBeforeFirst() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.isBeforeFirst");
    }

    @Override
    public boolean isClosed() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.isClosed");
    }

    @Override
    public boolean isFirst() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.isFirst");
    }

    @Override
    public boolean isLast() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.isLast");
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.isWrapperFor");
    }

    @Override
    public boolean last() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.last");
    }

    @Override
    public void moveToCurrentRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.moveToCurrentRow");
    }

    @Override
    public void moveToInsertRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.moveToInsertRow");
    }

    @Override
    public boolean next() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.next");
    }

    @Override
    public boolean previous() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.previous");
    }

    @Override
    public void refreshRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.refreshRow");
    }

    @Override
    public boolean relative(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.relative");
    }

    @Override
    public boolean rowDeleted() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.rowDeleted");
    }

    @Override
    public boolean rowInserted() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.rowInserted");
    }

    @Override
    public boolean rowUpdated() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.rowUpdated");
    }

    @Override
    public void setFetchDirection(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.setFetchDirection");
    }

    @Override
    public void setFetchSize(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.setFetchSize");
    }

    @Override
    public <T> T unwrap(Class<T> a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.unwrap");
    }

    @Override
    public void updateArray(String a0, java.sql.Array a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateArray");
    }

    @Override
    public void updateArray(int a0, java.sql.Array a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateArray");
    }

    @Override
    public void updateAsciiStream(String a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateAsciiStream");
    }

    @Override
    public void updateAsciiStream(String a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateAsciiStream");
    }

    @Override
    public void updateAsciiStream(String a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateAsciiStream");
    }

    @Override
    public void updateAsciiStream(int a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateAsciiStream");
    }

    @Override
    public void updateAsciiStream(int a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateAsciiStream");
    }

    @Override
    public void updateAsciiStream(int a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateAsciiStream");
    }

    @Override
    public void updateBigDecimal(String a0, java.math.BigDecimal a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBigDecimal");
    }

    @Override
    public void updateBigDecimal(int a0, java.math.BigDecimal a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBigDecimal");
    }

    @Override
    public void updateBinaryStream(String a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBinaryStream");
    }

    @Override
    public void updateBinaryStream(String a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBinaryStream");
    }

    @Override
    public void updateBinaryStream(String a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBinaryStream");
    }

    @Override
    public void updateBinaryStream(int a0, java.io.InputStream a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBinaryStream");
    }

    @Override
    public void updateBinaryStream(int a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBinaryStream");
    }

    @Override
    public void updateBinaryStream(int a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBinaryStream");
    }

    @Override
    public void updateBlob(String a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBlob");
    }

    @Override
    public void updateBlob(String a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBlob");
    }

    @Override
    public void updateBlob(String a0, java.sql.Blob a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBlob");
    }

    @Override
    public void updateBlob(int a0, java.io.InputStream a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBlob");
    }

    @Override
    public void updateBlob(int a0, java.io.InputStream a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBlob");
    }

    @Override
    public void updateBlob(int a0, java.sql.Blob a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBlob");
    }

    @Override
    public void updateBoolean(String a0, boolean a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBoolean");
    }

    @Override
    public void updateBoolean(int a0, boolean a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBoolean");
    }

    @Override
    public void updateByte(String a0, byte a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateByte");
    }

    @Override
    public void updateByte(int a0, byte a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateByte");
    }

    @Override
    public void updateBytes(String a0, byte[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBytes");
    }

    @Override
    public void updateBytes(int a0, byte[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateBytes");
    }

    @Override
    public void updateCharacterStream(String a0, java.io.Reader a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateCharacterStream");
    }

    @Override
    public void updateCharacterStream(String a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateCharacterStream");
    }

    @Override
    public void updateCharacterStream(String a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateCharacterStream");
    }

    @Override
    public void updateCharacterStream(int a0, java.io.Reader a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateCharacterStream");
    }

    @Override
    public void updateCharacterStream(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateCharacterStream");
    }

    @Override
    public void updateCharacterStream(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateCharacterStream");
    }

    @Override
    public void updateClob(String a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateClob");
    }

    @Override
    public void updateClob(String a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateClob");
    }

    @Override
    public void updateClob(String a0, java.sql.Clob a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateClob");
    }

    @Override
    public void updateClob(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateClob");
    }

    @Override
    public void updateClob(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateClob");
    }

    @Override
    public void updateClob(int a0, java.sql.Clob a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateClob");
    }

    @Override
    public void updateDate(String a0, java.sql.Date a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateDate");
    }

    @Override
    public void updateDate(int a0, java.sql.Date a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateDate");
    }

    @Override
    public void updateDouble(String a0, double a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateDouble");
    }

    @Override
    public void updateDouble(int a0, double a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateDouble");
    }

    @Override
    public void updateFloat(String a0, float a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateFloat");
    }

    @Override
    public void updateFloat(int a0, float a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateFloat");
    }

    @Override
    public void updateInt(String a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateInt");
    }

    @Override
    public void updateInt(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateInt");
    }

    @Override
    public void updateLong(String a0, long a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateLong");
    }

    @Override
    public void updateLong(int a0, long a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateLong");
    }

    @Override
    public void updateNCharacterStream(String a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNCharacterStream");
    }

    @Override
    public void updateNCharacterStream(String a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNCharacterStream");
    }

    @Override
    public void updateNCharacterStream(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNCharacterStream");
    }

    @Override
    public void updateNCharacterStream(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNCharacterStream");
    }

    @Override
    public void updateNClob(String a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNClob");
    }

    @Override
    public void updateNClob(String a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNClob");
    }

    @Override
    public void updateNClob(String a0, java.sql.NClob a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNClob");
    }

    @Override
    public void updateNClob(int a0, java.io.Reader a1, long a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNClob");
    }

    @Override
    public void updateNClob(int a0, java.io.Reader a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNClob");
    }

    @Override
    public void updateNClob(int a0, java.sql.NClob a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNClob");
    }

    @Override
    public void updateNString(String a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNString");
    }

    @Override
    public void updateNString(int a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNString");
    }

    @Override
    public void updateNull(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNull");
    }

    @Override
    public void updateNull(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateNull");
    }

    @Override
    public void updateObject(String a0, Object a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateObject");
    }

    @Override
    public void updateObject(String a0, Object a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateObject");
    }

    @Override
    public void updateObject(int a0, Object a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateObject");
    }

    @Override
    public void updateObject(int a0, Object a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateObject");
    }

    @Override
    public void updateRef(String a0, java.sql.Ref a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateRef");
    }

    @Override
    public void updateRef(int a0, java.sql.Ref a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateRef");
    }

    @Override
    public void updateRow() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateRow");
    }

    @Override
    public void updateRowId(String a0, java.sql.RowId a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateRowId");
    }

    @Override
    public void updateRowId(int a0, java.sql.RowId a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateRowId");
    }

    @Override
    public void updateSQLXML(String a0, java.sql.SQLXML a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateSQLXML");
    }

    @Override
    public void updateSQLXML(int a0, java.sql.SQLXML a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateSQLXML");
    }

    @Override
    public void updateShort(String a0, short a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateShort");
    }

    @Override
    public void updateShort(int a0, short a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateShort");
    }

    @Override
    public void updateString(String a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateString");
    }

    @Override
    public void updateString(int a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateString");
    }

    @Override
    public void updateTime(String a0, java.sql.Time a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateTime");
    }

    @Override
    public void updateTime(int a0, java.sql.Time a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateTime");
    }

    @Override
    public void updateTimestamp(String a0, java.sql.Timestamp a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateTimestamp");
    }

    @Override
    public void updateTimestamp(int a0, java.sql.Timestamp a1) throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.updateTimestamp");
    }

    @Override
    public boolean wasNull() throws java.sql.SQLException {
        throw Errors.unsupported("ResultSet.wasNull");
    }
}
