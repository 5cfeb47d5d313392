package org.lutra.jdbc;

/**
 * Every method of {@link java.sql.Statement} throwing
 * SQLFeatureNotSupportedException (SQLState 0A000). Generated from the interface by reflection so
 * that the real class only holds what Lutra supports; it overrides the methods it implements.
 */
@SuppressWarnings("unused")
abstract class UnsupportedStatement implements java.sql.Statement {

    @Override
    public void addBatch(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.addBatch");
    }

    @Override
    public void cancel() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.cancel");
    }

    @Override
    public void clearBatch() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.clearBatch");
    }

    @Override
    public void clearWarnings() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.clearWarnings");
    }

    @Override
    public void close() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.close");
    }

    @Override
    public void closeOnCompletion() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.closeOnCompletion");
    }

    @Override
    public boolean execute(String a0, int[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.execute");
    }

    @Override
    public boolean execute(String a0, String[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.execute");
    }

    @Override
    public boolean execute(String a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.execute");
    }

    @Override
    public boolean execute(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.execute");
    }

    @Override
    public int[] executeBatch() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.executeBatch");
    }

    @Override
    public java.sql.ResultSet executeQuery(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.executeQuery");
    }

    @Override
    public int executeUpdate(String a0, int[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.executeUpdate");
    }

    @Override
    public int executeUpdate(String a0, String[] a1) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.executeUpdate");
    }

    @Override
    public int executeUpdate(String a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.executeUpdate");
    }

    @Override
    public int executeUpdate(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.executeUpdate");
    }

    @Override
    public java.sql.Connection getConnection() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getConnection");
    }

    @Override
    public int getFetchDirection() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getFetchDirection");
    }

    @Override
    public int getFetchSize() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getFetchSize");
    }

    @Override
    public java.sql.ResultSet getGeneratedKeys() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getGeneratedKeys");
    }

    @Override
    public int getMaxFieldSize() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getMaxFieldSize");
    }

    @Override
    public int getMaxRows() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getMaxRows");
    }

    @Override
    public boolean getMoreResults() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getMoreResults");
    }

    @Override
    public boolean getMoreResults(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getMoreResults");
    }

    @Override
    public int getQueryTimeout() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getQueryTimeout");
    }

    @Override
    public java.sql.ResultSet getResultSet() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getResultSet");
    }

    @Override
    public int getResultSetConcurrency() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getResultSetConcurrency");
    }

    @Override
    public int getResultSetHoldability() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getResultSetHoldability");
    }

    @Override
    public int getResultSetType() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getResultSetType");
    }

    @Override
    public int getUpdateCount() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getUpdateCount");
    }

    @Override
    public java.sql.SQLWarning getWarnings() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.getWarnings");
    }

    @Override
    public boolean isCloseOnCompletion() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.isCloseOnCompletion");
    }

    @Override
    public boolean isClosed() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.isClosed");
    }

    @Override
    public boolean isPoolable() throws java.sql.SQLException {
        throw Errors.unsupported("Statement.isPoolable");
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.isWrapperFor");
    }

    @Override
    public void setCursorName(String a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setCursorName");
    }

    @Override
    public void setEscapeProcessing(boolean a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setEscapeProcessing");
    }

    @Override
    public void setFetchDirection(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setFetchDirection");
    }

    @Override
    public void setFetchSize(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setFetchSize");
    }

    @Override
    public void setMaxFieldSize(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setMaxFieldSize");
    }

    @Override
    public void setMaxRows(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setMaxRows");
    }

    @Override
    public void setPoolable(boolean a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setPoolable");
    }

    @Override
    public void setQueryTimeout(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.setQueryTimeout");
    }

    @Override
    public <T> T unwrap(Class<T> a0) throws java.sql.SQLException {
        throw Errors.unsupported("Statement.unwrap");
    }
}
