package org.lutra.jdbc;

import org.lutra.protocol.Value;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.ParameterMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.List;

/**
 * A statement whose '?' parameters are kept here as protocol Values and sent with every Execute;
 * the router binds them on the shards, so values never become part of SQL text. Nothing is
 * prepared on the router: it caches plans per SQL text instead.
 *
 * <p>Its length is java.sql.PreparedStatement's: one short method per setter of the interface (68
 * overrides), each turning its argument into a protocol Value ({@link Values}).
 */
public final class LutraPreparedStatement extends UnsupportedPreparedStatement {
    private final String sql;
    private final Value[] parameters;
    private final List<List<Value>> batch = new ArrayList<>();
    /** Connection.prepareStatement(sql, RETURN_GENERATED_KEYS / int[] / String[]): every execution asks for them. */
    private final boolean returnKeys;

    LutraPreparedStatement(LutraConnection connection, String sql, int type, int concurrency, int holdability, boolean returnKeys) {
        super(connection, type, concurrency, holdability);
        this.sql = sql;
        this.parameters = new Value[SqlText.countParameters(sql)];
        this.returnKeys = returnKeys;
    }

    @Override
    boolean returnsGeneratedKeys() {
        return returnKeys;
    }

    private List<Value> boundParameters() throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] == null) {
                throw Errors.of("no value specified for parameter " + (i + 1) + " of " + parameters.length, Errors.MISSING_PARAMETER);
            }
        }
        return List.of(parameters);
    }

    private void set(int index, Value value) throws SQLException {
        checkOpen();
        if (index < 1 || index > parameters.length) {
            throw Errors.of("parameter index " + index + " is out of range 1.." + parameters.length, Errors.INVALID_PARAMETER_INDEX);
        }
        parameters[index - 1] = value;
    }

    // ---- execution -------------------------------------------------------------------------

    @Override
    public ResultSet executeQuery() throws SQLException {
        return runQuery(sql, boundParameters());
    }

    @Override
    public int executeUpdate() throws SQLException {
        return saturatedInt(executeLargeUpdate());
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        return runUpdate(sql, boundParameters());
    }

    @Override
    public boolean execute() throws SQLException {
        return run(sql, boundParameters());
    }

    @Override
    public void addBatch() throws SQLException {
        checkOpen();
        batch.add(boundParameters());
    }

    @Override
    public void clearBatch() throws SQLException {
        checkOpen();
        batch.clear();
    }

    /** Every parameter set in one ExecuteBatch request (see {@link LutraStatement#runBatch}). */
    @Override
    public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        var sets = List.copyOf(batch);
        batch.clear();
        return runBatch(List.of(), sql, sets, returnKeys);
    }

    @Override
    public int[] executeBatch() throws SQLException {
        return Arrays.stream(executeLargeBatch()).mapToInt(LutraStatement::saturatedInt).toArray();
    }

    // JDBC: the SQL-taking Statement methods must fail on a PreparedStatement.

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public boolean execute(String sql, int keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public boolean execute(String sql, int[] keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public boolean execute(String sql, String[] keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public int executeUpdate(String sql, int keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public int executeUpdate(String sql, int[] keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public int executeUpdate(String sql, String[] keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public long executeLargeUpdate(String sql, int keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public long executeLargeUpdate(String sql, int[] keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public long executeLargeUpdate(String sql, String[] keys) throws SQLException {
        throw sqlOnPrepared();
    }

    @Override
    public void addBatch(String sql) throws SQLException {
        throw sqlOnPrepared();
    }

    private static SQLException sqlOnPrepared() {
        return Errors.of("a PreparedStatement runs its own SQL; call the method without a SQL argument", Errors.GENERAL);
    }

    @Override
    public void clearParameters() throws SQLException {
        checkOpen();
        Arrays.fill(parameters, null);
    }

    /** Known only once the statement has produced a result set: nothing is prepared in advance. */
    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        checkOpen();
        return lastColumns == null ? null : new LutraResultSetMetaData(lastColumns.list);
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        checkOpen();
        return new LutraParameterMetaData(parameters.length);
    }

    // ---- setters ---------------------------------------------------------------------------

    @Override
    public void setNull(int i, int sqlType) throws SQLException {
        set(i, Values.NULL);
    }

    @Override
    public void setNull(int i, int sqlType, String typeName) throws SQLException {
        set(i, Values.NULL);
    }

    @Override
    public void setBoolean(int i, boolean x) throws SQLException {
        set(i, Values.ofBoolean(x));
    }

    @Override
    public void setByte(int i, byte x) throws SQLException {
        set(i, Values.ofLong(x));
    }

    @Override
    public void setShort(int i, short x) throws SQLException {
        set(i, Values.ofLong(x));
    }

    @Override
    public void setInt(int i, int x) throws SQLException {
        set(i, Values.ofLong(x));
    }

    @Override
    public void setLong(int i, long x) throws SQLException {
        set(i, Values.ofLong(x));
    }

    @Override
    public void setFloat(int i, float x) throws SQLException {
        set(i, Values.ofFloat(x));
    }

    @Override
    public void setDouble(int i, double x) throws SQLException {
        set(i, Values.ofDouble(x));
    }

    @Override
    public void setBigDecimal(int i, BigDecimal x) throws SQLException {
        set(i, Values.ofDecimal(x));
    }

    @Override
    public void setString(int i, String x) throws SQLException {
        set(i, Values.ofString(x));
    }

    @Override
    public void setNString(int i, String x) throws SQLException {
        set(i, Values.ofString(x));
    }

    @Override
    public void setBytes(int i, byte[] x) throws SQLException {
        set(i, Values.ofBytes(x));
    }

    @Override
    public void setDate(int i, Date x) throws SQLException {
        set(i, Values.ofDate(x, null));
    }

    @Override
    public void setDate(int i, Date x, Calendar cal) throws SQLException {
        set(i, Values.ofDate(x, cal));
    }

    @Override
    public void setTime(int i, Time x) throws SQLException {
        set(i, Values.ofTime(x, null));
    }

    @Override
    public void setTime(int i, Time x, Calendar cal) throws SQLException {
        set(i, Values.ofTime(x, cal));
    }

    @Override
    public void setTimestamp(int i, Timestamp x) throws SQLException {
        set(i, Values.ofTimestamp(x, null));
    }

    @Override
    public void setTimestamp(int i, Timestamp x, Calendar cal) throws SQLException {
        set(i, Values.ofTimestamp(x, cal));
    }

    @Override
    public void setObject(int i, Object x) throws SQLException {
        set(i, Values.ofObject(x));
    }

    @Override
    public void setObject(int i, Object x, int targetSqlType) throws SQLException {
        set(i, Values.ofObject(x, targetSqlType));
    }

    @Override
    public void setObject(int i, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        Value v = Values.ofObject(x, targetSqlType);
        if (v.hasDecimalValue() && (targetSqlType == java.sql.Types.DECIMAL || targetSqlType == java.sql.Types.NUMERIC)) {
            v = Values.ofDecimal(new BigDecimal(v.getDecimalValue()).setScale(scaleOrLength, java.math.RoundingMode.HALF_UP));
        }
        set(i, v);
    }

    // Streams are read whole now: a Value is sent in one frame anyway.

    @Override
    public void setBinaryStream(int i, InputStream x) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofBytes(readAll(x, -1)));
    }

    @Override
    public void setBinaryStream(int i, InputStream x, int length) throws SQLException {
        setBinaryStream(i, x, (long) length);
    }

    @Override
    public void setBinaryStream(int i, InputStream x, long length) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofBytes(readAll(x, length)));
    }

    @Override
    public void setBlob(int i, InputStream x) throws SQLException {
        setBinaryStream(i, x);
    }

    @Override
    public void setBlob(int i, InputStream x, long length) throws SQLException {
        setBinaryStream(i, x, length);
    }

    @Override
    public void setAsciiStream(int i, InputStream x) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofString(new String(readAll(x, -1), StandardCharsets.US_ASCII)));
    }

    @Override
    public void setAsciiStream(int i, InputStream x, int length) throws SQLException {
        setAsciiStream(i, x, (long) length);
    }

    @Override
    public void setAsciiStream(int i, InputStream x, long length) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofString(new String(readAll(x, length), StandardCharsets.US_ASCII)));
    }

    @Override
    public void setCharacterStream(int i, Reader x) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofString(readAll(x, -1)));
    }

    @Override
    public void setCharacterStream(int i, Reader x, int length) throws SQLException {
        setCharacterStream(i, x, (long) length);
    }

    @Override
    public void setCharacterStream(int i, Reader x, long length) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofString(readAll(x, length)));
    }

    @Override
    public void setNCharacterStream(int i, Reader x) throws SQLException {
        setCharacterStream(i, x);
    }

    @Override
    public void setNCharacterStream(int i, Reader x, long length) throws SQLException {
        setCharacterStream(i, x, length);
    }

    @Override
    public void setClob(int i, Reader x) throws SQLException {
        setCharacterStream(i, x);
    }

    @Override
    public void setClob(int i, Reader x, long length) throws SQLException {
        setCharacterStream(i, x, length);
    }

    @Override
    public void setClob(int i, java.sql.Clob x) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofString(x.getSubString(1, Math.toIntExact(x.length()))));
    }

    @Override
    public void setNClob(int i, java.sql.NClob x) throws SQLException {
        setClob(i, x);
    }

    @Override
    public void setNClob(int i, Reader x) throws SQLException {
        setCharacterStream(i, x);
    }

    @Override
    public void setNClob(int i, Reader x, long length) throws SQLException {
        setCharacterStream(i, x, length);
    }

    @Override
    public void setBlob(int i, java.sql.Blob x) throws SQLException {
        set(i, x == null ? Values.NULL : Values.ofBytes(x.getBytes(1, Math.toIntExact(x.length()))));
    }

    static byte[] readAll(InputStream in, long length) throws SQLException {
        try {
            return length < 0 ? in.readAllBytes() : in.readNBytes(Math.toIntExact(length));
        } catch (IOException | ArithmeticException e) {
            throw Errors.of("cannot read the parameter stream: " + e.getMessage(), Errors.GENERAL, 0, e);
        }
    }

    static String readAll(Reader in, long length) throws SQLException {
        try {
            var sb = new StringBuilder();
            char[] buf = new char[8192];
            long left = length < 0 ? Long.MAX_VALUE : length;
            int n;
            while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
                sb.append(buf, 0, n);
                left -= n;
            }
            return sb.toString();
        } catch (IOException e) {
            throw Errors.of("cannot read the parameter stream: " + e.getMessage(), Errors.GENERAL, 0, e);
        }
    }
}
