package org.lutra.jdbc;

/**
 * Every method of {@link java.sql.Connection} throwing
 * SQLFeatureNotSupportedException (SQLState 0A000). Generated from the interface by reflection so
 * that the real class only holds what Lutra supports; it overrides the methods it implements.
 */
@SuppressWarnings("unused")
abstract class UnsupportedConnection implements java.sql.Connection {

    @Override
    public void abort(java.util.concurrent.Executor a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.abort");
    }

    @Override
    public void clearWarnings() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.clearWarnings");
    }

    @Override
    public void close() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.close");
    }

    @Override
    public void commit() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.commit");
    }

    @Override
    public java.sql.Array createArrayOf(String a0, Object[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createArrayOf");
    }

    @Override
    public java.sql.Blob createBlob() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createBlob");
    }

    @Override
    public java.sql.Clob createClob() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createClob");
    }

    @Override
    public java.sql.NClob createNClob() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createNClob");
    }

    @Override
    public java.sql.SQLXML createSQLXML() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createSQLXML");
    }

    @Override
    public java.sql.Statement createStatement() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createStatement");
    }

    @Override
    public java.sql.Statement createStatement(int a0, int a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createStatement");
    }

    @Override
    public java.sql.Statement createStatement(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createStatement");
    }

    @Override
    public java.sql.Struct createStruct(String a0, Object[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.createStruct");
    }

    @Override
    public boolean getAutoCommit() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getAutoCommit");
    }

    @Override
    public String getCatalog() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getCatalog");
    }

    @Override
    public java.util.Properties getClientInfo() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getClientInfo");
    }

    @Override
    public String getClientInfo(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getClientInfo");
    }

    @Override
    public int getHoldability() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getHoldability");
    }

    @Override
    public java.sql.DatabaseMetaData getMetaData() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getMetaData");
    }

    @Override
    public int getNetworkTimeout() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getNetworkTimeout");
    }

    @Override
    public String getSchema() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getSchema");
    }

    @Override
    public int getTransactionIsolation() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getTransactionIsolation");
    }

    @Override
    public java.util.Map<String, Class<?>> getTypeMap() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getTypeMap");
    }

    @Override
    public java.sql.SQLWarning getWarnings() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.getWarnings");
    }

    @Override
    public boolean isClosed() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.isClosed");
    }

    @Override
    public boolean isReadOnly() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.isReadOnly");
    }

    @Override
    public boolean isValid(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.isValid");
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.isWrapperFor");
    }

    @Override
    public String nativeSQL(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.nativeSQL");
    }

    @Override
    public java.sql.CallableStatement prepareCall(String a0, int a1, int a2, int a3) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareCall");
    }

    @Override
    public java.sql.CallableStatement prepareCall(String a0, int a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareCall");
    }

    @Override
    public java.sql.CallableStatement prepareCall(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareCall");
    }

    @Override
    public java.sql.PreparedStatement prepareStatement(String a0, int[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareStatement");
    }

    @Override
    public java.sql.PreparedStatement prepareStatement(String a0, String[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareStatement");
    }

    @Override
    public java.sql.PreparedStatement prepareStatement(String a0, int a1, int a2, int a3) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareStatement");
    }

    @Override
    public java.sql.PreparedStatement prepareStatement(String a0, int a1, int a2) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareStatement");
    }

    @Override
    public java.sql.PreparedStatement prepareStatement(String a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareStatement");
    }

    @Override
    public java.sql.PreparedStatement prepareStatement(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.prepareStatement");
    }

    @Override
    public void releaseSavepoint(java.sql.Savepoint a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.releaseSavepoint");
    }

    @Override
    public void rollback() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.rollback");
    }

    @Override
    public void rollback(java.sql.Savepoint a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.rollback");
    }

    @Override
    public void setAutoCommit(boolean a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setAutoCommit");
    }

    @Override
    public void setCatalog(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setCatalog");
    }

    @Override
    public void setClientInfo(String a0, String a1) throws java.sql.SQLClientInfoException {
        throw Errors.unsupportedClientInfo("Connection.setClientInfo");
    }

    @Override
    public void setClientInfo(java.util.Properties a0) throws java.sql.SQLClientInfoException {
        throw Errors.unsupportedClientInfo("Connection.setClientInfo");
    }

    @Override
    public void setHoldability(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setHoldability");
    }

    @Override
    public void setNetworkTimeout(java.util.concurrent.Executor a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setNetworkTimeout");
    }

    @Override
    public void setReadOnly(boolean a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setReadOnly");
    }

    @Override
    public java.sql.Savepoint setSavepoint() throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setSavepoint");
    }

    @Override
    public java.sql.Savepoint setSavepoint(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setSavepoint");
    }

    @Override
    public void setSchema(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setSchema");
    }

    @Override
    public void setTransactionIsolation(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setTransactionIsolation");
    }

    @Override
    public void setTypeMap(java.util.Map<String, Class<?>> a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.setTypeMap");
    }

    @Override
    public <T> T unwrap(Class<T> a0) throws java.sql.SQLException {
        throw Errors.unsupported("Connection.unwrap");
    }
}
